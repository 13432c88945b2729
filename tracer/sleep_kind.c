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

/* Where each timed call keeps its timeout (as in syscalls(2)): the
 * argument's index, and what it holds.  The one table for all the
 * questions below, so that they cannot disagree. */
enum timeout_form {
	TIMEOUT_MS,             /* an int of milliseconds, -1: none */
	TIMEOUT_TIMESPEC,       /* a struct timespec pointer, NULL: none */
	TIMEOUT_TIMEVAL,        /* a struct timeval pointer, NULL: none */
	TIMEOUT_ALWAYS,         /* a sleep: it always ends */
};

struct timeout_arg {
	long nr;
	uint8_t arg;
	uint8_t form;
};

static const struct timeout_arg timeout_args[] = {
	{ SYS_poll, 2, TIMEOUT_MS },
	{ SYS_epoll_wait, 3, TIMEOUT_MS },
	{ SYS_epoll_pwait, 3, TIMEOUT_MS },
	{ SYS_epoll_pwait2, 3, TIMEOUT_TIMESPEC },
	{ SYS_ppoll, 2, TIMEOUT_TIMESPEC },
	{ SYS_rt_sigtimedwait, 2, TIMEOUT_TIMESPEC },
	{ SYS_pselect6, 4, TIMEOUT_TIMESPEC },
	{ SYS_select, 4, TIMEOUT_TIMEVAL },
	{ SYS_futex, 3, TIMEOUT_TIMESPEC },
	{ SYS_nanosleep, 0, TIMEOUT_ALWAYS },
	{ SYS_clock_nanosleep, 0, TIMEOUT_ALWAYS },
};

static const struct timeout_arg *timeout_arg_of(long nr)
{
	for (size_t i = 0; i < sizeof(timeout_args) / sizeof(*timeout_args);
	     i++)
		if (timeout_args[i].nr == nr)
			return &timeout_args[i];
	return NULL;
}

/* The register that holds syscall argument i (x86-64: rdi, rsi, rdx,
 * r10, r8, r9). */
static unsigned long long *arg_reg(struct user_regs_struct *r, unsigned i)
{
	unsigned long long *const regs[6] = { &r->rdi, &r->rsi, &r->rdx,
					      &r->r10, &r->r8, &r->r9 };
	return regs[i < 6 ? i : 5];
}

/* Does syscall nr with arguments a[] end by itself after a while? */
static bool has_timeout(long nr, const unsigned long long a[6])
{
	const struct timeout_arg *ta = timeout_arg_of(nr);

	if (!ta)
		return false;
	switch (ta->form) {
	case TIMEOUT_MS:
		return (int)a[ta->arg] >= 0;
	case TIMEOUT_ALWAYS:
		return true;
	default:
		return a[ta->arg] != 0;
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

bool sc_read_timespec_ns(struct sc_process *p, uint64_t addr, uint64_t *ns)
{
	struct timespec ts;

	if (!addr || sc_mem_read(p, addr, &ts, sizeof(ts)) < 0 ||
	    ts.tv_sec < 0 || ts.tv_nsec < 0 || ts.tv_nsec >= 1000000000L)
		return false;
	if ((uint64_t)ts.tv_sec >= SC_TIMESPEC_MAX_NS / 1000000000u)
		*ns = SC_TIMESPEC_MAX_NS;
	else
		*ns = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
	return true;
}

/* The timeout of the syscall t is about to make (registers at its
 * entry), in microseconds (at least 1), when it is a poll, select,
 * epoll_wait or sigtimedwait that a timeout above zero can end; else 0
 * (none, or zero: it only looks). */
uint64_t sc_syscall_timeout_us(struct sc_thread *t)
{
	long nr = (long)t->regs.orig_rax;
	const struct timeout_arg *ta = timeout_arg_of(nr);
	uint64_t at, ns;
	struct timeval tv;

	/* Futexes are modelled and sleeps are events of their own. */
	if (!ta || nr == SYS_futex || ta->form == TIMEOUT_ALWAYS)
		return 0;
	at = *arg_reg(&t->regs, ta->arg);
	switch (ta->form) {
	case TIMEOUT_MS:
		return (int)at > 0 ? (uint64_t)(int)at * 1000u : 0;
	case TIMEOUT_TIMEVAL:
		if (!at || sc_mem_read(t->proc, at, &tv, sizeof(tv)) < 0 ||
		    tv.tv_sec < 0 || tv.tv_usec < 0)
			return 0;
		return (uint64_t)tv.tv_sec * 1000000u + (uint64_t)tv.tv_usec;
	default:
		if (!sc_read_timespec_ns(t->proc, at, &ns) || !ns)
			return 0;
		return ns >= 1000u ? ns / 1000u : 1;
	}
}

/* Make the syscall at t's entry wait without a timeout (registers
 * only: -1 ms, or a null timeout pointer; the program's struct is not
 * touched). */
void sc_syscall_untime(struct sc_thread *t)
{
	long nr = (long)t->regs.orig_rax;
	const struct timeout_arg *ta = timeout_arg_of(nr);

	if (!ta || nr == SYS_futex || ta->form == TIMEOUT_ALWAYS)
		return;
	*arg_reg(&t->regs, ta->arg) =
		ta->form == TIMEOUT_MS ? (unsigned long long)-1 : 0;
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
