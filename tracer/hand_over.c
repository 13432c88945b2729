/* hand_over.c - end a run at its failure with the process kept, stopped,
 * for a debugger (schedctl replay --gdb / --stop-at).
 *
 * At the failure every thread is in a ptrace stop (or a released syscall,
 * which sc_detach_everything interrupts): the breakpoints come out, the
 * modelled futex waits are given back to the kernel, a SIGSTOP is queued
 * for the process, and every thread is detached where it stands.  The
 * SIGSTOP then stops the whole process, so the debugger that attaches
 * sees each thread at its place of the failing schedule.  A fatal signal
 * is not delivered: the faulting thread is left before its instruction
 * (or inside raise() for an assert), and runs into it again when the
 * debugger continues it.
 */
#include <signal.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "internal.h"

/* End the run with t, the thread that failed, kept where it stands. */
static void hold_failing(struct sc_engine *e, struct sc_thread *t)
{
	e->res->stopped_tid = t->tid;
	t->held = true;
	t->state = TH_READY;
	if (e->running == t)
		e->running = NULL;
	e->hand_over_now = true;
	e->finished = true;
}

bool sc_hand_over_at_fault(struct sc_engine *e, struct sc_thread *t)
{
	if (!e->cfg->hand_over || !e->fault_seen || e->hand_over_now)
		return false;
	/* The verdict is the signal's, as if it had been delivered. */
	e->main_status = e->fault_signal;
	sc_verdict_from_status(e);
	t->pending_signal = 0;
	hold_failing(e, t);
	return true;
}

/* The main process is about to exit with a non-zero status (verdict
 * exit): keep it for the debugger at its exit_group, which runs when the
 * debugger lets it go on (the syscall is skipped now, and the thread is
 * put back on its syscall instruction with the number in rax). */
void sc_hand_over_at_exit(struct sc_engine *e, struct sc_thread *t)
{
	e->main_status = W_EXITCODE((int)t->regs.rdi & 0xff, 0);
	sc_verdict_from_status(e);
	t->regs.orig_rax = (unsigned long long)-1;
	t->regs.rax = SYS_exit_group;
	t->regs.rip -= 2;               /* the syscall instruction */
	t->regs_dirty = true;
	sc_regs_flush(t);
	hold_failing(e, t);
}

/* The process the debugger wants: the failing thread's, or at a
 * deadlock the program a script started (--follow-forks), not the shell
 * that waits for it. */
static pid_t failing_process(struct sc_engine *e)
{
	struct sc_thread *t = e->res->stopped_tid
			      ? sc_thread_by_tid(e, e->res->stopped_tid) : NULL;

	if (t)
		return t->proc->pid;
	for (size_t i = 0; i < e->nprocs; i++) {
		struct sc_process *p = e->procs[i];
		if (p != e->main_proc && p->controlled && p->runs_other_program &&
		    sc_process_has_threads(e, p))
			return p->pid;
	}
	return e->main_pid;
}

void sc_hand_over(struct sc_engine *e)
{
	if (e->main_done || e->main_pid <= 0)
		return;
	/* Only that process stops: a script waiting for it goes on when
	 * the caller kills it after the debugger. */
	pid_t pid = failing_process(e);
	kill(pid, SIGSTOP);
	sc_detach_everything(e);
	e->res->stopped_pid = pid;
}
