/*
 * sanitizer_report.h - the message and location of a sanitizer's report.
 *
 * A program built with AddressSanitizer, ThreadSanitizer or
 * UndefinedBehaviorSanitizer that finds a bug prints a report and exits
 * non-zero (or aborts); the report's first lines say what and where:
 *     ==123==ERROR: AddressSanitizer: heap-use-after-free on address ...
 *     WRITE of size 4 at 0x602000000010 thread T0
 *         #0 0x555555555367 in main /src/prog.c:6
 *     WARNING: ThreadSanitizer: data race (pid=123)
 *       Write of size 4 at 0x... by thread T1:
 *         #0 worker /src/prog.c:12:7 (prog+0x1234)
 *     /src/prog.c:9:5: runtime error: signed integer overflow: ...
 * but they are followed by pages of detail, so the tail of stderr does not
 * show them.  The first report of the file is the cause.
 */
#ifndef SCHEDCTL_SANITIZER_REPORT_H
#define SCHEDCTL_SANITIZER_REPORT_H

#include <stdbool.h>
#include <stddef.h>

#include "tracer.h"

/* Find the first sanitizer report in text (NUL-terminated): write
 * "AddressSanitizer: heap-use-after-free on address 0x... (WRITE of size
 * 4 by thread T0)" to msg and "prog.c:6 (main)" to loc (the first frame
 * with a source line, else the first frame). */
bool sc_parse_sanitizer(const char *text, char *msg, size_t msglen,
			char *loc, size_t loclen);

/* For a run that exited non-zero or aborted: replace msg and loc with
 * the first sanitizer report in the first 64 KiB of the stderr file at
 * path.  Leaves them alone otherwise. */
void sc_describe_sanitizer(const struct sc_run_result *r, const char *path,
			   char *msg, size_t msglen, char *loc, size_t loclen);

#endif /* SCHEDCTL_SANITIZER_REPORT_H */
