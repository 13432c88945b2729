/* engine.c - sc_run(): one run of the target under control.
 *
 * Loop: while a controlled thread runs, wait for tracee statuses (with a
 * slice timer); when none runs, make one scheduling decision.  The run
 * ends when the main process is reaped, or with a verdict we decide
 * (deadlock, hang, divergence, cancellation), after which every traced
 * process is killed and reaped: the target never outlives its run.
 */
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <unistd.h>

#include "internal.h"

int sc_run_native(const struct sc_run_config *cfg, const char *path,
		  struct sc_run_result *res);

/* A released syscall gets QUICK_RETURN_US to come back, extended while the
 * thread is runnable, up to QUICK_RETURN_MAX_US. */
#define QUICK_RETURN_US 300
#define QUICK_RETURN_MAX_US 2000000
/* At mem granularity every shared-memory access is a step: a long but
 * healthy program (zstd -T2 on 300 kB) made a million of them in 30 s
 * and was reported hung.  So --max-steps counts the other steps, and
 * memory events (and frees) have a budget this many times as large:
 * still a function of the schedule, so a spin on plain memory that
 * nothing ends is a hang that replays. */
#define SC_MEM_STEPS_PER_STEP 100u

void sc_engine_abort(struct sc_engine *e, const char *why)
{
	const struct sc_policy *pol = e->cfg->policy;
	const char *msg = why;

	if (!msg && pol && pol->error)
		msg = pol->error(pol->ctx);
	snprintf(e->res->message, sizeof(e->res->message), "%s",
		 msg ? msg : "the policy aborted the run");
	e->res->verdict = SC_VERDICT_DIVERGED;
	e->diverged = true;
	e->finished = true;
}

static bool check_limits(struct sc_engine *e)
{
	const struct sc_run_config *cfg = e->cfg;
	struct sc_run_result *r = e->res;
	/* Read once: an attached run whose deadline passed between two
	 * reads of the clock was a hang instead of a detach (CI, 1 of 20
	 * attaches to a busy pool under load). */
	bool past_deadline = e->deadline_us && sc_now_us() >= e->deadline_us;

	if (cfg->cancel && *cfg->cancel && e->attached) {
		r->verdict = SC_VERDICT_PASS;
		snprintf(r->message, sizeof(r->message), "detached on request "
			 "after %llu events; the process keeps running",
			 (unsigned long long)e->step);
		e->finished = true;
	} else if (cfg->cancel && *cfg->cancel) {
		r->verdict = SC_VERDICT_ERROR;
		snprintf(r->message, sizeof(r->message), "interrupted");
		e->finished = true;
	} else if (cfg->recorded_hang_steps &&
		   e->step >= cfg->recorded_hang_steps) {
		r->verdict = SC_VERDICT_HANG;
		snprintf(r->message, sizeof(r->message),
			 "hang: the recorded run ran out of its budget here, "
			 "after %llu events", (unsigned long long)e->step);
		sc_report_hang_stacks(e);
		e->finished = true;
	} else if (cfg->max_steps &&
		   e->step - e->mem_steps - e->lone_steps >= cfg->max_steps) {
		r->verdict = SC_VERDICT_HANG;
		snprintf(r->message, sizeof(r->message),
			 "hang: step budget of %llu scheduling events "
			 "exhausted (events where another thread could have "
			 "run; a program that is only long, not stuck, "
			 "needs a larger --max-steps, or 0 for none)",
			 (unsigned long long)cfg->max_steps);
		sc_report_hang_stacks(e);
		e->finished = true;
	} else if (cfg->max_steps &&
		   e->mem_steps / SC_MEM_STEPS_PER_STEP >= cfg->max_steps) {
		r->verdict = SC_VERDICT_HANG;
		snprintf(r->message, sizeof(r->message),
			 "hang: budget of %llu memory events exhausted (%u "
			 "per scheduling step of --max-steps; a program that "
			 "is only long, not stuck, needs a larger "
			 "--max-steps, or 0 for none)",
			 (unsigned long long)cfg->max_steps *
			 SC_MEM_STEPS_PER_STEP, SC_MEM_STEPS_PER_STEP);
		sc_report_hang_stacks(e);
		e->finished = true;
	} else if (past_deadline && e->attached) {
		r->verdict = SC_VERDICT_PASS;
		snprintf(r->message, sizeof(r->message),
			 "detached after %.3g s and %llu events; the process "
			 "keeps running", (sc_now_us() - e->start_us) / 1e6,
			 (unsigned long long)e->step);
		e->finished = true;
	} else if (past_deadline && !sc_load_wait_extend(e)) {
		r->verdict = SC_VERDICT_HANG;
		double budget_s = cfg->timeout_ms / 1000.0;
		double with_waits_s = (double)(e->deadline_us - e->start_us) / 1e6;
		char waits[80] = "", budget_text[32], waits_text[32];

		/* Only a difference the figures show ("2 s (2 s with ...)"
		 * said nothing). */
		snprintf(budget_text, sizeof(budget_text), "%.3g", budget_s);
		snprintf(waits_text, sizeof(waits_text), "%.3g", with_waits_s);
		if (strcmp(budget_text, waits_text) != 0)
			snprintf(waits, sizeof(waits), " (%s s with the time "
				 "it waited for a CPU)", waits_text);
		snprintf(r->message, sizeof(r->message),
			 "hang: run exceeded its %.3g s time budget%s after "
			 "%llu events", budget_s, waits,
			 (unsigned long long)e->step);
		sc_report_hang_stacks(e);
		e->finished = true;
	}
	return e->finished;
}

