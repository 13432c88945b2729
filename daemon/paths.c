/* paths.c - socket and state directory resolution (see paths.h). */
#include "config.h"

#include <errno.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "paths.h"

/* getenv() that treats an empty value as unset. */
static const char *env_nonempty(const char *name)
{
	const char *v = getenv(name);

	return v && *v ? v : NULL;
}

static int fit(char *buf, size_t len, char *err, size_t errlen,
	       const char *what, int n)
{
	if (n < 0 || (size_t)n >= len) {
		snprintf(err, errlen, "%s path too long", what);
		if (len)
			buf[0] = '\0';
		return -1;
	}
	return 0;
}

int sc_socket_path(const char *explicit_path, char *buf, size_t len,
		   char *err, size_t errlen)
{
	const char *p = explicit_path && *explicit_path ? explicit_path
			: env_nonempty("SCHEDCTL_SOCKET");
	const char *xdg = env_nonempty("XDG_RUNTIME_DIR");
	int n;

	if (p)
		n = snprintf(buf, len, "%s", p);
	else if (geteuid() == 0)
		n = snprintf(buf, len, "/run/schedctl/schedctld.sock");
	else if (xdg)
		n = snprintf(buf, len, "%s/schedctl/schedctld.sock", xdg);
	else
		n = snprintf(buf, len, "/tmp/schedctl-%u/schedctld.sock",
			     (unsigned)geteuid());
	if (fit(buf, len, err, errlen, "socket", n) < 0)
		return -1;
	if (strlen(buf) > SC_SOCKET_PATH_MAX) {
		snprintf(err, errlen, "%s: socket path longer than %d bytes",
			 buf, SC_SOCKET_PATH_MAX);
		return -1;
	}
	return 0;
}

static const char *home_dir(void)
{
	const char *h = env_nonempty("HOME");
	struct passwd *pw;

	if (h)
		return h;
	pw = getpwuid(geteuid());
	return pw && pw->pw_dir ? pw->pw_dir : "/";
}

int sc_state_dir(const char *explicit_path, char *buf, size_t len,
		 char *err, size_t errlen)
{
	const char *p = explicit_path && *explicit_path ? explicit_path
			: env_nonempty("SCHEDCTL_STATE_DIR");
	const char *xdg = env_nonempty("XDG_STATE_HOME");
	int n;

	if (p)
		n = snprintf(buf, len, "%s", p);
	else if (geteuid() == 0)
		n = snprintf(buf, len, "/var/lib/schedctl");
	else if (xdg)
		n = snprintf(buf, len, "%s/schedctl", xdg);
	else
		n = snprintf(buf, len, "%s/.local/state/schedctl", home_dir());
	return fit(buf, len, err, errlen, "state directory", n);
}

int sc_mkdir_p(const char *path, mode_t mode)
{
	char tmp[4096];
	struct stat st;
	size_t n = strlen(path);

	if (n == 0 || n >= sizeof(tmp)) {
		errno = n ? ENAMETOOLONG : ENOENT;
		return -1;
	}
	memcpy(tmp, path, n + 1);
	/* Create each prefix in turn; EEXIST is fine, the final stat decides. */
	for (char *s = tmp + 1; *s; s++) {
		if (*s != '/')
			continue;
		*s = '\0';
		if (mkdir(tmp, mode) < 0 && errno != EEXIST)
			return -1;
		*s = '/';
	}
	if (mkdir(tmp, mode) < 0 && errno != EEXIST)
		return -1;
	if (stat(tmp, &st) < 0)
		return -1;
	if (!S_ISDIR(st.st_mode)) {
		errno = ENOTDIR;
		return -1;
	}
	return 0;
}

void sc_dirname(const char *path, char *buf, size_t len)
{
	const char *slash = strrchr(path, '/');

	if (!slash)
		snprintf(buf, len, ".");
	else if (slash == path)
		snprintf(buf, len, "/");
	else
		snprintf(buf, len, "%.*s", (int)(slash - path), path);
}

int sc_socket_dir_prepare(const char *sock_path, char *err, size_t errlen)
{
	char dir[4096];
	struct stat st;

	sc_dirname(sock_path, dir, sizeof(dir));
	if (sc_mkdir_p(dir, 0700) < 0) {
		snprintf(err, errlen, "%s: %s", dir, strerror(errno));
		return -1;
	}
	if (lstat(dir, &st) < 0) {
		snprintf(err, errlen, "%s: %s", dir, strerror(errno));
		return -1;
	}
	if (!S_ISDIR(st.st_mode)) {
		snprintf(err, errlen, "%s: not a directory", dir);
		return -1;
	}
	/* Others who may write into the directory could replace our socket,
	 * unless the sticky bit (as on /tmp) stops them from removing it. */
	if (st.st_mode & S_ISVTX)
		return 0;
	if (st.st_uid != geteuid() || (st.st_mode & 022)) {
		snprintf(err, errlen, "%s: owned by another user or writable by others (uid %u)",
			 dir, (unsigned)geteuid());
		return -1;
	}
	return 0;
}
