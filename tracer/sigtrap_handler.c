/* sigtrap_handler.c - let a program's own SIGTRAP handler run among our
 * breakpoints.
 *
 * While a SIGTRAP handler runs, SIGTRAP is blocked (unless SA_NODEFER).
 * A breakpoint of ours hit then (a memory access of the handler at mem
 * granularity) raises a SIGTRAP that the kernel forces through: a
 * blocked one resets the program's disposition to SIG_DFL (kernel
 * force_sig_info_to_task), although we never deliver it.  The program's
 * next SIGTRAP of its own then killed it.  So the program's SIGTRAP is
 * delivered by a single step: the kernel stops the thread at the
 * handler's first instruction, before it runs any, and SIGTRAP is taken
 * out of the handler's mask there.  The mask the handler's frame saved
 * is untouched: sigreturn restores the program's own.
 */
#include <signal.h>
#include <sys/ptrace.h>
#include <sys/wait.h>

#include "internal.h"

bool sc_deliver_own_sigtrap(struct sc_engine *e, struct sc_thread *t)
{
	uint64_t mask;
	int status;

	if (!t->controlled || t->proc->nbps == 0 || sc_regs_flush(t) < 0 ||
	    ptrace(PTRACE_SINGLESTEP, t->tid, 0, (void *)(long)SIGTRAP) < 0)
		return false;
	t->stop = STOP_NONE;
	for (;;) {
		pid_t r = waitpid(t->tid, &status, __WALL);
		if (r < 0)
			return true;    /* gone: its death shows up later */
		if (sc_classify_status(status) == WS_SIGNAL &&
		    WSTOPSIG(status) == SIGTRAP)
			break;  /* at the handler (or past an ignored one) */
		/* Dying (SIG_DFL), or another stop first: the main loop
		 * handles it as usual. */
		sc_engine_defer_status(e, t->tid, status);
		return true;
	}
	if (ptrace(PTRACE_GETSIGMASK, t->tid, sizeof(mask), &mask) == 0) {
		mask &= ~(1ull << (SIGTRAP - 1));
		ptrace(PTRACE_SETSIGMASK, t->tid, sizeof(mask), &mask);
	}
	sc_resume_as_before(t);
	return true;
}