/* A running thread asleep (not runnable) this long in a syscall that the
 * filter does not trap is taken for blocked in the kernel. */
#define ASLEEP_SLICES 20

/* Look at the running thread: has it used its slice of CPU time while
 * another thread could run?  Only CPU time counts, never wall time, so a
 * busy machine (the thread not even scheduled) changes nothing.  What
 * happens then is preempt.c's business: the probe decides whether and
 * where it is preempted from the thread's state, not from the time. */
static void slice_check(struct sc_engine *e, struct sc_thread *t)
{
	const struct sc_policy *pol = e->cfg->policy;
	uint64_t now = sc_now_us();
	uint64_t cpu, used, left;

	t->next_check_us = now + t->slice_us;
	if (t->interrupt_pending ||
	    (t->probe == PROBE_HITS && !t->probe_at_caller &&
	     !t->probe_at_exit) ||
	    t->probe == PROBE_REPLAY_SCAN || now < t->own_syscall_until_us)
		return;
	cpu = sc_process_cpu_ns(t->proc->pid);
	if (cpu && cpu == t->cpu_at_check_ns &&
	    now - t->resumed_us >= (uint64_t)ASLEEP_SLICES * t->slice_us &&
	    sc_thread_state(t->proc->pid, t->tid) != 'R') {
		sc_preempt_probe_begin(t, PROBE_ASLEEP);
		return;
	}
	t->cpu_at_check_ns = cpu;
	bool counting = t->probe == PROBE_REPLAY_FREE ||
			t->probe == PROBE_LEGACY ||
			((!(pol && pol->no_slices) || t->sliced_as_recorded) &&
			 (sc_other_can_run(e, t) || t->probe_after_spin ||
			  sc_alarm_armed(t->proc)));
	if (!counting || !cpu) {
		t->cpu_at_resume_ns = 0;   /* count from when it matters */
		return;
	}
	if (!t->cpu_at_resume_ns) {
		t->cpu_at_resume_ns = cpu;
		return;
	}
	used = cpu - t->cpu_at_resume_ns;
	if (used < t->slice_budget_ns) {
		left = (t->slice_budget_ns - used) / 1000u;
		t->next_check_us = now + (left < 50 ? 50 : left);
		return;
	}
	if (t->probe_at_caller) {
		sc_preempt_caller_expired(t);
		return;
	}
	if (t->probe_at_exit) {
		sc_preempt_exit_expired(t);
		return;
	}
	sc_preempt_probe_begin(t, t->probe == PROBE_NONE ? PROBE_INTERRUPTED
							 : t->probe);
}

