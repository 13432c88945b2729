#ifndef SC_FILE_TAIL_H
#define SC_FILE_TAIL_H

#include <stddef.h>

/* The last at most maxlines lines of a file (at most len-1 bytes, whole
 * lines, no trailing newline) into buf; "" when empty or unreadable. */
void sc_file_tail(const char *path, unsigned maxlines, char *buf, size_t len);

/* The first at most max bytes of a file, NUL-terminated, to free(); NULL
 * when empty or unreadable (a report's cause is near the start of a run's
 * output: a panic, a sanitizer's report, a test's failure). */
char *sc_file_head(const char *path, size_t max);

/* The length of the line at p (to its '\n' or the end), and where the
 * next one starts (NULL after the last). */
size_t sc_line_len(const char *p);
const char *sc_next_line(const char *p);

#endif
