/*
 * run_describe.h - a failed run's message and location, as launch and
 * replay both report it.
 *
 * The engine's verdict, refined by what the program said about its
 * failure: glibc's assertion line at the end of stderr, a Rust or Go
 * panic (stderr, or a cargo test binary's stdout), a sanitizer's report
 * (stderr), a GoogleTest, Catch2 or doctest failure (stdout).  Each
 * parser leaves msg and loc alone when its output is not there.
 */
#ifndef SCHEDCTL_RUN_DESCRIBE_H
#define SCHEDCTL_RUN_DESCRIBE_H

#include <stddef.h>

#include "tracer.h"

/* stderr_tail: the last lines of the run's stderr; err_path and
 * out_path: its stderr and stdout files. */
void sc_describe_run(const struct sc_run_result *r, const char *stderr_tail,
		     const char *err_path, const char *out_path, char *msg,
		     size_t msglen, char *loc, size_t loclen);

#endif /* SCHEDCTL_RUN_DESCRIBE_H */