static void wait_running(struct sc_engine *e)
{
	struct sc_thread *t = e->running;

	/* The replayed hang's last event let this thread go on: the
	 * recording stopped there, whatever the thread did next. */
	if (e->cfg->recorded_hang_steps &&
	    e->step >= e->cfg->recorded_hang_steps) {
		check_limits(e);
		return;
	}
	uint64_t now = sc_now_us();
	uint64_t until = t->released_quick ? t->quick_deadline_us
					   : t->next_check_us;

	if (e->deadline_us && e->deadline_us < until)
		until = e->deadline_us;
	uint64_t wait = until > now ? until - now : 0;
	if (wait > 100000)
		wait = 100000;   /* re-check cancellation */
	/* A thread released into the kernel while the others wait for it
	 * (alarm(1); pause()): virtual time stands still, so an alarm
	 * fires when its real time has passed.  Not while it waits in a
	 * poll whose timeout is virtual: the schedule ends that wait, and
	 * the timer fires in virtual time (QA: a 1 ms setitimer fired or
	 * not during a worker's poll as the machine went).  Nor while it is
	 * still busy in its call (a write to the terminal comes back by
	 * itself): only asleep is it waiting for the world, or for the
	 * timer (QA: a 1 ms timer fired during main's last printf in 2 of
	 * 30 runs). */
	uint64_t alarm_us = t->released && !t->vt_pending
			    ? sc_alarm_real_wait_us(e) : 0;
	if (alarm_us && alarm_us < wait)
		wait = alarm_us;
	if (sc_wait_any(e, wait)) {
		/* A thread that stops again and again (a fault whose handler
		 * returns to it, breakpoint hits while a replay scans for a
		 * preemption) never lets the wait time out: the deadline and
		 * a stop are looked at here too (CI under load: the session of
		 * a client killed with -9 ran on for 20 s and more). */
		if ((e->deadline_us && sc_now_us() >= e->deadline_us) ||
		    (e->cfg->cancel && *e->cfg->cancel))
			check_limits(e);
		return;
	}
	if (alarm_us && sc_thread_state(t->proc->pid, t->tid) == 'S' &&
	    sc_alarms_fire(e, true))
		return;
	if (e->cfg->cancel && *e->cfg->cancel) {
		check_limits(e);
		return;
	}
	if (e->running != t)
		return;
	now = sc_now_us();
	if (e->deadline_us && now >= e->deadline_us) {
		check_limits(e);
		return;
	}
	/* The only live thread, awaited in pause() or sigwait() while the
	 * others wait for it, with nothing left to send it a signal. */
	if (t->released && t->quick_deadline_us == UINT64_MAX &&
	    now - t->resumed_us >= SC_ASLEEP_GRACE_US &&
	    sc_signal_wait_name(t) && sc_signals_lost(e)) {
		t->released_quick = false;
		t->state = TH_IN_KERNEL;
		e->running = NULL;
		sc_report_deadlock(e);
		return;
	}
	if (t->released_quick && now >= t->quick_deadline_us) {
		/* Still runnable (the machine is busy, or it is working in
		 * the kernel), or in an uninterruptible wait that ends by
		 * itself (a page read from disk, a kernel lock): not
		 * blocked, keep waiting, so that load does not change the
		 * schedule.  Asleep: really blocking, let the others run
		 * meanwhile. */
		/* 't': already stopped at its return, whose status the
		 * next wait collects (QA: a pipe read seen there at the
		 * check was released, and its return became an extra step
		 * in 1 of 28 sessions under load). */
		char st = sc_thread_state(t->proc->pid, t->tid);
		if ((st == 'R' || st == 'D' || st == 't') &&
		    now - t->resumed_us < QUICK_RETURN_MAX_US) {
			t->quick_deadline_us = now + QUICK_RETURN_US;
			return;
		}
		t->released_quick = false;
		t->state = TH_IN_KERNEL;
		e->running = NULL;
		return;
	}
	if (!t->released_quick && now >= t->next_check_us)
		slice_check(e, t);
}

