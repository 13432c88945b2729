/* attach.c - sc_attach(): control a process that is already running, then
 * give it back.
 *
 * No seccomp filter (it could not be removed at detach, and without a
 * tracer its traced syscalls would fail with ENOSYS): threads are resumed
 * with PTRACE_SYSCALL and their syscall-entry stops play the part of the
 * seccomp stops.  Threads appear while we seize, so the task list is
 * rescanned until nothing new shows up (criu's collect_loop).  At the end
 * every breakpoint is removed, every modelled syscall is completed or left
 * to run for real, and every thread is detached where it stands.
 */
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <unistd.h>

#include "internal.h"

#define ATTACH_OPTIONS (PTRACE_O_TRACESYSGOOD | PTRACE_O_TRACECLONE | \
			PTRACE_O_TRACEFORK | PTRACE_O_TRACEVFORK | \
			PTRACE_O_TRACEEXEC | PTRACE_O_TRACEEXIT)
#define SEIZE_ROUNDS 10

int sc_tracer_of(pid_t pid)
{
	char path[64], line[256];
	int tracer = -1;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	FILE *f = fopen(path, "re");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "TracerPid: %d", &tracer) == 1)
			break;
	fclose(f);
	return tracer;
}

/* How long a thread may take to report the stop PTRACE_INTERRUPT asks for:
 * one in an uninterruptible wait (a vfork parent, a disk) does not stop,
 * and no wait of the engine may hold a session for good. */
#define INTERRUPT_WAIT_US 2000000
/* Polls of a thread shown in a ptrace stop with nothing to report: its
 * stop was reaped before (kept by the engine or taken by a dispatch). */
#define TRACED_POLLS 5

/* After PTRACE_INTERRUPT of t: its stop.  A status reaped before and kept
 * for later comes first.  Returns 0 with *status; 1 when t is in a ptrace
 * stop already and will report nothing new (no status); -1 when t is gone
 * or did not stop within INTERRUPT_WAIT_US. */
static int wait_interrupt_stop(struct sc_engine *e, struct sc_thread *t,
			       int *status)
{
	uint64_t until = sc_now_us() + INTERRUPT_WAIT_US;
	int traced_polls = 0;
	pid_t got;

	if (sc_take_deferred(e, t->tid, &got, status))
		return 0;
	for (;;) {
		pid_t r = waitpid(t->tid, status, __WALL | WNOHANG);
		if (r == t->tid)
			return 0;
		if (r < 0 && errno != EINTR)
			return -1;
		if (r == 0 && sc_thread_state(t->proc->pid, t->tid) == 't' &&
		    ++traced_polls >= TRACED_POLLS)
			return 1;
		if (sc_now_us() >= until)
			return -1;
		usleep(200);
	}
}

/* Wait for t's stop after PTRACE_INTERRUPT at seize: 0 when stopped
 * there, 1 when something else came first (kept for the main loop; the
 * interrupt stop follows later) or nothing came in time, -1 when t
 * ended. */
static int wait_stopped(struct sc_engine *e, struct sc_thread *t)
{
	int status;
	int r = wait_interrupt_stop(e, t, &status);

	if (r != 0)
		return 1;
	if (WIFEXITED(status) || WIFSIGNALED(status)) {
		sc_engine_defer_status(e, t->tid, status);
		return -1;
	}
	if (sc_classify_status(status) == WS_EVENT_STOP)
		return 0;
	sc_engine_defer_status(e, t->tid, status);
	return 1;
}

/* How long a thread caught mid-way may take to stop again at attach. */
#define SETTLE_WAIT_US 100000
/* How long a thread resumed to take its queued trap may take to stop. */
#define HALT_WAIT_US 100000

/* PTRACE_SEIZE of a thread that is exiting fails with EPERM, not ESRCH
 * (the kernel refuses a task with an exit state): a thread pool that
 * joins threads all the time shows such threads in /proc/PID/task.  Once
 * a thread of the process was seized, EPERM for another can mean nothing
 * else; for the first, ask /proc. */
static bool exiting(const struct sc_engine *e, pid_t pid, pid_t tid)
{
	char st = sc_thread_state(pid, tid);

	return e->nthreads > 0 || st == 'Z' || st == 'X' || st == '?';
}

