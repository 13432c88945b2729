/*
 * assert_parse.h - turn a failed run into a bug message and location.
 *
 * The engine says "SIGABRT"; the program itself said why on stderr just
 * before: glibc's assert() prints
 *     prog: buggy.c:21: main: Assertion `x == 2' failed.
 * That line becomes the message and "buggy.c:21 (main)" the location.
 * GLib's g_assert() and g_assert_cmp*() (and g_test's "Bail out!") print
 *     ERROR:pool.c:27:main: assertion failed (total == 10): (9 == 10)
 * which is read the same way.
 */
#ifndef SCHEDCTL_ASSERT_PARSE_H
#define SCHEDCTL_ASSERT_PARSE_H

#include <stdbool.h>
#include <stddef.h>

#include "file_tail.h"
#include "tracer.h"

/* If line is a glibc assertion message, write "file:line (func)" (or
 * "file:line" without a function) to loc and return true. */
bool sc_parse_assert(const char *line, char *loc, size_t loclen);
/* The same for a GLib assertion line. */
bool sc_parse_glib_assert(const char *line, char *loc, size_t loclen);

/* Message and location of a failed run: the engine's, refined by the
 * program's own assertion line in stderr_tail when there is one. */
void sc_bug_describe(const struct sc_run_result *r, const char *stderr_tail,
		     char *msg, size_t msglen, char *loc, size_t loclen);

#endif /* SCHEDCTL_ASSERT_PARSE_H */