static void kill_everything(struct sc_engine *e)
{
	int status;

	/* SIGTERM and a grace first: the program may clean up. */
	sc_grace_end(e);
	if (e->main_pid > 0 && !e->main_done)
		kill(-e->main_pid, SIGKILL);
	for (size_t i = 0; i < e->nprocs; i++)
		kill(e->procs[i]->pid, SIGKILL);
	/* A thread whose exit stop was reported already (and so will not be
	 * reported again) would keep waitpid below waiting: continue every
	 * thread once; ESRCH for those not stopped. */
	for (size_t i = 0; i < e->nthreads; i++)
		ptrace(PTRACE_CONT, e->threads[i]->tid, 0, 0);
	/* Reap every tracee; SIGKILL ends ptrace-stops too.  A fork
	 * server's copy: every tracee of its process group (the server,
	 * stopped, is a tracee that must stay). */
	for (;;) {
		pid_t r = waitpid(sc_run_tracees(e), &status, __WALL);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			break;
		if (WIFSTOPPED(status)) {
			/* PTRACE_EVENT_EXIT stops happen even for SIGKILL
			 * (TRACEEXIT): let the thread finish dying. */
			ptrace(PTRACE_CONT, r, 0, 0);
			continue;
		}
		if (r == e->main_pid && (WIFEXITED(status) || WIFSIGNALED(status)) &&
		    !e->main_done) {
			e->main_done = true;
			e->main_status = status;
		}
	}
}

static void exec_error(struct sc_engine *e, struct sc_run_result *r)
{
	int err = 0;

	if (e->err_pipe >= 0 && read(e->err_pipe, &err, sizeof(err)) ==
	    (ssize_t)sizeof(err)) {
		r->verdict = SC_VERDICT_ERROR;
		snprintf(r->message, sizeof(r->message), "%s: cannot execute: %s",
			 e->cfg->argv[0], strerror(err));
	}
}