/* Seize the threads of pid not seized yet; returns how many, -1 on error. */
static int seize_round(struct sc_engine *e, pid_t pid, int *err)
{
	char path[64];
	int seized = 0;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	DIR *d = opendir(path);
	if (!d) {
		*err = errno;
		return -1;
	}
	struct dirent *de;
	while ((de = readdir(d))) {
		pid_t tid = (pid_t)atoi(de->d_name);
		if (tid <= 0 || sc_thread_by_tid(e, tid))
			continue;
		if (ptrace(PTRACE_SEIZE, tid, 0, (void *)(long)ATTACH_OPTIONS) < 0) {
			if (errno == ESRCH || (errno == EPERM &&
					       exiting(e, pid, tid)))
				continue;   /* exited meanwhile */
			*err = errno;
			closedir(d);
			return -1;
		}
		struct sc_thread *t = sc_thread_new(e, tid, e->main_proc);
		if (!t) {
			*err = ENOMEM;
			closedir(d);
			return -1;
		}
		ptrace(PTRACE_INTERRUPT, tid, 0, 0);
		if (wait_stopped(e, t) == 0) {
			t->stop = STOP_EVENT;
			sc_regs_fetch(t);
			t->state = TH_READY;
			t->next = (struct sc_event){ .thread = t->logical,
				.kind = SC_EV_PREEMPT, .pc = t->regs.rip };
		} else {
			t->state = TH_RUNNING;   /* its stop is deferred */
		}
		seized++;
	}
	closedir(d);
	return seized;
}

static int seize_all(struct sc_engine *e, pid_t pid, char *why, size_t len)
{
	int err = 0;

	for (int round = 0; round < SEIZE_ROUNDS; round++) {
		int n = seize_round(e, pid, &err);
		if (n < 0) {
			snprintf(why, len, "cannot attach to process %d: %s%s",
				 (int)pid, strerror(err), err == EPERM ?
				 " (not yours, or ptrace is restricted: see "
				 "/proc/sys/kernel/yama/ptrace_scope)" : "");
			return -1;
		}
		if (n == 0)
			return 0;
	}
	return 0;
}

/* Threads seized mid-way through a deferred stop: take those stops now so
 * that every thread is stopped before the first decision. */
static void settle_deferred(struct sc_engine *e)
{
	pid_t tid;
	int status;

	for (size_t guard = 0; guard < 64 && sc_take_deferred(e, 0, &tid, &status);
	     guard++) {
		struct sc_thread *t = sc_thread_by_tid(e, tid);
		if (t && t->state == TH_RUNNING)
			e->running = t;
		sc_dispatch(e, tid, status);
		/* A thread that does not stop again soon is waiting in the
		 * kernel (perhaps for a thread that is stopped already): let
		 * the engine treat it so, instead of waiting here for good. */
		uint64_t until = sc_now_us() + SETTLE_WAIT_US;
		while (e->running && !e->finished && sc_now_us() < until &&
		       !(e->cfg->cancel && *e->cfg->cancel))
			sc_wait_any(e, SETTLE_WAIT_US);
		if (e->running && !e->finished) {
			e->running->released_quick = false;
			e->running->state = TH_IN_KERNEL;
			e->running = NULL;
		}
	}
}

void sc_bp_remove_all(struct sc_process *p)
{
	while (p->nbps)
		sc_bp_remove(p, p->bps[p->nbps - 1].addr);
	p->entry_bp = 0;
}

/* Is the signal of t's signal-delivery stop a trap of ours (int3 of a
 * breakpoint, the end of a single step) rather than the program's own
 * SIGTRAP?  Ours must never reach the program once it is detached. */
static bool our_trap(const struct sc_thread *t)
{
	siginfo_t si;

	if (ptrace(PTRACE_GETSIGINFO, t->tid, 0, &si) < 0)
		return false;
	return si.si_signo == SIGTRAP &&
	       (si.si_code == SI_KERNEL || si.si_code == TRAP_BRKPT ||
		si.si_code == TRAP_TRACE || si.si_code == TRAP_HWBKPT);
}

