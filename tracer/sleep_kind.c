/* sleep_kind.c - is a thread asleep in the kernel for good?
 *
 * A timed wait of ours times out when nothing else can run (virtual
 * time).  A thread asleep in the kernel can come back by itself only
 * when its call has a timeout of its own (a poll of an event loop, a
 * sigtimedwait): then the timed wait waits for it, as real time would
 * order them.  Without one (sigwait(), a read of a pipe nobody writes,
 * wait4) nothing but the stopped threads could wake it.
 */
#include <errno.h>
#include <stdio.h>
#include <stdint.h>
#include <sys/select.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <time.h>

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

/* The timeout of the syscall t is about to make (registers at its
 * entry), in microseconds (at least 1), when it is a poll, select,
 * epoll_wait or sigtimedwait that a timeout above zero can end; else 0
 * (none, or zero: it only looks). */
uint64_t sc_syscall_timeout_us(struct sc_thread *t)
{
	const struct user_regs_struct *r = &t->regs;
	long nr = (long)r->orig_rax;
	uint64_t at = 0, us;
	struct timespec ts;
	struct timeval tv;

	switch (nr) {
	case SYS_poll:
		return (int)r->rdx > 0 ? (uint64_t)(int)r->rdx * 1000u : 0;
	case SYS_epoll_wait:
	case SYS_epoll_pwait:
		return (int)r->r10 > 0 ? (uint64_t)(int)r->r10 * 1000u : 0;
	case SYS_select:
		if (!r->r8 || sc_mem_read(t->proc, r->r8, &tv, sizeof(tv)) < 0 ||
		    tv.tv_sec < 0 || tv.tv_usec < 0)
			return 0;
		us = (uint64_t)tv.tv_sec * 1000000u + (uint64_t)tv.tv_usec;
		return us;
	case SYS_ppoll:
	case SYS_rt_sigtimedwait:
		at = r->rdx;
		break;
	case SYS_pselect6:
		at = r->r8;
		break;
	case SYS_epoll_pwait2:
		at = r->r10;
		break;
	default:
		return 0;
	}
	if (!at || sc_mem_read(t->proc, at, &ts, sizeof(ts)) < 0 ||
	    ts.tv_sec < 0 || ts.tv_nsec < 0)
		return 0;
	us = (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
	return us ? us : (ts.tv_nsec ? 1 : 0);
}

/* Make the syscall at t's entry wait without a timeout (registers
 * only: -1 ms, or a null timeout pointer; the program's struct is not
 * touched). */
void sc_syscall_untime(struct sc_thread *t)
{
	struct user_regs_struct *r = &t->regs;

	switch ((long)r->orig_rax) {
	case SYS_poll:
		r->rdx = (unsigned long long)-1;
		break;
	case SYS_epoll_wait:
	case SYS_epoll_pwait:
		r->r10 = (unsigned long long)-1;
		break;
	case SYS_select:
	case SYS_pselect6:
		r->r8 = 0;
		break;
	case SYS_ppoll:
	case SYS_rt_sigtimedwait:
		r->rdx = 0;
		break;
	case SYS_epoll_pwait2:
		r->r10 = 0;
		break;
	default:
		return;
	}
	t->regs_dirty = true;
}

/* Interrupted where its (virtual) timeout was due: give the syscall
 * the result of that timeout (registers at its exit).  A result of its
 * own (a descriptor got ready first) is kept.  select's sets are
 * emptied as a timeout empties them. */
void sc_syscall_time_out(struct sc_thread *t)
{
	struct user_regs_struct *r = &t->regs;
	long nr = (long)r->orig_rax;

	if ((long)r->rax != -EINTR && !sc_is_restart(r))
		return;
	if (nr == SYS_select || nr == SYS_pselect6) {
		size_t bytes = ((size_t)(int)r->rdi + 63) / 64 * 8;
		static const uint8_t zeros[FD_SETSIZE / 8];
		const unsigned long long sets[3] = { r->rsi, r->rdx, r->r10 };
		for (int i = 0; i < 3 && bytes <= sizeof(zeros); i++)
			if (sets[i])
				sc_mem_write(t->proc, sets[i], zeros, bytes);
	}
	r->rax = nr == SYS_rt_sigtimedwait ? (unsigned long long)-EAGAIN : 0;
	t->regs_dirty = true;
}

/* Did the syscall t just returned from (registers at its exit) end by
 * its own timeout: a poll, select or epoll_wait that found nothing (0),
 * a sigtimedwait that got no signal (EAGAIN)?  Not a sleep (those are
 * events of their own) and not a futex (modelled). */
bool sc_syscall_timed_out(const struct user_regs_struct *r)
{
	const unsigned long long a[6] = { r->rdi, r->rsi, r->rdx, r->r10,
					  r->r8, r->r9 };
	long nr = (long)r->orig_rax, ret = (long)r->rax;

	switch (nr) {
	case SYS_poll: case SYS_ppoll: case SYS_select: case SYS_pselect6:
	case SYS_epoll_wait: case SYS_epoll_pwait: case SYS_epoll_pwait2:
		return ret == 0 && has_timeout(nr, a);
	case SYS_rt_sigtimedwait:
		return ret == -EAGAIN && has_timeout(nr, a);
	default:
		return false;
	}
}