void sc_verdict_from_status(struct sc_engine *e)
{
	struct sc_run_result *r = e->res;
	int st = e->main_status;

	/* A followed child's crash is the bug unless the main process
	 * crashed itself (a script that passes the failure on exits
	 * non-zero: the crash says more). */
	if (e->child_crash_status && !WIFSIGNALED(st))
		st = e->child_crash_status;

	if (WIFEXITED(st)) {
		r->exit_status = WEXITSTATUS(st);
		if (r->exit_status == 0) {
			r->verdict = SC_VERDICT_PASS;
			return;
		}
		exec_error(e, r);
		if (r->verdict == SC_VERDICT_ERROR)
			return;
		r->verdict = SC_VERDICT_EXIT;
		snprintf(r->message, sizeof(r->message), "exited with status %d%s",
			 r->exit_status,
			 e->exit_main_returned ? " (returned by main)" : "");
		snprintf(r->stacks, sizeof(r->stacks), "%s", e->exit_stack);
		snprintf(r->location, sizeof(r->location), "%s", e->exit_where);
		return;
	}
	if (!WIFSIGNALED(st)) {
		r->verdict = SC_VERDICT_ERROR;
		snprintf(r->message, sizeof(r->message), "lost track of the target");
		return;
	}
	int sig = WTERMSIG(st);
	r->signal = sig;
	r->verdict = sig == SIGABRT ? SC_VERDICT_ASSERT : SC_VERDICT_CRASH;
	if (e->fault_seen && e->fault_signal == sig) {
		r->fault_thread = e->fault_thread;
		r->fault_pc = e->fault_pc;
		snprintf(r->location, sizeof(r->location), "%s", e->fault_where);
		snprintf(r->stacks, sizeof(r->stacks), "%s", e->fault_stack);
		bool memory = sig == SIGSEGV || sig == SIGBUS;
		bool own = e->fault_sender > 0 &&
			   e->fault_sender == e->main_pid;
		if (e->fault_sent && !memory && sig != SIGPIPE)
			/* Delivered with its default action: the thread it
			 * came to, and who sent it. */
			snprintf(r->message, sizeof(r->message),
				 "killed by SIG%s (%s), delivered to T%u at %s, "
				 "sent by %s %d (kill, tgkill or sigqueue)",
				 sigabbrev_np(sig), strsignal(sig),
				 e->fault_thread, e->fault_where,
				 own ? "the program's own process" : "process",
				 (int)e->fault_sender);
		else if (e->fault_sent)
			snprintf(r->message, sizeof(r->message),
				 "SIG%s (%s) in T%u at %s, sent by process %d "
				 "(kill), not a memory fault", sigabbrev_np(sig),
				 strsignal(sig), e->fault_thread, e->fault_where,
				 (int)e->fault_sender);
		else if (e->fault_no_addr)
			snprintf(r->message, sizeof(r->message),
				 "SIG%s (%s) in T%u at %s, a general-protection "
				 "fault (a non-canonical pointer, such as freed "
				 "memory's mangled link: the kernel gives no "
				 "address)", sigabbrev_np(sig), strsignal(sig),
				 e->fault_thread, e->fault_where);
		else if (sig == SIGSEGV || sig == SIGBUS)
			snprintf(r->message, sizeof(r->message),
				 "SIG%s (%s) in T%u at %s, fault address 0x%llx",
				 sigabbrev_np(sig), strsignal(sig), e->fault_thread,
				 e->fault_where, (unsigned long long)e->fault_addr);
		else if (sig == SIGTRAP)
			/* doctest, Catch2 --break, a debug_break(): the
			 * program looked for a debugger (TracerPid in
			 * /proc/self/status), found us, and trapped. */
			snprintf(r->message, sizeof(r->message),
				 "SIG%s (%s) in T%u at %s: a breakpoint "
				 "instruction of the program's own, which test "
				 "frameworks execute on a failure when they see "
				 "a debugger attached, as schedctl is (doctest: "
				 "--no-breaks; Catch2: without --break)",
				 sigabbrev_np(sig), strsignal(sig),
				 e->fault_thread, e->fault_where);
		else
			snprintf(r->message, sizeof(r->message),
				 "SIG%s (%s) in T%u at %s", sigabbrev_np(sig),
				 strsignal(sig), e->fault_thread, e->fault_where);
	} else {
		snprintf(r->message, sizeof(r->message), "killed by SIG%s (%s)",
			 sigabbrev_np(sig), strsignal(sig));
	}
}

void sc_engine_free(struct sc_engine *e)
{
	while (e->nthreads)
		sc_thread_remove(e, e->threads[e->nthreads - 1]);
	while (e->nprocs)
		sc_process_remove(e, e->procs[e->nprocs - 1]);
	free(e->threads);
	free(e->gone);
	free(e->procs);
	free(e->view_threads);
	free(e->view_enabled);
	free(e->view_map);
	sc_mem_instrument_free(e);
	if (e->err_pipe >= 0)
		close(e->err_pipe);
}

int sc_pin_cpu(int cpu, cpu_set_t *saved)
{
	cpu_set_t one;

	if (cpu < 0)
		return 0;
	if (sched_getaffinity(0, sizeof(*saved), saved) < 0)
		return -1;
	CPU_ZERO(&one);
	CPU_SET(cpu, &one);
	return sched_setaffinity(0, sizeof(one), &one);
}