/* Does t have a SIGTRAP queued that it will take as soon as it runs?
 * A trap of ours is never blocked (the kernel unblocks a forced signal);
 * a blocked one is the program's, and resuming t would not stop it. */
static bool trap_pending(const struct sc_thread *t)
{
	uint64_t pending, blocked;

	if (sc_thread_signals(t->proc->pid, t->tid, &pending, &blocked) < 0)
		return false;
	return (pending & ~blocked) & (1ULL << (SIGTRAP - 1));
}

/* Wait for t's stop after resuming it for its queued trap, at most
 * HALT_WAIT_US: should it not come, interrupt it again.  Returns as
 * wait_interrupt_stop(). */
static int wait_trap_stop(struct sc_engine *e, struct sc_thread *t,
			  int *status)
{
	uint64_t until = sc_now_us() + HALT_WAIT_US;
	pid_t r;

	while ((r = waitpid(t->tid, status, __WALL | WNOHANG)) == 0) {
		if (sc_now_us() >= until) {
			ptrace(PTRACE_INTERRUPT, t->tid, 0, 0);
			return wait_interrupt_stop(e, t, status);
		}
		usleep(200);
	}
	return r == t->tid ? 0 : -1;
}

/* t is in a signal-delivery stop: rewind a breakpoint hit so that the
 * instruction runs once its byte is back, drop our own traps, keep the
 * program's signals for the detach. */
static void take_signal_stop(struct sc_thread *t, int sig)
{
	struct sc_breakpoint *bp = sig == SIGTRAP ?
		sc_bp_find(t->proc, t->regs.rip - 1) : NULL;

	if (bp && our_trap(t)) {
		t->regs.rip = bp->addr;
		t->regs_dirty = true;
	} else if (!(sig == SIGTRAP && our_trap(t))) {
		t->pending_signal = sig;
	}
}

/* Stop a thread that is running (or inside a released syscall) so that it
 * can be detached; an interrupted syscall restarts after the detach.  A
 * breakpoint hit can race with the interrupt: its SIGTRAP then waits
 * behind the interrupt's stop, and would kill the detached program; take
 * it now.  Every wait is bounded: a thread that does not stop is left as
 * it is (the worker's exit releases it). */
void sc_thread_halt(struct sc_engine *e, struct sc_thread *t)
{
	int status;

	if (ptrace(PTRACE_INTERRUPT, t->tid, 0, 0) < 0)
		return;
	int r = wait_interrupt_stop(e, t, &status);
	if (r < 0 || (r == 0 && (WIFEXITED(status) || WIFSIGNALED(status))))
		return;
	sc_regs_fetch(t);
	if (r == 0 && sc_classify_status(status) == WS_SIGNAL) {
		take_signal_stop(t, WSTOPSIG(status));
		return;
	}
	for (int tries = 0; tries < 4 && trap_pending(t); tries++) {
		if (sc_regs_flush(t) < 0 ||
		    ptrace(PTRACE_CONT, t->tid, 0, 0) < 0)
			return;
		r = wait_trap_stop(e, t, &status);
		if (r < 0 || (r == 0 && (WIFEXITED(status) ||
					 WIFSIGNALED(status))))
			return;
		sc_regs_fetch(t);
		if (r == 0 && sc_classify_status(status) == WS_SIGNAL) {
			take_signal_stop(t, WSTOPSIG(status));
			if (WSTOPSIG(status) == SIGTRAP)
				return;
		}
	}
}

void sc_thread_settle(struct sc_thread *t)
{
	if (t->state == TH_BLOCKED) {
		/* Modelled wait never woken: let the real FUTEX_WAIT run. */
		t->skip_syscall = false;
	}
	if (t->skip_syscall) {
		t->regs.orig_rax = (unsigned long long)-1;
		t->regs.rax = (unsigned long long)t->skip_ret;
		t->regs_dirty = true;
		t->skip_syscall = false;
	}
	sc_regs_flush(t);
}

static void detach_thread(struct sc_thread *t)
{
	sc_thread_settle(t);
	ptrace(PTRACE_DETACH, t->tid, 0, (void *)(long)t->pending_signal);
}

