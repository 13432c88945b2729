/* regs.c - register access and resuming a stopped thread.
 *
 * ESRCH is normal everywhere here: the thread may have been killed (by
 * exit_group in another thread, or by us) while we looked at it; its
 * death arrives through waitpid as usual (strace's ptrace_restart rule).
 */
#include <errno.h>
#include <stddef.h>
#include <sys/ptrace.h>

#include "internal.h"

/* Registers changed by more than this are written all at once. */
#define POKE_MAX 3

int sc_regs_fetch(struct sc_thread *t)
{
	t->regs_dirty = false;
	if (ptrace(PTRACE_GETREGS, t->tid, 0, &t->regs) < 0)
		return -1;
	t->regs_read = t->regs;
	return 0;
}

/* Write back the registers that differ from those fetched: most stops
 * change one or two (rip after an emulated instruction, orig_rax and rax
 * for a skipped syscall), and PTRACE_SETREGS writes all 27 through the
 * kernel's checks of each: a tenth of the supervisor's time per
 * scheduling point at sync granularity, more than its stop's GETREGS. */
int sc_regs_flush(struct sc_thread *t)
{
	const unsigned long long *now = (const unsigned long long *)&t->regs;
	const unsigned long long *was = (const unsigned long long *)&t->regs_read;
	const size_t nregs = sizeof(t->regs) / sizeof(*now);
	size_t changed[POKE_MAX], n = 0;

	if (!t->regs_dirty)
		return 0;
	t->regs_dirty = false;
	for (size_t i = 0; i < nregs && n <= POKE_MAX; i++)
		if (now[i] != was[i]) {
			if (n < POKE_MAX)
				changed[n] = i;
			n++;
		}
	if (n > POKE_MAX) {
		if (ptrace(PTRACE_SETREGS, t->tid, 0, &t->regs) < 0)
			return errno == ESRCH ? 0 : -1;
	} else {
		for (size_t k = 0; k < n; k++)
			if (ptrace(PTRACE_POKEUSER, t->tid,
				   (void *)(offsetof(struct user, regs) +
					    changed[k] * sizeof(*now)),
				   (void *)now[changed[k]]) < 0)
				return errno == ESRCH ? 0 : -1;
	}
	t->regs_read = t->regs;
	return 0;
}

/* Resume with request (PTRACE_CONT or PTRACE_SYSCALL), applying a pending
 * syscall skip and delivering a pending signal. */
/* Resume t the way it was going: a thread released into a syscall stops
 * again at its return, any other runs on. */
int sc_resume_as_before(struct sc_thread *t)
{
	return sc_resume(t, t->released ? PTRACE_SYSCALL : PTRACE_CONT);
}

int sc_resume(struct sc_thread *t, int request)
{
	if (t->held)
		return 0;
	if (t->skip_syscall) {
		/* orig_rax = -1 makes the kernel skip the syscall after the
		 * seccomp stop; rax is what the caller sees. */
		t->regs.orig_rax = (unsigned long long)-1;
		t->regs.rax = (unsigned long long)t->skip_ret;
		t->regs_dirty = true;
		t->skip_syscall = false;
	}
	if (sc_regs_flush(t) < 0)
		return -1;
	/* Attached processes have no seccomp filter: syscall stops are how
	 * their scheduling points are seen. */
	if (request == PTRACE_CONT && t->proc->syscall_stops && t->controlled)
		request = PTRACE_SYSCALL;
	int sig = t->pending_signal;
	t->pending_signal = 0;
	t->stop = STOP_NONE;
	if (ptrace(request, t->tid, 0, (void *)(long)sig) < 0 && errno != ESRCH)
		return -1;
	return 0;
}