void sc_engine_loop(struct sc_engine *e)
{
	while (!e->finished) {
		if (e->running) {
			wait_running(e);
			continue;
		}
		if (e->main_done)
			break;
		if (e->exiting) {
			/* Only deaths are left to collect. */
			sc_wait_any(e, 100000);
			if (!e->main_done)
				check_limits(e);
			continue;
		}
		if (check_limits(e))
			break;
		if (e->cfg->hand_over && e->cfg->stop_at_step &&
		    e->step >= e->cfg->stop_at_step) {
			snprintf(e->res->message, sizeof(e->res->message),
				 "stopped before step %llu",
				 (unsigned long long)e->step);
			e->hand_over_now = true;
			break;
		}
		sc_schedule_one(e);
	}
}

/* The run's main process and its first thread, T0; NULL when out of
 * memory. */
static struct sc_thread *new_main_thread(struct sc_engine *e, pid_t pid)
{
	e->main_pid = pid;
	e->main_proc = sc_process_new(e, pid, true);
	return e->main_proc ? sc_thread_new(e, pid, e->main_proc) : NULL;
}

/* Start the run by exec: T0 runs the pre-exec code until its execve
 * seccomp stop. */
static int start_exec(struct sc_engine *e, const char *path)
{
	struct sc_run_result *res = e->res;

	pid_t pid = sc_spawn_traced(e, path);

	if (pid < 0) {
		e->main_pid = pid;
		res->verdict = SC_VERDICT_ERROR;
		snprintf(res->message, sizeof(res->message),
			 "cannot start %s under ptrace: %s", e->cfg->argv[0],
			 strerror(errno));
		return -1;
	}
	struct sc_thread *t0 = new_main_thread(e, pid);
	if (!t0) {
		res->verdict = SC_VERDICT_ERROR;
		snprintf(res->message, sizeof(res->message), "out of memory");
		kill_everything(e);
		return -1;
	}
	t0->state = TH_RUNNING;
	t0->slice_us = 1000000;      /* alone: never looked at anyway */
	t0->next_check_us = sc_now_us() + 1000000;
	e->running = t0;
	return 0;
}

/* Start the run as a copy of the fork server's process, stopped at the
 * program's entry: the events before it come from the server's record,
 * then the engine goes on as at an exec'd run's entry breakpoint.  1:
 * the server failed before a copy existed (start by exec instead). */
static int start_forked(struct sc_engine *e)
{
	struct user_regs_struct regs;
	pid_t pid = sc_fork_server_fork(e->cfg->fork_server, &regs);

	if (pid < 0)
		return 1;
	e->forked = true;
	struct sc_thread *t0 = new_main_thread(e, pid);
	if (!t0 || sc_mem_open(e->main_proc) < 0 ||
	    sc_fork_server_restore(e->cfg->fork_server, e->main_proc) < 0) {
		e->res->verdict = SC_VERDICT_ERROR;
		snprintf(e->res->message, sizeof(e->res->message),
			 "cannot control the fork server's copy: %s",
			 t0 ? strerror(errno) : "out of memory");
		kill_everything(e);
		return -1;
	}
	t0->regs = regs;
	t0->regs_read = regs;   /* what the copy was given */
	t0->state = TH_READY;
	if (sc_fork_server_prelude(e, t0) < 0)
		return 0;       /* the policy aborted: the run ends */
	sc_entry_reached(e, t0);
	sc_start_running(e, t0, PTRACE_CONT);
	return 0;
}

/* The program's file (into path), or -1 with the run's error in res. */
static int program_path(const struct sc_run_config *cfg, char *path,
			size_t len, struct sc_run_result *res)
{
	char err[512];

	if (sc_check_program_info(cfg->argv[0], sc_env_path(cfg->envp), path,
				  len, NULL, err, sizeof(err)) == 0)
		return 0;
	res->verdict = SC_VERDICT_ERROR;
	snprintf(res->message, sizeof(res->message), "%s", err);
	return -1;
}

