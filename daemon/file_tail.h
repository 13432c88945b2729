#ifndef SC_FILE_TAIL_H
#define SC_FILE_TAIL_H

#include <stddef.h>

/* The last at most maxlines lines of a file (at most len-1 bytes, whole
 * lines, no trailing newline) into buf; "" when empty or unreadable. */
void sc_file_tail(const char *path, unsigned maxlines, char *buf, size_t len);

#endif
