/*
 * server_stdio.h - the standard streams of a job's fork-server runs.
 *
 * A run forked from a fork server (tracer/fork_server.c) has the server's
 * stdin, stdout and stderr: one set of files for the job.  Before each
 * run they are emptied and rewound (the offsets are shared with the run,
 * so that its output starts at 0 as a fresh file's would, and its input
 * is read from the start); after a run whose output is kept they are
 * copied to the run's own files.
 */
#ifndef SCHEDCTL_SERVER_STDIO_H
#define SCHEDCTL_SERVER_STDIO_H

#include <limits.h>
#include <stddef.h>

struct sc_server_stdio {
	int in, out, err;               /* -1 when not open (in: /dev/null) */
	char out_path[PATH_MAX + 32], err_path[PATH_MAX + 32];
};

/* Create the job's output files in dir (hidden, named after the job's
 * pid) and open stdin_path (may be "": /dev/null).  0, or -1 with a
 * reason in why (nothing left open). */
int sc_server_stdio_open(struct sc_server_stdio *s, const char *dir,
			 const char *stdin_path, char *why, size_t len);
/* Empty and rewind the outputs, rewind the input: before a run. */
int sc_server_stdio_reset(struct sc_server_stdio *s);
/* Copy the outputs of the run just ended to out and err. */
int sc_server_stdio_save(const struct sc_server_stdio *s, const char *out,
			 const char *err);
/* Close and remove the job's files. */
void sc_server_stdio_close(struct sc_server_stdio *s);

#endif /* SCHEDCTL_SERVER_STDIO_H */
