/* kernel_deadline.c - absolute deadlines that go to the kernel.
 *
 * A program computes an absolute deadline from the clock it reads, which
 * is the run's virtual clock (vclock.c).  Most timed waits are the
 * engine's own (modelled futexes, sleeps, virtual poll timeouts), but
 * some go to the kernel with that deadline: a process-shared futex
 * (sem_timedwait on a named semaphore, a pshared condvar),
 * mq_timedsend and mq_timedreceive, priority-inheritance locks.  The
 * kernel compares it with the real clock, from which the virtual one
 * lags once runs take longer than the session's second per run: the
 * wait timed out at once (QA: named semaphores and message queues with a
 * deadline 2 s away failed 2-3 runs in 8, and traces stopped replaying a
 * few seconds after they were recorded).  Before such a call goes to the
 * kernel, its deadline is moved by the difference between the clocks
 * (the same wait from now on), and the program's bytes are put back at
 * the call's exit (glibc passes the same deadline again when it retries).
 */
#include <linux/futex.h>
#include <sys/syscall.h>
#include <time.h>

#include "internal.h"

/* Where t's syscall keeps an absolute deadline, and on which clock. */
static bool absolute_deadline(const struct sc_thread *t, uint64_t *addr,
			      clockid_t *clock)
{
	switch ((long)t->regs.orig_rax) {
	case SYS_mq_timedsend:
	case SYS_mq_timedreceive:
		*addr = t->regs.r8;
		*clock = CLOCK_REALTIME;
		break;
	case SYS_futex: {
		int op = (int)t->regs.rsi;
		bool realtime = op & FUTEX_CLOCK_REALTIME;
		switch (op & FUTEX_CMD_MASK) {
		case FUTEX_WAIT_BITSET:
		case FUTEX_WAIT_REQUEUE_PI:
		case FUTEX_LOCK_PI2:
			*clock = realtime ? CLOCK_REALTIME : CLOCK_MONOTONIC;
			break;
		case FUTEX_LOCK_PI:
			*clock = CLOCK_REALTIME;
			break;
		default:
			return false;   /* FUTEX_WAIT's timeout is relative */
		}
		*addr = t->regs.r10;
		break;
	}
	default:
		return false;
	}
	return *addr != 0;
}

/* Write ns as a struct timespec at addr in t's process. */
static int write_timespec(struct sc_thread *t, uint64_t addr, uint64_t ns)
{
	struct timespec ts = { .tv_sec = (time_t)(ns / 1000000000u),
			       .tv_nsec = (long)(ns % 1000000000u) };

	return sc_mem_write(t->proc, addr, &ts, sizeof(ts));
}

void sc_kernel_deadline_to_real(struct sc_engine *e, struct sc_thread *t)
{
	struct timespec real_now;
	uint64_t addr, at, virtual_now, real_at;
	clockid_t clock;

	t->deadline_addr = 0;
	if (!e->cfg->vclock || e->attached || !t->proc ||
	    !absolute_deadline(t, &addr, &clock) ||
	    !sc_vclock_clock_now_ns(e, clock, &virtual_now) ||
	    !sc_read_timespec_ns(t->proc, addr, &at) ||
	    at >= SC_TIMESPEC_MAX_NS || clock_gettime(clock, &real_now) < 0)
		return;
	real_at = (uint64_t)real_now.tv_sec * 1000000000u +
		  (uint64_t)real_now.tv_nsec;
	if (at > virtual_now)
		real_at += at - virtual_now;
	if (write_timespec(t, addr, real_at) < 0)
		return;
	t->deadline_addr = addr;
	t->deadline_orig_ns = at;
}

void sc_kernel_deadline_restore(struct sc_thread *t)
{
	if (!t->deadline_addr)
		return;
	write_timespec(t, t->deadline_addr, t->deadline_orig_ns);
	t->deadline_addr = 0;
}
