/* session_dir.c - session directories (see session_dir.h). */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "paths.h"
#include "session_dir.h"
#include "strf.h"

static void make_id(char *buf, size_t len)
{
	time_t now = time(NULL);
	struct tm tm;
	uint32_t rnd = 0;
	char stamp[24];

	/* 32 random bits: ids of sessions written to --out directories are
	 * not checked against each other by mkdir(), and a test suite starts
	 * dozens of sessions per second (16 bits once collided in CI). */
	if (getrandom(&rnd, sizeof(rnd), GRND_NONBLOCK) != sizeof(rnd))
		rnd = (uint32_t)getpid() ^ (uint32_t)now ^
		      (uint32_t)clock();
	localtime_r(&now, &tm);
	strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M%S", &tm);
	snprintf(buf, len, "%s-%08x", stamp, rnd);
}

static int absolutize(const char *path, char *out, size_t len, char *err,
		      size_t errlen)
{
	if (!realpath(path, out)) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	if (strlen(out) + 32 >= len) {
		snprintf(err, errlen, "%s: path too long", path);
		return -1;
	}
	return 0;
}

/* The session id a session.txt names, or "another session". */
static void id_of(const char *path, char *id, size_t len)
{
	FILE *f = fopen(path, "re");
	char line[96];

	snprintf(id, len, "another session");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f))
		if (strncmp(line, "id=", 3) == 0) {
			line[strcspn(line, "\n")] = '\0';
			snprintf(id, len, "session %.80s", line + 3);
			break;
		}
	fclose(f);
}

/* A --out directory holds one session: its session.txt is created here
 * with O_EXCL, so that a second launch into it (at once or later) is
 * refused instead of overwriting the first one's traces (QA: the second
 * of two sessions in one --out directory replaced run-000001 of the
 * first, whose results then named a trace of another program, and two
 * at once left half of each other's traces unreadable). */
static int claim_out_dir(const char *dir, char *err, size_t errlen)
{
	char path[PATH_MAX + 16], id[96];
	struct dirent *d;
	DIR *dh;
	int fd;

	snprintf(path, sizeof(path), "%s/session.txt", dir);
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (fd < 0 && errno == EEXIST) {
		id_of(path, id, sizeof(id));
		snprintf(err, errlen, "%s holds the runs of %s already: give "
			 "each session its own --out directory", dir, id);
		return -1;
	}
	if (fd < 0) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	close(fd);
	/* Runs of a session that wrote no session.txt (a version before
	 * it did, or a copy). */
	dh = opendir(dir);
	while (dh && (d = readdir(dh)))
		if (strncmp(d->d_name, "run-", 4) == 0) {
			closedir(dh);
			unlink(path);
			snprintf(err, errlen, "%s holds runs of another session "
				 "(%s): give each session its own --out "
				 "directory", dir, d->d_name);
			return -1;
		}
	if (dh)
		closedir(dh);
	return 0;
}

int sc_session_create(const char *state_dir, const char *out_dir,
		      struct sc_session *s, char *err, size_t errlen)
{
	char sessions[PATH_MAX], dir[PATH_MAX];

	memset(s, 0, sizeof(*s));
	if (out_dir && *out_dir) {
		make_id(s->id, sizeof(s->id));
		if (sc_mkdir_p(out_dir, 0755) < 0) {
			snprintf(err, errlen, "%s: %s", out_dir, strerror(errno));
			return -1;
		}
		if (absolutize(out_dir, s->dir, sizeof(s->dir), err,
			       errlen) < 0)
			return -1;
		return claim_out_dir(s->dir, err, errlen);
	}
	if ((size_t)snprintf(sessions, sizeof(sessions), "%s/sessions",
			     state_dir) >= sizeof(sessions) - 64) {
		snprintf(err, errlen, "%s: path too long", state_dir);
		return -1;
	}
	if (sc_mkdir_p(sessions, 0700) < 0) {
		snprintf(err, errlen, "%s: %s", sessions, strerror(errno));
		return -1;
	}
	/* Two sessions started in the same second differ by the random
	 * part; mkdir() tells us when they collide. */
	for (int tries = 0; tries < 32; tries++) {
		make_id(s->id, sizeof(s->id));
		sc_strf(dir, sizeof(dir), "%s/%s", sessions, s->id);
		if (mkdir(dir, 0755) == 0)
			return absolutize(dir, s->dir, sizeof(s->dir), err,
					  errlen);
		if (errno != EEXIST) {
			snprintf(err, errlen, "%s: %s", dir, strerror(errno));
			return -1;
		}
	}
	snprintf(err, errlen, "%s: could not create a unique session directory",
		 sessions);
	return -1;
}

void sc_session_run_path(const struct sc_session *s, uint32_t run,
			 const char *ext, char *buf, size_t len)
{
	snprintf(buf, len, "%s/run-%06u.%s", s->dir, run, ext);
}

static void put_escaped(FILE *f, const char *v)
{
	for (; v && *v; v++) {
		if (*v == '\n')
			fputs("\\n", f);
		else if (*v == '\\')
			fputs("\\\\", f);
		else
			fputc(*v, f);
	}
}

int sc_session_write_params(const struct sc_session *s,
			    const struct sc_session_param *p, size_t n,
			    char *err, size_t errlen)
{
	char path[PATH_MAX + 16];
	FILE *f;

	snprintf(path, sizeof(path), "%s/session.txt", s->dir);
	f = fopen(path, "we");
	if (!f) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	for (size_t i = 0; i < n; i++) {
		fprintf(f, "%s=", p[i].key);
		put_escaped(f, p[i].value);
		fputc('\n', f);
	}
	if (fclose(f) != 0) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	return 0;
}
