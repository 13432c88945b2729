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

static uint64_t ts_ns(const struct timespec *ts)
{
	return (uint64_t)ts->tv_sec * 1000000000u + (uint64_t)ts->tv_nsec;
}

void sc_kernel_deadline_to_real(struct sc_engine *e, struct sc_thread *t)
{
	struct timespec ts, real_now, moved;
	uint64_t addr, virtual_now, real_at;
	clockid_t clock;

	t->deadline_addr = 0;
	if (!e->cfg->vclock || e->attached || !t->proc ||
	    !absolute_deadline(t, &addr, &clock) ||
	    !sc_vclock_clock_now_ns(e, clock, &virtual_now) ||
	    sc_mem_read(t->proc, addr, &ts, sizeof(ts)) < 0 ||
	    ts.tv_sec < 0 || ts.tv_nsec < 0 || ts.tv_nsec >= 1000000000L ||
	    (uint64_t)ts.tv_sec > UINT64_MAX / 1000000000u / 2 ||
	    clock_gettime(clock, &real_now) < 0)
		return;
	real_at = ts_ns(&real_now);
	if (ts_ns(&ts) > virtual_now)
		real_at += ts_ns(&ts) - virtual_now;
	moved.tv_sec = (time_t)(real_at / 1000000000u);
	moved.tv_nsec = (long)(real_at % 1000000000u);
	if (sc_mem_write(t->proc, addr, &moved, sizeof(moved)) < 0)
		return;
	t->deadline_addr = addr;
	t->deadline_orig = ts;
}

void sc_kernel_deadline_restore(struct sc_thread *t)
{
	if (!t->deadline_addr)
		return;
	sc_mem_write(t->proc, t->deadline_addr, &t->deadline_orig,
		     sizeof(t->deadline_orig));
	t->deadline_addr = 0;
}
