/* grace.c - end a program that the engine must stop early (--timeout,
 * `schedctl stop`, a diverged replay, a deadlock) the way a user would:
 * SIGTERM to its process group, then a short time running free so that its
 * handlers can remove their temporary files, and only then the SIGKILL of
 * kill_everything().
 *
 * The threads stay traced (a detached thread would get ENOSYS from the
 * seccomp filter's RET_TRACE syscalls, exit included), but every stop is
 * continued at once: no scheduling, no model, no breakpoints (an int3 left
 * in the code would SIGTRAP a thread nobody rewinds).
 */
#include <errno.h>
#include <signal.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <time.h>

#include "internal.h"

/* Short: every early end pays it when the program ignores SIGTERM, and
 * nothing may outlive the session. */
#define GRACE_US 300000

static void resume(pid_t tid, int sig)
{
	ptrace(PTRACE_CONT, tid, 0, (void *)(long)sig);
}

void sc_grace_end(struct sc_engine *e)
{
	int status;

	if (e->main_pid <= 0 || e->main_done || e->attached)
		return;
	for (size_t i = 0; i < e->nthreads; i++) {
		struct sc_thread *t = e->threads[i];
		if (t->state == TH_RUNNING || t->state == TH_IN_KERNEL)
			sc_thread_halt(e, t);
	}
	for (size_t i = 0; i < e->nprocs; i++)
		sc_bp_remove_all(e->procs[i]);
	kill(-e->main_pid, SIGTERM);
	for (size_t i = 0; i < e->nthreads; i++) {
		struct sc_thread *t = e->threads[i];
		if (t->state == TH_DEAD || t->state == TH_NEW ||
		    t->state == TH_EXITING)
			continue;
		sc_thread_settle(t);
		resume(t->tid, t->pending_signal);
		t->pending_signal = 0;
	}
	uint64_t until = sc_now_us() + GRACE_US;
	while (sc_now_us() < until) {
		pid_t r = waitpid(sc_run_tracees(e), &status, __WALL | WNOHANG);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			break;          /* every tracee is gone */
		if (r == 0) {
			struct timespec ms = { 0, 1000000 };
			nanosleep(&ms, NULL);
			continue;
		}
		if (r == e->main_pid && (WIFEXITED(status) || WIFSIGNALED(status))) {
			e->main_done = true;
			e->main_status = status;
			continue;
		}
		if (!WIFSTOPPED(status))
			continue;
		/* A signal for the program (SIGTERM itself) is delivered;
		 * ptrace events and syscall stops just go on. */
		enum sc_stop_class k = sc_classify_status(status);
		resume(r, k == WS_SIGNAL ? WSTOPSIG(status) : 0);
	}
}
