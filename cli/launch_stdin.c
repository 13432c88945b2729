/*
 * launch_stdin.c - which input the launched program gets.
 *
 * The program reads what it would read natively: --stdin FILE, else our
 * own standard input, unless that is a terminal (a run cannot be
 * reproduced from keystrokes, and the daemon could not wait for them) or
 * /dev/null.  We pass a descriptor, not a path: the daemon may have been
 * started elsewhere and a pipe has no path.  The daemon reads it to its
 * end into the session directory (stdin_file.h), so every run and replay
 * gets the same bytes.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"

static bool is_dev_null(const struct stat *st)
{
	struct stat null;

	return S_ISCHR(st->st_mode) && stat("/dev/null", &null) == 0 &&
	       S_ISCHR(null.st_mode) && st->st_rdev == null.st_rdev;
}

int cli_launch_stdin(const char *file, int *fd)
{
	struct stat st;
	int in = STDIN_FILENO;

	*fd = -1;
	if (file && strcmp(file, "-") != 0) {
		in = open(file, O_RDONLY | O_CLOEXEC);
		if (in < 0) {
			cli_error("--stdin %s: %s", file, strerror(errno));
			return EXIT_FAIL;
		}
	}
	if (fstat(in, &st) < 0) {
		/* Our stdin is closed: the program's is /dev/null. */
		if (in != STDIN_FILENO)
			close(in);
		return 0;
	}
	if (S_ISDIR(st.st_mode) || isatty(in)) {
		if (in != STDIN_FILENO)
			close(in);
		if (!file)
			return 0;       /* a terminal: /dev/null, as documented */
		/* A file that cannot be the input, like one that cannot be
		 * opened: the same exit status. */
		cli_error("--stdin %s: %s", file, S_ISDIR(st.st_mode)
			  ? "is a directory" : "is a terminal");
		return EXIT_FAIL;
	}
	if (is_dev_null(&st)) {
		if (in != STDIN_FILENO)
			close(in);
		return 0;
	}
	*fd = in;
	return 0;
}
