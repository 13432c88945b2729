/* debug_stopped.c - replay --gdb / --stop-at: the daemon has left the
 * replayed process stopped at the failure and detached from it; run gdb
 * on it, or tell the user how to, and return when they are done (the
 * caller then closes the connection, and the daemon kills the process).
 */
#include "config.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"
#include "tracer.h"

/* gdb attaches with the process's main thread selected; the failing one
 * is selected by its kernel id through gdb's Python API (Debian's gdb
 * has it; without, gdb prints an error and goes on). */
static int run_gdb(int pid, int tid, bool json, int argc, char **argv)
{
	char pidstr[16], select[160];
	char **args = calloc((size_t)argc + 6, sizeof(*args));
	struct sigaction ign = { .sa_handler = SIG_IGN }, old_int;
	int status = 0;

	if (!args) {
		cli_error("out of memory");
		return -1;
	}
	snprintf(pidstr, sizeof(pidstr), "%d", pid);
	args[0] = "gdb";
	args[1] = "-p";
	args[2] = pidstr;
	int n = 3;
	if (tid > 0 && tid != pid) {
		snprintf(select, sizeof(select),
			 "python [t.switch() for t in gdb.selected_inferior()"
			 ".threads() if t.ptid[1] == %d]", tid);
		args[n++] = "-ex";
		args[n++] = select;
	}
	for (int i = 0; i < argc; i++)
		args[n + i] = argv[i];
	fflush(stdout);
	fflush(stderr);
	/* Ctrl-C belongs to gdb while it runs. */
	sigaction(SIGINT, &ign, &old_int);
	pid_t child = fork();
	if (child == 0) {
		signal(SIGINT, SIG_DFL);
		/* With --json, standard output is one JSON object. */
		if (json && dup2(STDERR_FILENO, STDOUT_FILENO) < 0)
			_exit(127);
		execvp("gdb", args);
		fprintf(stderr, "schedctl: gdb: %s\n", strerror(errno));
		_exit(127);
	}
	free(args);
	if (child < 0) {
		sigaction(SIGINT, &old_int, NULL);
		cli_error("fork: %s", strerror(errno));
		return -1;
	}
	while (waitpid(child, &status, 0) < 0 && errno == EINTR)
		;
	sigaction(SIGINT, &old_int, NULL);
	return 0;
}

int cli_debug_stopped(int pid, int tid, bool gdb, bool json, int gdb_argc,
		      char **gdb_argv)
{
	cli_error("process %d is stopped at that point, every thread "
		  "detached; attach with: gdb -p %d", pid, pid);
	char path[4096], why[512];
	/* Found through PATH as execvp will find it. */
	if (gdb && sc_check_program("gdb", path, sizeof(path), why,
				    sizeof(why)) == 0)
		return run_gdb(pid, tid, json, gdb_argc, gdb_argv);
	if (gdb)
		cli_error("%s (Debian: apt-get install gdb)", why);
	cli_error("press Enter to end the replay (the process is killed then)");
	char line[64];
	(void)!fgets(line, sizeof(line), stdin);
	return 0;
}