/* Give the process back: every thread stopped, breakpoints out, modelled
 * syscalls completed, then PTRACE_DETACH. */
void sc_detach_everything(struct sc_engine *e)
{
	for (size_t i = 0; i < e->nthreads; i++) {
		struct sc_thread *t = e->threads[i];
		if (t->state == TH_RUNNING || t->state == TH_IN_KERNEL ||
		    t->state == TH_NEW || t->state == TH_EXITING)
			sc_thread_halt(e, t);
	}
	for (size_t i = 0; i < e->nprocs; i++)
		sc_bp_remove_all(e->procs[i]);
	for (size_t i = 0; i < e->nthreads; i++)
		detach_thread(e->threads[i]);
}

int sc_attach(int pid, const struct sc_run_config *cfg, uint32_t duration_ms,
	      struct sc_run_result *res)
{
	struct sc_engine e = { .cfg = cfg, .res = res, .err_pipe = -1,
			       .last_spin_thread = UINT32_MAX,
			       .attached = true };
	sigset_t chld, old_mask;
	cpu_set_t saved_cpus;
	int rc = 0;

	memset(res, 0, sizeof(*res));
	if (!cfg->policy || pid <= 0 || kill(pid, 0) < 0) {
		res->verdict = SC_VERDICT_ERROR;
		snprintf(res->message, sizeof(res->message),
			 pid <= 0 || errno == ESRCH ? "no process %d" :
			 "cannot attach to process %d: %s", pid, strerror(errno));
		return -1;
	}
	int tracer = sc_tracer_of(pid);
	if (tracer > 0) {
		res->verdict = SC_VERDICT_ERROR;
		snprintf(res->message, sizeof(res->message),
			 "process %d is already traced by process %d", pid,
			 tracer);
		return -1;
	}
	sigemptyset(&chld);
	sigaddset(&chld, SIGCHLD);
	sigprocmask(SIG_BLOCK, &chld, &old_mask);
	bool pinned = sc_pin_cpu(cfg->cpu, &saved_cpus) == 0 && cfg->cpu >= 0;
	e.start_us = sc_now_us();
	if (duration_ms)
		e.deadline_us = e.start_us + (uint64_t)duration_ms * 1000;
	e.main_pid = pid;
	e.main_proc = sc_process_new(&e, pid, true);
	if (!e.main_proc) {
		rc = -1;
		goto out;
	}
	e.main_proc->syscall_stops = true;
	if (seize_all(&e, pid, res->message, sizeof(res->message)) < 0) {
		res->verdict = SC_VERDICT_ERROR;
		sc_detach_everything(&e);
		rc = -1;
		goto out;
	}
	settle_deferred(&e);
	if (sc_plant_libc_breakpoints(e.main_proc) >= 0)
		e.main_proc->libc_ready = true;
	if (cfg->granularity == SC_GRAN_MEM)
		sc_plant_mem_breakpoints(&e, e.main_proc, SC_SITES_MEMORY);
	if (cfg->trace) {
		struct sc_module *mods;
		size_t n;
		if (sc_module_map(pid, &mods, &n) == 0) {
			sc_trace_modules(cfg->trace, mods, n, 0);
			sc_module_map_free(mods, n);
		}
	}

	sc_engine_loop(&e);

	if (e.main_done) {
		if (res->verdict == SC_VERDICT_UNKNOWN || !e.finished)
			sc_verdict_from_status(&e);
	} else if (!e.finished) {
		res->verdict = SC_VERDICT_PASS;
		snprintf(res->message, sizeof(res->message),
			 "detached after %llu events; the process keeps "
			 "running", (unsigned long long)e.step);
	}
	/* Forked children are still traced even when the process is gone. */
	sc_detach_everything(&e);
out:
	res->steps = e.step;
	res->threads = e.next_logical;
	res->wall_us = sc_now_us() - e.start_us;
	sc_engine_free(&e);
	if (pinned)
		sched_setaffinity(0, sizeof(saved_cpus), &saved_cpus);
	struct timespec zero = { 0, 0 };
	while (sigtimedwait(&chld, NULL, &zero) > 0)
		;
	sigprocmask(SIG_SETMASK, &old_mask, NULL);
	return rc;
}
