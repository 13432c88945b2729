#ifndef SC_FILE_TAIL_H
#define SC_FILE_TAIL_H

#include <stdbool.h>
#include <stddef.h>

/* The last at most maxlines lines of a file (at most len-1 bytes, whole
 * lines, no trailing newline) into buf; "" when empty or unreadable. */
void sc_file_tail(const char *path, unsigned maxlines, char *buf, size_t len);

/* The first at most max bytes of a file, NUL-terminated, to free(); NULL
 * when empty or unreadable (a report's cause is near the start of a run's
 * output: a panic, a sanitizer's report, a test's failure). */
char *sc_file_head(const char *path, size_t max);

/* How much of a run's output the report parsers read. */
#define SC_REPORT_HEAD_BYTES (64 * 1024)

/* A parser of a run's output: true when text holds what it looks for,
 * with the message in msg and the location (or "") in loc. */
typedef bool (*sc_report_parser)(const char *text, char *msg, size_t msglen,
				 char *loc, size_t loclen);

/* Parse the head of the output file path: when parse finds its report,
 * msg becomes its message and loc its location, if it has one. */
void sc_describe_from_head(const char *path, sc_report_parser parse,
			   char *msg, size_t msglen, char *loc, size_t loclen);

/* Is text[0..end) "FILE:LINE" (a file name of at least one character, a
 * colon, digits), as test frameworks begin a failure's line? */
bool sc_is_file_line(const char *text, size_t end);

/* The length of the line at p (to its '\n' or the end), and where the
 * next one starts (NULL after the last). */
size_t sc_line_len(const char *p);
const char *sc_next_line(const char *p);

#endif
