/* strf.h - snprintf for messages where cutting a long path short is the
 * intended behaviour (and the compiler's truncation warning is not). */
#ifndef SCHEDCTL_STRF_H
#define SCHEDCTL_STRF_H

#include <stddef.h>

/* Format into buf (always NUL-terminated when len > 0); returns buf. */
char *sc_strf(char *buf, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#endif /* SCHEDCTL_STRF_H */
