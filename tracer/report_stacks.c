/* report_stacks.c - the stacks a deadlock or hang report shows.
 *
 * A deadlock is about the blocked threads: each one's stack says which
 * lock it waits for and who called it.  A hang is about every thread, the
 * one that was running (often the spinning culprit) first.  Threads
 * inside a released syscall are not in a ptrace stop and are left out.
 */
#include <errno.h>
#include <signal.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <unistd.h>

#include "internal.h"

/* How long the running thread may take to stop for its stack. */
#define HALT_FOR_STACK_US 100000

static void append(struct sc_engine *e, const struct sc_thread *t)
{
	sc_stack_append(t, e->res->stacks, sizeof(e->res->stacks));
}

void sc_report_blocked_stacks(struct sc_engine *e)
{
	e->res->stacks[0] = '\0';
	for (size_t i = 0; i < e->nthreads; i++) {
		const struct sc_thread *t = e->threads[i];
		if (t->controlled && t->state == TH_BLOCKED)
			append(e, t);
	}
}

/* Stop the running thread where it is: the run ends anyway, so whatever
 * stop comes first will do. */
static bool halt_running(struct sc_thread *t)
{
	uint64_t until = sc_now_us() + HALT_FOR_STACK_US;
	int status;

	if (ptrace(PTRACE_INTERRUPT, t->tid, 0, 0) < 0)
		return false;
	for (;;) {
		pid_t r = waitpid(t->tid, &status, __WALL | WNOHANG);
		if (r == t->tid)
			return WIFSTOPPED(status);
		if ((r < 0 && errno != EINTR) || sc_now_us() >= until)
			return false;
		usleep(500);
	}
}

void sc_report_hang_stacks(struct sc_engine *e)
{
	struct sc_thread *running = e->running;

	e->res->stacks[0] = '\0';
	if (running && running->controlled && halt_running(running))
		append(e, running);
	for (size_t i = 0; i < e->nthreads; i++) {
		const struct sc_thread *t = e->threads[i];
		if (t != running && t->controlled &&
		    (t->state == TH_READY || t->state == TH_BLOCKED))
			append(e, t);
	}
}
