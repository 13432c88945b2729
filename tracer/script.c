/* script.c - a "#!" script as PROGRAM: can its interpreter run?
 *
 * The kernel runs a script through the interpreter named on its first
 * line, so the engine needs nothing special: the exec that it sees is the
 * interpreter's, an ELF file, and breakpoints are set up for that image as
 * for any other.  What we do here is tell the user early, on one line,
 * when the interpreter is missing or not executable, rather than report
 * every run as "exit 127" or an exec error.
 *
 * The rules follow the kernel's binfmt_script: the line is at most 255
 * bytes after "#!", the interpreter is the first word, the rest (trimmed)
 * is one optional argument, and an interpreter may itself be a script, up
 * to 4 levels deep.  "#!/usr/bin/env NAME" is also checked for NAME in
 * the program's PATH, since that is the failure users actually meet.
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tracer.h"

#define SHEBANG_MAX 256         /* the kernel's BINPRM_BUF_SIZE */
#define MAX_NESTING 4           /* the kernel's script-in-script limit */

/* Split the first line of a script into interpreter and argument.
 * Returns 1 for a script, 0 for anything else, -1 when the line is too
 * long for the kernel or names no interpreter (err set). */
static int parse_shebang(const char *path, const char *shown, char *interp,
			 size_t ilen, char *arg, size_t alen, char *err,
			 size_t errlen)
{
	char buf[SHEBANG_MAX + 1];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return 0;       /* the caller's checks say why */
	n = read(fd, buf, SHEBANG_MAX);
	close(fd);
	if (n < 2 || buf[0] != '#' || buf[1] != '!')
		return 0;
	buf[n] = '\0';
	char *nl = strchr(buf, '\n');
	if (nl)
		*nl = '\0';
	char *p = buf + 2;
	p += strspn(p, " \t");
	size_t w = strcspn(p, " \t");
	if (w == 0) {
		snprintf(err, errlen, "%s: the #! line names no interpreter",
			 shown);
		return -1;
	}
	/* Only the argument may be cut by the kernel's buffer, not the
	 * interpreter's name. */
	if (!nl && n == SHEBANG_MAX && p + w == buf + n) {
		snprintf(err, errlen, "%s: the #! line is longer than the %d "
			 "bytes the kernel reads", shown, SHEBANG_MAX - 1);
		return -1;
	}
	snprintf(interp, ilen, "%.*s", (int)w, p);
	p += w;
	p += strspn(p, " \t");
	size_t a = strlen(p);
	while (a > 0 && (p[a - 1] == ' ' || p[a - 1] == '\t' ||
			 p[a - 1] == '\r'))
		a--;
	snprintf(arg, alen, "%.*s", (int)a, p);
	return 1;
}

/* Find name in the colon-separated path list like execvp; 0 when found
 * (executable, not a directory). */
static int search_path(const char *name, const char *path, char *out,
		       size_t len)
{
	if (!path || !*path)
		path = "/usr/local/bin:/usr/bin:/bin";
	for (const char *d = path;; ) {
		size_t dl = strcspn(d, ":");
		struct stat st;

		snprintf(out, len, "%.*s/%s", (int)dl, dl ? d : ".", name);
		if (stat(out, &st) == 0 && !S_ISDIR(st.st_mode) &&
		    access(out, X_OK) == 0)
			return 0;
		if (!d[dl])
			return -1;
		d += dl + 1;
	}
}

static bool is_env(const char *interp)
{
	const char *base = strrchr(interp, '/');

	return strcmp(base ? base + 1 : interp, "env") == 0;
}

int sc_script_check(const char *path, const char *shown, const char *path_env,
		    struct sc_program_info *info, char *err, size_t errlen)
{
	char cur[4096], interp[SHEBANG_MAX], arg[SHEBANG_MAX];
	bool script = false;

	snprintf(cur, sizeof(cur), "%s", path);
	for (int level = 0; level <= MAX_NESTING; level++) {
		struct stat st;
		int rc = parse_shebang(cur, shown, interp, sizeof(interp), arg,
				       sizeof(arg), err, errlen);

		if (rc < 0)
			return -1;
		if (rc == 0) {
			if (script && info)
				snprintf(info->elf, sizeof(info->elf), "%s", cur);
			return script ? 1 : 0;
		}
		if (!script && info) {
			snprintf(info->interpreter, sizeof(info->interpreter),
				 "%s%s%s", interp, *arg ? " " : "", arg);
		}
		script = true;
		if (stat(interp, &st) < 0) {
			snprintf(err, errlen, "%s: cannot run its interpreter "
				 "%s: %s", shown, interp, strerror(errno));
			return -1;
		}
		if (S_ISDIR(st.st_mode) || access(interp, X_OK) < 0) {
			snprintf(err, errlen, "%s: its interpreter %s is not "
				 "executable", shown, interp);
			return -1;
		}
		/* The kernel passes "NAME -x" to env as one word, and env
		 * then looks for a program of that name: say so now. */
		if (is_env(interp) && arg[0] != '-' && strpbrk(arg, " \t")) {
			snprintf(err, errlen, "%s: its #! line gives env the "
				 "single word '%s' (the kernel passes one "
				 "argument; #!%s -S %s splits it)", shown, arg,
				 interp, arg);
			return -1;
		}
		/* env NAME: NAME must be in the program's PATH.  Options
		 * (-S, -i, ...) and assignments are env's business. */
		if (is_env(interp) && *arg && arg[0] != '-' &&
		    !strchr(arg, '=')) {
			char found[4096];

			if (strchr(arg, '/') ? access(arg, X_OK) < 0
			    : search_path(arg, path_env, found,
					  sizeof(found)) < 0) {
				snprintf(err, errlen, "%s: its interpreter %s "
					 "is not found%s", shown, arg,
					 strchr(arg, '/') ? "" : " in PATH");
				return -1;
			}
		}
		snprintf(cur, sizeof(cur), "%s", interp);
	}
	snprintf(err, errlen, "%s: more than %d nested #! interpreters",
		 shown, MAX_NESTING);
	return -1;
}
