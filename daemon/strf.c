/* strf.c - truncating formatting (strf.h). */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>

#include "strf.h"

char *sc_strf(char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, len, fmt, ap);
	va_end(ap);
	return buf;
}
