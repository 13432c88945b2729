/*
 * panic_parse.h - the message and location of a Rust or Go panic.
 *
 * A panicking Rust program exits with status 101 after printing
 *     thread 'main' panicked at 'MESSAGE', src/main.rs:14:27     (< 1.73)
 *     thread 'main' panicked at src/main.rs:14:27:\nMESSAGE      (>= 1.73)
 * and, with RUST_BACKTRACE=1, a backtrace after it, so the line is not in
 * the tail of stderr: the first panic of the file is the cause (a worker's
 * panic comes before main's unwrap of its join).
 */
#ifndef SCHEDCTL_PANIC_PARSE_H
#define SCHEDCTL_PANIC_PARSE_H

#include <stdbool.h>
#include <stddef.h>

#include "tracer.h"

/* If the text at line (its first line, then the lines after it) starts
 * with a panic, write "MESSAGE (thread 'NAME')" to msg and
 * "FILE:LINE:COL" to loc.  A message over several lines (assert_eq!) is
 * joined into one, its newlines and indentation one space each. */
bool sc_parse_panic(const char *line, char *msg, size_t msglen, char *loc,
		    size_t loclen);

/* If text (a Go program's stderr) holds a "panic: " or "fatal error: "
 * line, write it and its goroutine to msg ("panic: boom (goroutine 6)")
 * and the panicking goroutine's innermost FILE:LINE to loc ("" when the
 * trace is missing). */
bool sc_parse_go_panic(const char *text, char *msg, size_t msglen,
		       char *loc, size_t loclen);
/* For a run that exited with status 101 (Rust) or 2 (Go): replace msg
 * and loc with the first panic found in the first 64 KiB of the stderr
 * file at path, or for Rust, when there is none, in the last 64 KiB of
 * the stdout file at out_path (may be NULL), where a cargo test binary
 * prints the output it captured of its failed tests.  Leaves them alone
 * otherwise. */
void sc_describe_panic(const struct sc_run_result *r, const char *path,
		       const char *out_path, char *msg, size_t msglen,
		       char *loc, size_t loclen);

#endif /* SCHEDCTL_PANIC_PARSE_H */
