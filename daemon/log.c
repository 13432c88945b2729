/* log.c - timestamped log lines on stderr. */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

#include "log.h"

void sc_log(const char *fmt, ...)
{
	char stamp[32], line[1024];
	time_t now = time(NULL);
	struct tm tm;
	va_list ap;

	localtime_r(&now, &tm);
	strftime(stamp, sizeof(stamp), "%Y-%m-%d %H:%M:%S", &tm);
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	/* One fprintf per line so that workers' lines do not interleave. */
	fprintf(stderr, "%s schedctld[%d]: %s\n", stamp, (int)getpid(), line);
	fflush(stderr);
}
