/* report_stacks.c - the stacks a deadlock or hang report shows.
 *
 * A deadlock is about the blocked threads: each one's stack says which
 * lock it waits for and who called it.  A hang is about every thread, the
 * one that was running (often the spinning culprit) first, then those
 * that could run (at mem granularity a spinner is stopped at its next
 * load, not running), then the blocked ones, then those waiting inside a released
 * syscall (a read of a pipe nobody writes: when every thread waits in
 * the kernel, their stacks are all the report has to show).  Those are
 * interrupted for it: the run ends anyway.
 */
#include <errno.h>
#include <signal.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"

/* How long the running thread may take to stop for its stack. */
#define HALT_FOR_STACK_US 100000

static void append(struct sc_engine *e, const struct sc_thread *t)
{
	sc_stack_append(t, e->res->stacks, sizeof(e->res->stacks));
}

static bool halt(struct sc_thread *t);

void sc_report_blocked_stacks(struct sc_engine *e, bool in_kernel_too)
{
	e->res->stacks[0] = '\0';
	for (size_t i = 0; i < e->nthreads; i++) {
		struct sc_thread *t = e->threads[i];
		if (!t->controlled)
			continue;
		if (t->state == TH_BLOCKED || t->spin_wait)
			append(e, t);
		/* A shell or parent in wait4 for children that are all
		 * blocked is part of the deadlock too, and the message
		 * names it (QA: its stack was missing). */
		else if (in_kernel_too && t->state == TH_IN_KERNEL && halt(t))
			append(e, t);
	}
}

/* Stop a running thread (or one in the kernel) where it is: the run
 * ends anyway, so whatever stop comes first will do. */
static bool halt(struct sc_thread *t)
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

/* A hang whose threads wait for a child process that is not followed:
 * the child's own deadlock (a lock held by a thread that was not copied
 * by fork) shows only as its parent's wait.  Say where the child is
 * stuck, and how to have it scheduled and reported. */
static void name_unfollowed_children(struct sc_engine *e)
{
	struct sc_run_result *r = e->res;

	for (size_t i = 0; i < e->nthreads; i++) {
		struct sc_thread *t = e->threads[i];
		struct sc_frame frames[SC_STACK_FRAMES];
		size_t used = strlen(r->message), n;
		const struct sc_frame *own;
		char where[1200] = "";

		if (t->controlled || t->state == TH_EXITING ||
		    t->state == TH_DEAD || t->proc->exiting || !halt(t))
			continue;
		n = sc_stack_unwind(t->proc->pid, t->tid, frames,
				    SC_STACK_FRAMES);
		own = sc_stack_own_frame(frames, n);
		if (n)
			snprintf(where, sizeof(where), ", stopped in %s%s%s",
				 frames[0].text,
				 own && own != &frames[0] ? ", called from " : "",
				 own && own != &frames[0] ? own->text : "");
		snprintf(r->message + used, sizeof(r->message) - used,
			 "; child process %d (not followed) is still running%s: "
			 "--follow-forks schedules it and reports its bug",
			 (int)t->proc->pid, where);
		return;         /* one child says it */
	}
}

void sc_report_hang_stacks(struct sc_engine *e)
{
	struct sc_thread *running = e->running;

	e->res->stacks[0] = '\0';
	if (running && running->controlled && halt(running))
		append(e, running);
	static const enum th_state order[] = { TH_READY, TH_BLOCKED,
					       TH_IN_KERNEL };

	for (size_t k = 0; k < sizeof(order) / sizeof(order[0]); k++)
		for (size_t i = 0; i < e->nthreads; i++) {
			struct sc_thread *t = e->threads[i];
			if (t == running || !t->controlled ||
			    t->state != order[k])
				continue;
			/* In the kernel: not in a ptrace stop yet. */
			if (t->state == TH_IN_KERNEL && !halt(t))
				continue;
			append(e, t);
		}
	name_unfollowed_children(e);
}
