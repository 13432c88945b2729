/* sleep_kind.c - is a thread asleep in the kernel for good?
 *
 * A timed wait of ours times out when nothing else can run (virtual
 * time).  A thread asleep in the kernel can come back by itself only
 * when its call has a timeout of its own (a poll of an event loop, a
 * sigtimedwait): then the timed wait waits for it, as real time would
 * order them.  Without one (sigwait(), a read of a pipe nobody writes,
 * wait4) nothing but the stopped threads could wake it.
 */
#include <stdio.h>
#include <sys/syscall.h>

#include "internal.h"

/* Does syscall nr with arguments a[] end by itself after a while?  (The
 * timeout's place in each call's arguments, as in syscalls(2).) */
static bool has_timeout(long nr, const unsigned long long a[6])
{
	switch (nr) {
	case SYS_poll:
		return (int)a[2] >= 0;
	case SYS_epoll_wait:
	case SYS_epoll_pwait:
		return (int)a[3] >= 0;
	case SYS_epoll_pwait2:
	case SYS_futex:
		return a[3] != 0;
	case SYS_ppoll:
	case SYS_rt_sigtimedwait:
		return a[2] != 0;
	case SYS_select:
	case SYS_pselect6:
		return a[4] != 0;
	case SYS_nanosleep:
	case SYS_clock_nanosleep:
		return true;
	default:
		return false;
	}
}

bool sc_asleep_for_good(pid_t pid, pid_t tid)
{
	char path[80];
	unsigned long long a[6];
	long nr;

	if (sc_thread_state(pid, tid) != 'S')
		return false;
	snprintf(path, sizeof(path), "/proc/%d/task/%d/syscall", (int)pid,
		 (int)tid);
	FILE *f = fopen(path, "re");
	if (!f)
		return false;
	int got = fscanf(f, "%ld %llx %llx %llx %llx %llx %llx", &nr, &a[0],
			 &a[1], &a[2], &a[3], &a[4], &a[5]);
	fclose(f);
	/* "running", or "-1 sp pc" outside a syscall: not asleep in one. */
	return got == 7 && nr >= 0 && !has_timeout(nr, a);
}