/* One run (park NULL), or a fork server's start: the program run to its
 * entry point and left stopped there (*park). */
static int run_engine(const struct sc_run_config *cfg, struct sc_run_result *res,
		      struct sc_parked *park)
{
	char path[4096];
	struct sc_engine e = { .cfg = cfg, .res = res, .err_pipe = -1,
			       .last_spin_thread = UINT32_MAX,
			       .park_at_entry = park != NULL };
	sigset_t chld, old_mask;
	cpu_set_t saved_cpus;

	memset(res, 0, sizeof(*res));
	/* A copy of the fork server needs no program file: it is checked
	 * (4 system calls) only when the run is exec'd. */
	bool forking = cfg->fork_server && !park && cfg->policy;
	if (!cfg->argv || !cfg->argv[0]) {
		res->verdict = SC_VERDICT_ERROR;
		snprintf(res->message, sizeof(res->message), "no program given");
		return -1;
	}
	if (!forking && program_path(cfg, path, sizeof(path), res) < 0)
		return -1;
	if (!cfg->policy)
		return sc_run_native(cfg, path, res);

	sigemptyset(&chld);
	sigaddset(&chld, SIGCHLD);
	sigprocmask(SIG_BLOCK, &chld, &old_mask);
	bool pinned = sc_pin_cpu(cfg->cpu, &saved_cpus) == 0 && cfg->cpu >= 0;
	e.pinned = pinned;
	e.unpinned_cpus = saved_cpus;

	e.no_emulation = getenv("SCHEDCTL_NO_EMULATION") != NULL;
	e.start_us = sc_now_us();
	if (cfg->timeout_ms)
		e.deadline_us = e.start_us + (uint64_t)cfg->timeout_ms * 1000;
	sc_load_wait_start(&e);
	int rc = 1;
	if (forking)
		rc = start_forked(&e);
	if (rc > 0)     /* exec'd: a copy's fallback checks the file now */
		rc = forking && program_path(cfg, path, sizeof(path), res) < 0
		     ? -1 : start_exec(&e, path);
	if (rc < 0)
		goto out;

	sc_engine_loop(&e);

	if (e.parked.pid) {
		*park = e.parked;       /* left stopped at the entry */
		goto out;
	}
	if (!e.finished && e.main_done)
		sc_verdict_from_status(&e);
	/* A deadlock is a failure point too. */
	if (cfg->hand_over && res->verdict == SC_VERDICT_DEADLOCK)
		e.hand_over_now = true;
	if (e.hand_over_now)
		sc_hand_over(&e);
	else
		kill_everything(&e);
	if (res->verdict == SC_VERDICT_UNKNOWN && e.main_done)
		sc_verdict_from_status(&e);
out:
	res->steps = e.step;
	res->threads = e.next_logical;
	res->wall_us = sc_now_us() - e.start_us;
	sc_engine_unboost(&e);
	sc_engine_free(&e);
	if (pinned || e.unpinned)
		sched_setaffinity(0, sizeof(saved_cpus), &saved_cpus);
	/* Drop a SIGCHLD left pending by our children before unblocking. */
	struct timespec zero = { 0, 0 };
	while (sigtimedwait(&chld, NULL, &zero) > 0)
		;
	sigprocmask(SIG_SETMASK, &old_mask, NULL);
	return rc;
}

int sc_run(const struct sc_run_config *cfg, struct sc_run_result *res)
{
	return run_engine(cfg, res, NULL);
}

int sc_engine_park(const struct sc_run_config *cfg, struct sc_run_result *res,
		   struct sc_parked *parked)
{
	memset(parked, 0, sizeof(*parked));
	return run_engine(cfg, res, parked);
}
