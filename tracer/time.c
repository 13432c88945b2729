/* time.c - clocks used by the engine. */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "internal.h"

uint64_t sc_now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

/* Scheduler state letter of a thread ('R' running or runnable, 'S'
 * sleeping, 'D' uninterruptible...), '?' when unknown. */
char sc_thread_state(pid_t pid, pid_t tid)
{
	char path[80], buf[512];

	snprintf(path, sizeof(path), "/proc/%d/task/%d/stat", (int)pid, (int)tid);
	FILE *f = fopen(path, "re");
	if (!f)
		return '?';
	size_t n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = 0;
	/* "tid (comm) S ...": comm may hold spaces and parentheses. */
	char *close = strrchr(buf, ')');
	return close && close[1] == ' ' && close[2] ? close[2] : '?';
}

/* CPU time a thread of another process has used.  Linux refuses
 * per-thread CPU clocks of other processes (posix-cpu-timers lookup_task),
 * so read the first field of /proc/PID/task/TID/schedstat (ns on CPU).
 * Returns 0 when unknown. */
uint64_t sc_thread_cpu_ns(pid_t pid, pid_t tid)
{
	char path[80];
	unsigned long long ns = 0;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/schedstat", (int)pid,
		 (int)tid);
	FILE *f = fopen(path, "re");
	if (!f)
		return 0;
	if (fscanf(f, "%llu", &ns) != 1)
		ns = 0;
	fclose(f);
	return ns;
}
