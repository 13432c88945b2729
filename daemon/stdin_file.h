/*
 * stdin_file.h - the program's standard input of a session.
 *
 * A launch's input (the CLI's stdin, or --stdin FILE, passed as a
 * descriptor) is read once into the session directory, so that every
 * run, in any job, and every later replay reads the very same bytes from
 * the start, whatever happens to the user's file or pipe afterwards.
 */
#ifndef SCHEDCTL_STDIN_FILE_H
#define SCHEDCTL_STDIN_FILE_H

#include <stddef.h>
#include <stdint.h>

/* The file name in the session directory, as traces record it. */
#define SC_STDIN_NAME "stdin"
/* Larger inputs are refused: each session keeps a copy. */
#define SC_STDIN_MAX ((uint64_t)256 << 20)

/* Read from to its end into a new file path (mode 0600; the access and
 * modification times of from when it is a regular file).  Returns 0 with
 * *size set, or -1 with a one-line reason in err (the file removed).
 * cancel_fd (-1: none): the client's connection; its hang-up (Ctrl-C
 * half-closes it) ends the copy as interrupted. */
int sc_stdin_copy(int from, int cancel_fd, const char *path, uint64_t *size,
		  char *err, size_t errlen);

/* Where a trace's recorded input is: recorded as is when absolute, else
 * relative to the directory of trace_path.  Writes an absolute path. */
void sc_stdin_resolve(const char *recorded, const char *trace_path,
		      char *buf, size_t len);

/* Open the recorded input of a trace for reading and check its size.
 * Returns the descriptor (close-on-exec), or -1 with a reason in err. */
int sc_stdin_open(const char *path, uint64_t size, char *err, size_t errlen);

#endif /* SCHEDCTL_STDIN_FILE_H */
