/* schedule.c - one scheduling decision: build the policy's view, ask it,
 * and execute the chosen thread's pending event.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/syscall.h>

#include "internal.h"

static bool grow_view(struct sc_engine *e, size_t n)
{
	if (n <= e->view_cap)
		return true;
	size_t cap = n * 2;
	struct sc_thread_view *vt = realloc(e->view_threads, cap * sizeof(*vt));
	if (!vt)
		return false;
	e->view_threads = vt;
	uint32_t *ve = realloc(e->view_enabled, cap * sizeof(*ve));
	if (!ve)
		return false;
	e->view_enabled = ve;
	struct sc_thread **vm = realloc(e->view_map, cap * sizeof(*vm));
	if (!vm)
		return false;
	e->view_map = vm;
	e->view_cap = cap;
	return true;
}

void sc_emit_event(struct sc_engine *e, struct sc_event *ev)
{
	ev->nwoken = (uint32_t)e->nwoken;
	ev->woken = e->woken;
	if (e->cfg->trace)
		sc_trace_event(e->cfg->trace, ev);
	if (e->cfg->policy && e->cfg->policy->executed)
		e->cfg->policy->executed(e->cfg->policy->ctx, ev);
}

/* Is the fd of this read or write a regular file, a directory or a
 * block device?  Those calls end by themselves whatever the other threads
 * do, so waiting for them keeps the schedule free of their timing. */
static bool on_plain_file(const struct sc_thread *t, const struct sc_event *ev)
{
	char path[64];
	struct stat st;

	if (ev->access != SC_ACC_READ && ev->access != SC_ACC_WRITE)
		return false;
	snprintf(path, sizeof(path), "/proc/%d/fd/%d", (int)t->proc->pid,
		 (int)ev->object);
	return stat(path, &st) == 0 && (S_ISREG(st.st_mode) ||
					S_ISDIR(st.st_mode) ||
					S_ISBLK(st.st_mode));
}

/* Release t into the kernel for a possibly blocking syscall. */
static void release(struct sc_engine *e, struct sc_thread *t,
		    const struct sc_event *ev)
{
	const struct sc_policy *pol = e->cfg->policy;
	int mode = pol->release ? pol->release(pol->ctx, ev) : SC_RELEASE_AUTO;

	if (mode == SC_RELEASE_AUTO && !pol->no_slices && on_plain_file(t, ev))
		mode = SC_RELEASE_AWAIT;
	/* A tgkill or tkill never blocks, and what it does to its target
	 * (a wait of ours interrupted, a signal pending before the target's
	 * next wait: dispatch.c's note_signal_sent) must be done before
	 * anything else is decided, whatever the load.  Recorded so, and
	 * replayed so whatever the trace's next events suggest. */
	pid_t target;
	int sig;
	if (sc_sends_signal(t, &target, &sig))
		mode = SC_RELEASE_AWAIT;

	/* A thread waited for until it comes back (AWAIT: the only live
	 * one) keeps its timeout: released without it, its poll would
	 * never come back (QA: a single-threaded poll(fds, n, 1), a libuv
	 * or GLib main loop after its workers ended, hung every run).  Its
	 * return is no event of its own then, and no other thread of ours
	 * can race with its timeout; a replay releases it the same way. */
	uint64_t timeout_us = sc_syscall_timeout_us(t);
	bool virtual = timeout_us && e->cfg->virtual_timeouts && !e->attached &&
		       mode != SC_RELEASE_AWAIT;
	if (virtual)
		sc_syscall_untime(t);
	sc_kernel_deadline_to_real(e, t);
	sc_start_running(e, t, PTRACE_SYSCALL);
	t->release_timed = timeout_us && !virtual;
	t->vt_pending = virtual;
	t->vt_due_us = sc_now_us() + timeout_us;
	t->vt_due_vns = sc_vclock_now_ns(e) + timeout_us * 1000u;
	if (mode == SC_RELEASE_AWAIT) {
		t->quick_deadline_us = UINT64_MAX;
	} else if (mode == SC_RELEASE_NOW) {
		t->released_quick = false;
		t->state = TH_IN_KERNEL;
		e->running = NULL;
	}
}

/* Synchronisation, as opposed to the life of threads and processes,
 * syscalls and preemptions (sc_run_result.sync_steps). */
static bool sc_is_sync_kind(uint32_t kind)
{
	switch (kind) {
	case SC_EV_FUTEX_WAIT: case SC_EV_FUTEX_WAKE:
	case SC_EV_FUTEX_REQUEUE: case SC_EV_FUTEX_WAKE_OP:
	case SC_EV_FUTEX_OTHER: case SC_EV_WAIT_RETURN: case SC_EV_TIMEOUT:
	case SC_EV_YIELD: case SC_EV_SLEEP:
		return true;
	default:
		return kind >= SC_EV_MUTEX_LOCK && kind <= SC_EV_MEM_RMW;
	}
}

/* A memory event or a free(3): counted by the memory budgets and caps. */
static bool mem_or_free(uint32_t kind)
{
	return (kind >= SC_EV_MEM_READ && kind <= SC_EV_MEM_RMW) ||
	       kind == SC_EV_FREE;
}

/* A busy-wait that burns CPU: a spin preemption, or the same load again
 * and again (sc_mem_spin_mark) at race and mem granularity. */
static bool busy_spins(const struct sc_event *ev)
{
	return (ev->kind == SC_EV_PREEMPT &&
		(ev->preempt_flags & SC_PREEMPT_SPIN)) ||
	       (sc_event_is_load(ev->kind) && ev->waits_in_place);
}

/* A spin preemption, or a yield or sleep where the thread was before:
 * an event of a thread that waits for another one. */
static bool spins_in_place(const struct sc_event *ev)
{
	return busy_spins(ev) ||
	       ((ev->kind == SC_EV_YIELD || ev->kind == SC_EV_SLEEP) &&
		ev->waits_in_place);
}

/* Keep t's read-held rwlocks (internal.h: rd_held). */
static void track_read_locks(struct sc_thread *t, const struct sc_event *ev)
{
	if (ev->kind == SC_EV_RWLOCK_RDLOCK && ev->object) {
		if (t->nrd_held == SC_RD_HELD_MAX) {
			memmove(t->rd_held, t->rd_held + 1,
				(SC_RD_HELD_MAX - 1) * sizeof(t->rd_held[0]));
			t->nrd_held--;
		}
		t->rd_held[t->nrd_held++] = ev->object;
	} else if (ev->kind == SC_EV_RWLOCK_UNLOCK) {
		for (size_t i = t->nrd_held; i-- > 0;)
			if (t->rd_held[i] == ev->object) {
				memmove(t->rd_held + i, t->rd_held + i + 1,
					(t->nrd_held - i - 1) *
					sizeof(t->rd_held[0]));
				t->nrd_held--;
				break;
			}
	}
}

/* Count t's reads and rmws of one instruction and address in a row
 * (sc_mem_spin_mark). */
static void count_mem_repeat(struct sc_thread *t, const struct sc_event *ev)
{
	bool load = sc_event_is_load(ev->kind);

	if (load && t->mem_repeats && ev->pc == t->mem_repeat_pc &&
	    ev->object == t->mem_repeat_object) {
		if (t->mem_repeats < UINT32_MAX)
			t->mem_repeats++;
		return;
	}
	t->mem_repeats = load ? 1 : 0;
	t->mem_repeat_pc = ev->pc;
	t->mem_repeat_object = ev->object;
}

void sc_mem_spin_mark(struct sc_thread *t)
{
	struct sc_event *nx = &t->next;

	/* A busy-wait on a flag at race or mem granularity is a run of the
	 * same load, each a step: it takes no spin preemption, and timed
	 * waits and polls of the others were never offered while it went
	 * on (QA: main spinning on an atomic flag until a thread's 100 ms
	 * cond_timedwait ended: 5 of 10 runs hung). */
	nx->waits_in_place = sc_event_is_load(nx->kind) &&
			     t->mem_repeats >= SC_MEM_SPIN_REPEATS &&
			     nx->pc == t->mem_repeat_pc &&
			     nx->object == t->mem_repeat_object;
}

/* cfg->mem_event_cap: after that many memory events the run goes on at
 * sync granularity; cfg->mem_site_cap: after that many events at one
 * instruction, that instruction is no scheduling point any more.  Both
 * are functions of the schedule, so replay lifts them at the same step.
 * Threads already stopped at a lifted breakpoint keep their pending
 * event (its step-over finds no breakpoint and simply runs the
 * instruction). */
static void count_mem_event(struct sc_engine *e, struct sc_thread *t,
			    uint64_t pc)
{
	if (e->cfg->mem_site_cap && !e->mem_lifted && t->proc) {
		struct sc_breakpoint *bp = sc_bp_find(t->proc, pc);
		if (bp && bp->mem && ++bp->hits >= e->cfg->mem_site_cap)
			sc_bp_remove(t->proc, pc);
	}
	if (!e->cfg->mem_event_cap || e->mem_lifted ||
	    ++e->mem_events < e->cfg->mem_event_cap)
		return;
	e->mem_lifted = true;
	for (size_t i = 0; i < e->nprocs; i++)
		if (e->procs[i]->controlled) {
			sc_bp_remove_mem(e->procs[i]);
			/* The frees matter to the accesses only. */
			if (e->procs[i]->free_bp)
				sc_bp_remove(e->procs[i], e->procs[i]->free_bp);
			e->procs[i]->free_bp = 0;
		}
}

/* A clone or fork takes far less, even on a loaded machine. */
#define OWN_SYSCALL_MAX_US 1000000

static void execute(struct sc_engine *e, struct sc_thread *t,
		    const struct sc_event *pending, uint32_t nenabled)
{
	struct sc_event ev = *pending;

	e->nwoken = 0;
	ev.step = e->step++;
	/* --max-steps counts the steps where the schedule had a choice: a
	 * thread that runs alone while the others wait (node's main thread,
	 * 1.7 million mutex calls while its workers slept; a sqlite3 shell)
	 * is long, not stuck, and its time budget still ends it if it is
	 * (QA: false "hang" verdicts of correct programs).  Memory events of
	 * mem granularity have their own count. */
	if (nenabled == 1 &&
	    !(e->cfg->granularity == SC_GRAN_MEM && mem_or_free(ev.kind)))
		e->lone_steps++;
	if (sc_is_sync_kind(ev.kind) && t->logical != 0)
		e->res->sync_steps++;
	ev.enabled = nenabled;
	ev.thread = t->logical;
	t->spawn_pc = 0;

	if (t->state == TH_IN_KERNEL && t->vt_pending) {
		/* Its poll's timeout, chosen (virtual time): interrupted,
		 * its syscall returns the timeout's result (dispatch.c) and
		 * it runs on to its next event. */
		ev.kind = SC_EV_TIMEOUT;
		sc_emit_event(e, &ev);
		sc_vclock_advance_to(e, t->vt_due_vns);
		t->vt_firing = true;
		t->state = TH_RUNNING;
		t->released_quick = true;
		t->quick_deadline_us = UINT64_MAX;
		t->resumed_us = sc_now_us();
		e->running = t;
		/* Sent even when an interrupt is thought pending: one that
		 * stopped the thread before it slept is gone, and a second
		 * one adds no stop (the kernel keeps one flag). */
		if (ptrace(PTRACE_INTERRUPT, t->tid, 0, 0) == 0)
			t->interrupt_pending = true;
		return;
	}
	if (t->state == TH_BLOCKED) {
		/* Chosen to time out (virtual time). */
		t->state = TH_READY;
		t->wait_timed = false;
		t->skip_syscall = true;
		t->skip_ret = -ETIMEDOUT;
		ev.kind = SC_EV_TIMEOUT;
		t->next.kind = SC_EV_TIMEOUT;
		sc_emit_event(e, &ev);
		sc_vclock_advance_to(e, t->wait_due_vns);
		sc_start_running(e, t, PTRACE_CONT);
		return;
	}
	if (ev.kind == SC_EV_YIELD && t->clock_wait_fn) {
		/* A busy-wait's clock read (vclock.c): answered now, at
		 * the time the schedule gives it. */
		sc_emit_event(e, &ev);
		if (e->diverged)
			return;
		e->last_spin_thread = t->logical;
		sc_vclock_answer_wait(e, t);
		sc_start_running(e, t, PTRACE_CONT);
		return;
	}

	switch (ev.kind) {
	case SC_EV_FUTEX_WAIT:
	case SC_EV_FUTEX_WAKE:
	case SC_EV_FUTEX_REQUEUE:
	case SC_EV_FUTEX_WAKE_OP:
		sc_futex_execute(e, t);
		break;
	case SC_EV_FUTEX_OTHER:
	case SC_EV_SYSCALL_BLOCKING:
		sc_emit_event(e, &ev);
		release(e, t, &ev);
		return;
	case SC_EV_SLEEP:
		if (e->attached) {
			/* A live process keeps real time: its sleep ends
			 * when it would have, meanwhile the others run. */
			sc_emit_event(e, &ev);
			release(e, t, &ev);
			return;
		}
		/* fall through */
	case SC_EV_YIELD:
		/* Abstract time: sleeps end at once (virtual time moves on
		 * by what they slept), yields are the scheduling point
		 * itself. */
		if (ev.kind == SC_EV_SLEEP)
			sc_vclock_advance_to(e, sc_vclock_sleep_end_vns(e, t));
		t->skip_syscall = true;
		t->skip_ret = 0;
		break;
	case SC_EV_PREEMPT:
		/* A computation preempted for its CPU budget ran that long:
		 * virtual time moves on by the budget (a constant, so that
		 * same-seed runs and replays agree).  QA: a thread polling
		 * a pipe for 100 ms while main counted until it was done
		 * waited for 10000 steps of 10 us, one a budget: a false
		 * hang. */
		if (ev.preempt_flags & SC_PREEMPT_BUDGET) {
			sc_vclock_advance_to(e, sc_vclock_now_ns(e) +
						SC_BUDGET_VNS);
			/* A timer that time brought fires here, at this step,
			 * before the thread goes on: left to the next
			 * decision, it fired at whatever probe stopped a
			 * lone computation next, which a replay does not
			 * make (QA: setitimer, then compute until its
			 * handler says stop). */
			sc_alarms_fire(e, false);
		}
		break;
	case SC_EV_THREAD_EXIT:
		/* Emitted when the thread is reaped, with the waiter its
		 * clear_child_tid wake releases. */
		t->exit_record_pending = true;
		t->exit_step = ev.step;
		t->next = ev;
		sc_start_running(e, t, PTRACE_CONT);
		return;
	case SC_EV_PROCESS_EXIT:
		/* A non-zero exit is reported with where it was decided. */
		if (t->proc == e->main_proc && (int)t->regs.rdi != 0) {
			/* The stack, and its frame of the program's own
			 * code as the location: the line that called exit()
			 * (a worker's, or main's return); none in a shell or
			 * an interpreter (the script's line is not in its
			 * frames).  One unwinding for both. */
			struct sc_frame frames[SC_STACK_FRAMES];
			size_t n = sc_stack_unwind(t->proc->pid, t->tid, frames,
						   SC_STACK_FRAMES);
			const struct sc_frame *own =
				sc_process_is_own(e, t->proc)
				? sc_stack_own_frame(frames, n) : NULL;

			e->exit_main_returned = own &&
				sc_main_returned(t->proc->pid, own,
						 e->exit_where,
						 sizeof(e->exit_where));
			if (!e->exit_main_returned)
				snprintf(e->exit_where, sizeof(e->exit_where),
					 "%s", own ? own->text : "");
			e->exit_stack[0] = '\0';
			sc_stack_format(t->logical, frames, n, e->exit_stack,
					sizeof(e->exit_stack));
			if (e->cfg->hand_over) {
				sc_emit_event(e, &ev);
				sc_hand_over_at_exit(e, t);
				return;
			}
		}
		sc_process_exiting(e, t->proc);
		break;
	default:
		if (t->stop == STOP_BREAKPOINT) {
			int rc = sc_bp_step_over(e, t);
			if (rc != 0) {
				/* dying or gone: its status was deferred */
				sc_emit_event(e, &ev);
				t->state = TH_EXITING;
				return;
			}
		}
		break;
	}
	sc_emit_event(e, &ev);
	if (e->diverged)
		return;
	e->last_spin_thread = spins_in_place(&ev) ? t->logical : UINT32_MAX;
	t->probe_after_spin = ev.kind == SC_EV_PREEMPT &&
			      e->last_spin_thread == t->logical;
	count_mem_repeat(t, &ev);
	track_read_locks(t, &ev);
	/* Frees count toward the cap too: a program whose own code makes
	 * few accesses but frees a lot (C++ strings) must not stop at
	 * every free for the whole run. */
	if (mem_or_free(ev.kind)) {
		if (e->cfg->granularity == SC_GRAN_MEM)
			e->mem_steps++;
		count_mem_event(e, t, ev.pc);
	}
	if (t->state == TH_BLOCKED)
		return;
	if (ev.kind == SC_EV_THREAD_CREATE || ev.kind == SC_EV_FORK) {
		t->own_syscall_until_us = sc_now_us() + OWN_SYSCALL_MAX_US;
		t->spawn_pc = ev.pc;
	}
	sc_start_running(e, t, PTRACE_CONT);
}

/* t, the one thread that can run, spins again right after its last
 * spin (no other event between), while every other thread of the run is
 * blocked for good: no timeout, nothing in the kernel, no alarm, no
 * process running free that could write its memory or signal it.  Then
 * nothing can end the spin, and waiting for the time budget only costs
 * the user time (QA: a worker compiled to jmp . while main joined it took
 * the whole --timeout of every run).  Not in a replay, which ends where
 * the recorded run did. */
static bool endless_spin(const struct sc_engine *e, struct sc_thread *t)
{
	size_t blocked = 0;

	/* Spins only: a loop of sleeps or yields may be waiting for the
	 * world outside (a file another program writes).  A spin on a
	 * flag's load counts (QA: at race granularity such a hang ran to
	 * the time budget, 60 s a run, where sync said at once). */
	if (!busy_spins(&t->next) ||
	    e->last_spin_thread != t->logical || e->attached ||
	    sc_alarm_real_wait_us((struct sc_engine *)e))
		return false;
	for (size_t i = 0; i < e->nthreads; i++) {
		const struct sc_thread *o = e->threads[i];
		if (o == t || o->state == TH_EXITING || o->state == TH_DEAD)
			continue;
		if (!o->controlled || o->state != TH_BLOCKED || o->wait_timed)
			return false;
		blocked++;
	}
	/* A thread that waits for another, not a lone one that may wait
	 * for a signal from outside. */
	if (!blocked)
		return false;
	/* The /proc reads last, once all the rest holds. */
	for (size_t i = 0; i < e->nprocs; i++)
		if (!e->procs[i]->controlled ||
		    sc_has_posix_timers(e->procs[i]->pid))
			return false;
	if (t->next.kind == SC_EV_PREEMPT)
		return true;    /* the probe saw its state come back */
	/* A load that repeats may still be a loop that counts in memory
	 * (while (!stop && ++done < n)): endless only when the thread's
	 * state and the memory it could count in are what they were at the
	 * turn before, as the probe checks a spin preemption. */
	uint64_t state = sc_preempt_full_hash(t, sc_preempt_state_hash(t));
	uint64_t memory = sc_spin_memory_hash(t);
	bool same = state == t->load_spin_state &&
		    memory == t->load_spin_memory;
	t->load_spin_state = state;
	t->load_spin_memory = memory;
	return same;
}

/* Deadlines this close to the first one may expire in either order: on
 * a machine, waits that time out within a scheduler tick of each other
 * come back in the order the scheduler runs them (each must take its
 * mutex again), so a schedule may take any of them.  A lost wake-up that
 * needs the wrong waiter's timeout first (lost_signal_n) stays a bug the
 * strategies can find. */
#define DEADLINE_SLACK_NS 4000000ull

/* The earliest deadline in virtual time among the timed waits and the
 * polls of the n threads of the view, UINT64_MAX when none is known.
 * Only a wait due then (give or take DEADLINE_SLACK_NS) may time out:
 * the clock jumps to the deadline of the one that does (QA: a 30 s sem_timedwait timed out before another
 * thread's 10 ms one, in 11-14 of 30 runs, and Python's
 * threading.Timer(0.01, ev.set) lost to ev.wait(30) in 8-17 of 20).  A
 * wait whose deadline could not be read counts as due any time. */
static uint64_t first_deadline_vns(const struct sc_engine *e, size_t n)
{
	uint64_t first = UINT64_MAX;

	for (size_t i = 0; i < n; i++) {
		const struct sc_thread *t = e->view_map[i];
		if (e->view_threads[i].timed && t->wait_due_vns &&
		    t->wait_due_vns < first)
			first = t->wait_due_vns;
		if (t->state == TH_IN_KERNEL && t->vt_pending &&
		    !t->vt_firing && t->vt_due_vns < first)
			first = t->vt_due_vns;
	}
	return first;
}

/* The earliest virtual due time of a poll released without its timeout
 * (cfg->virtual_timeouts), or 0 when none waits. */
static uint64_t first_virtual_timeout_vns(const struct sc_engine *e)
{
	uint64_t first = 0;

	for (size_t i = 0; i < e->nthreads; i++) {
		const struct sc_thread *t = e->threads[i];
		if (t->controlled && t->state == TH_IN_KERNEL &&
		    t->vt_pending && !t->vt_firing &&
		    (!first || t->vt_due_vns < first))
			first = t->vt_due_vns;
	}
	return first;
}

static bool waits_for_children(const struct sc_thread *t)
{
	long nr = (long)t->regs.orig_rax;
	return nr == SYS_wait4 || nr == SYS_waitid;
}

/* A wait4/waitid can only come back if a child of its process can still
 * make progress: an uncontrolled one, or a controlled one with a thread
 * that is not blocked.  No child known: it returns (a zombie or ECHILD). */
static bool child_can_progress(struct sc_engine *e, pid_t parent)
{
	bool any_child = false;

	for (size_t i = 0; i < e->nthreads; i++) {
		struct sc_thread *c = e->threads[i];
		if (c->proc->parent_pid != parent)
			continue;
		any_child = true;
		if (!c->controlled || c->state != TH_BLOCKED)
			return true;
	}
	return !any_child;
}

/* Is some thread in the kernel (or on its way somewhere) that can come
 * back by itself?  A controlled thread in wait4/waitid whose children are
 * all ours and all blocked cannot: that is part of a deadlock (a shell
 * waiting for a deadlocked test under --follow-forks). */
static bool any_in_kernel(struct sc_engine *e)
{
	for (size_t i = 0; i < e->nthreads; i++) {
		struct sc_thread *t = e->threads[i];
		if (!t->controlled)
			return true;    /* a free child may exit */
		switch (t->state) {
		case TH_EXITING:
			/* A leader that ended with pthread_exit is reaped
			 * only with its process: no death of its comes. */
			if (t->exit_recorded)
				break;
			return true;
		case TH_NEW:
		case TH_RUNNING:
			return true;    /* a death or a first stop is coming */
		case TH_IN_KERNEL:
			if (!waits_for_children(t) ||
			    child_can_progress(e, t->proc->pid))
				return true;
			break;
		default:
			break;
		}
	}
	return false;
}

static void wait_for_kernel_at_most(struct sc_engine *e, uint64_t max_us)
{
	uint64_t now = sc_now_us();
	uint64_t left = e->deadline_us > now ? e->deadline_us - now : max_us;
	if (left > max_us)
		left = max_us;   /* re-check limits and cancellation */
	sc_wait_any(e, left);
}

static void wait_for_kernel(struct sc_engine *e)
{
	wait_for_kernel_at_most(e, 100000);
}

/* Nothing can run but threads in the kernel: can a timed wait time out
 * all the same?  Yes when each of them sleeps there for good (sigwait(),
 * a read of a pipe nobody writes: sleep_kind.c) and has for
 * SC_ASLEEP_GRACE_US: with every other thread of ours stopped, waiting for
 * them would wait for ever (pbzip2's signal thread, while a worker
 * counts on its pthread_cond_timedwait).  A thread that is merely
 * quick in the kernel (a write, an mmap) is back long before, and one
 * whose call has a timeout of its own (an event loop's poll) is waited
 * for, as real time would order them. */
static bool kernel_asleep(struct sc_engine *e)
{
	uint64_t now = sc_now_us();

	for (size_t i = 0; i < e->nthreads; i++) {
		struct sc_thread *t = e->threads[i];
		if (!t->controlled)
			return false;   /* a free child may do anything */
		if (t->state == TH_EXITING && t->exit_recorded)
			continue;       /* a leader's pthread_exit */
		if (t->state == TH_EXITING || t->state == TH_NEW ||
		    t->state == TH_RUNNING)
			return false;
		if (t->state == TH_IN_KERNEL &&
		    !sc_asleep_for_good(t->proc->pid, t->tid)) {
			e->asleep_step = 0;
			return false;
		}
	}
	if (e->asleep_step != e->step + 1) {
		e->asleep_step = e->step + 1;   /* 0 means "not seen" */
		e->asleep_since_us = now;
	}
	return now - e->asleep_since_us >= SC_ASLEEP_GRACE_US;
}

/* Wait for a thread in the kernel; while a timed wait is pending, not
 * longer than kernel_asleep needs to look again. */
static void wait_for_kernel_or_timeout(struct sc_engine *e, bool timed)
{
	wait_for_kernel_at_most(e, timed ? SC_ASLEEP_GRACE_US / 4 : 100000);
}

/* A pending event that only timing made: a preemption, or the return of
 * a released syscall that went to the kernel. */
static bool timing_event(const struct sc_thread *t)
{
	return t->state == TH_READY && (t->next.kind == SC_EV_PREEMPT ||
					t->next.kind == SC_EV_SYSCALL_RETURN);
}

/* Let t go on from a timing event without a step: nothing could have run
 * instead of it, so the event would change nothing. */
static void go_on(struct sc_engine *e, struct sc_thread *t)
{
	sc_start_running(e, t, PTRACE_CONT);
}

/* t's timing event is the only thing that can happen now.  It changes
 * nothing when no other thread did anything since t was preempted or
 * released (had they, its place among their events would matter, and
 * replay must know it). */
static bool absorbable(const struct sc_engine *e, const struct sc_thread *t)
{
	/* A preemption after which others took steps did matter: they ran
	 * while t was stopped there, and replay must stop t there too. */
	if (t->next.kind == SC_EV_PREEMPT)
		return e->step == t->preempt_step;
	return e->step == t->release_step;
}

/* Is a thread that was just sent a signal still on its way back from
 * the kernel?  Then wait for it before deciding anything. */
static bool awaiting_wake(struct sc_engine *e)
{
	struct sc_thread *t;

	if (!e->await_tid)
		return false;
	t = sc_thread_by_tid(e, e->await_tid);
	if (t && t->state == TH_IN_KERNEL &&
	    sc_now_us() < e->await_deadline_us)
		return true;
	e->await_tid = 0;
	return false;
}

/* Steps of the other threads after which the return of a poll that
 * timed out is offered even though they can still go on. */
#define HELD_RETURN_STEPS 1000

/* A thread in a released syscall runnable in the kernel this long is
 * working there (a long read), not on its way back from a wake. */
#define WAKE_SETTLE_MAX_US 2000000
/* How often such a thread's state is looked at while waiting for it. */
#define WAKE_POLL_US 200

/* Keep waiting for something that settles by itself (a thread on its
 * way back from the kernel, a dying process being reaped): true while
 * WAKE_SETTLE_MAX_US have not passed since *since_us (set now on the
 * first call, *now read once per decision), then *given_up. */
static bool still_settling(uint64_t *since_us, bool *given_up, uint64_t *now)
{
	if (!*now)
		*now = sc_now_us();
	if (!*since_us)
		*since_us = *now;
	if (*now - *since_us < WAKE_SETTLE_MAX_US)
		return true;
	*given_up = true;
	return false;
}

/* Is a thread in a released syscall runnable in the kernel (or in an
 * uninterruptible wait there, which ends by itself)?  Another
 * thread's write (an eventfd, a pipe, a socket) wakes a thread asleep in
 * epoll_wait, poll or read at once, but that thread's return reaches us
 * only when it gets a CPU: on a busy machine some decisions later.  Had
 * the engine decided meanwhile, the return's place among the events
 * would be timing's, and the same seed would give another schedule
 * (ZeroMQ's I/O thread).  So every decision waits until each such
 * thread is back (its return is then an event the strategy orders) or
 * asleep again.  A thread asleep in the kernel is not waited for: only
 * something outside the program (a timer, the network, a free child)
 * wakes it now, and that is the timing of the world. */
static bool kernel_waking(struct sc_engine *e)
{
	uint64_t now = 0;

	for (size_t i = 0; i < e->nthreads; i++) {
		struct sc_thread *t = e->threads[i];
		if (!t->controlled || t->state != TH_IN_KERNEL ||
		    t->wake_given_up)
			continue;
		/* A vfork parent sleeps uninterruptibly ('D') until its
		 * child, ours to schedule, execs or exits: not on its way
		 * back before that, and waiting for it would stall the run
		 * for WAKE_SETTLE_MAX_US (then give up on the real wake). */
		if (t->vfork_child) {
			const struct sc_process *c =
				sc_process_of_pid(e, t->vfork_child);
			if (c && c->vfork_pending) {
				t->waking_since_us = 0;
				continue;
			}
		}
		char st = sc_thread_state_kept(t);
		if (st != 'R' && st != 'D' && st != 't') {
			t->waking_since_us = 0;
			continue;
		}
		if (still_settling(&t->waking_since_us, &t->wake_given_up,
				   &now))
			return true;
	}
	return false;
}

/* Is a process of ours dying, some of its threads past their exit
 * events but not reaped yet?  A fatal signal (an assert's abort) ends
 * every thread of a process; the engine waits for the thread it ran, but
 * the leader is reaped only after the others, and reaping it is what
 * wakes a parent in wait4 (the kernel tells the real parent only once
 * the tracer has waited for a traced child).  Decided before that, the
 * parent's return came at a step set by timing: same-seed runs of a
 * script whose test aborted while its siblings ran differed in 9 of 20
 * runs, on a quiet machine too (QA).  Dying threads are gone within
 * microseconds; one that is not after WAKE_SETTLE_MAX_US (a core dump
 * being written) is given up on.  A replay waits too: the parent's
 * SIGCHLD comes with the reaping, and a parent resumed before it ran its
 * handler at another point than when recorded (dash's `wait` took
 * sigsuspend in the recording and wait4 in 2 of 40 replays). */
static bool reap_pending(struct sc_engine *e)
{
	uint64_t now = 0;

	for (size_t i = 0; i < e->nprocs; i++) {
		struct sc_process *p = e->procs[i];
		if (!p->controlled || !p->exiting || p->reap_given_up ||
		    !sc_process_has_threads(e, p))
			continue;
		if (still_settling(&p->reap_wait_since_us, &p->reap_given_up,
				   &now))
			return true;
	}
	return false;
}

void sc_schedule_one(struct sc_engine *e)
{
	size_t n = 0, nen = 0;
	bool eager = e->cfg->eager_timeouts;

	if (awaiting_wake(e)) {
		wait_for_kernel(e);
		return;
	}
	if (kernel_waking(e) || reap_pending(e)) {
		wait_for_kernel_at_most(e, WAKE_POLL_US);
		return;
	}
	/* An alarm whose virtual time came: its signal is sent before the
	 * decision, and a thread it wakes in the kernel is waited for. */
	if (sc_alarms_fire(e, false) && awaiting_wake(e)) {
		wait_for_kernel(e);
		return;
	}

	/* Threads that hold each other's mutexes never move again, whatever
	 * the others do: the run is that deadlock now, not a hang at its
	 * time budget (a heartbeat thread, an idle pool). */
	if (sc_lock_cycle_ends_run(e))
		return;
	if (!grow_view(e, e->nthreads + 1))
		return;
	/* A replay follows its trace: it holds nothing back. */
	bool hold_timed = !e->cfg->policy->no_slices;
	size_t nheld = 0;
	for (size_t i = 0; i < e->nthreads; i++) {
		struct sc_thread *t = e->threads[i];
		if (!t->controlled || (t->state != TH_READY &&
				       t->state != TH_BLOCKED &&
				       t->state != TH_IN_KERNEL))
			continue;
		struct sc_thread_view *v = &e->view_threads[n];
		t->spin_wait = sc_spin_waits(e, t);
		bool held = hold_timed && t->state == TH_READY &&
			    t->timed_return;
		nheld += held;
		v->thread = t->logical;
		v->enabled = t->state == TH_READY && !t->spin_wait && !held;
		v->state = v->enabled ? SC_TS_READY :
			   t->state == TH_READY ? SC_TS_BLOCKED :
			   t->state == TH_BLOCKED ? SC_TS_BLOCKED : SC_TS_IN_KERNEL;
		v->timed = t->state == TH_BLOCKED && t->wait_timed;
		v->next = t->next;
		v->next.thread = t->logical;
		e->view_map[n] = t;
		if (v->enabled)
			e->view_enabled[nen++] = (uint32_t)n;
		n++;
	}
	bool in_kernel = any_in_kernel(e);
	/* Threads that were preempted in a spin loop wait for another one
	 * too, and so do threads about to yield or sleep where they did
	 * before (a poll loop of sched_yield or usleep until a watchdog's
	 * timed wait expired): virtual time may pass for them as when
	 * nothing can run.  A thread that yields or sleeps while counting
	 * (three rounds, then it writes) gets on by itself: time passes
	 * for it step by step (waiting, below).  QA: a poll(1 s) for a
	 * pipe that another thread wrote after 3 yields timed out at once
	 * (a false failure), and with a long timeout the run waited for it
	 * instead of running the yielder (a false hang; ctest -j2 hung in
	 * 23 of 40 runs).  A replay offers the timeouts of both cases
	 * (the states hashed hold stale stack bytes): it takes the one the
	 * trace took. */
	size_t nspin = 0, nwaiting = 0;
	for (size_t i = 0; i < nen; i++) {
		const struct sc_event *nx = &e->view_threads[e->view_enabled[i]].next;
		bool spins = nx->kind == SC_EV_PREEMPT &&
			     (nx->preempt_flags & SC_PREEMPT_SPIN);
		bool waits = nx->kind == SC_EV_YIELD || nx->kind == SC_EV_SLEEP;
		/* The same load again and again: a flag's busy-wait. */
		spins = spins || (sc_event_is_load(nx->kind) && nx->waits_in_place);
		nspin += spins || (waits && (nx->waits_in_place || !hold_timed));
		nwaiting += spins || waits;
	}
	/* Timed waits time out only when nothing else can run (virtual
	 * time), or whenever the policy likes with eager timeouts. */
	bool timed = false;
	for (size_t i = 0; i < n; i++)
		timed = timed || e->view_threads[i].timed;
	bool idle = nen == nspin;
	bool waiting = nen > 0 && nen == nwaiting;
	if (hold_timed && nen == 1 && idle && !in_kernel &&
	    endless_spin(e, e->view_map[e->view_enabled[0]])) {
		sc_report_endless_spin(e, e->view_map[e->view_enabled[0]]);
		return;
	}
	/* No thread can go on and one waits in a poll whose timeout is
	 * virtual: a timer of ours due before that timeout fires first, in
	 * virtual time.  Waited for in real time, it fired or not during
	 * the poll's real wait as the machine went (QA: a 1 ms setitimer
	 * beside a worker's poll(2 ms) loop differed in 10 of 10 same-seed
	 * runs, and most replays diverged).  Decided on what a replay sees
	 * alike: nothing enabled, nothing held. */
	if (nen == 0 && nheld == 0 &&
	    sc_alarms_fire_by(e, first_virtual_timeout_vns(e))) {
		wait_for_kernel_at_most(e, WAKE_POLL_US);
		return;
	}
	/* A poll's own timeout is virtual time too: its return is offered
	 * when no other thread can go on, whenever the machine's timer
	 * fired (threads asleep in the kernel meanwhile may be waiting for
	 * it: they do not hold it back), or once the others took
	 * HELD_RETURN_STEPS steps since it went to sleep (a loop that
	 * polls a flag under a mutex never stops to wait). */
	if (nheld) {
		for (size_t i = 0; i < n; i++) {
			struct sc_thread_view *v = &e->view_threads[i];
			const struct sc_thread *t = e->view_map[i];
			if (v->enabled || !t->timed_return ||
			    t->state != TH_READY || t->spin_wait ||
			    !(idle || eager ||
			      e->step - t->release_step >= HELD_RETURN_STEPS))
				continue;
			v->enabled = true;
			v->state = SC_TS_READY;
			e->view_enabled[nen++] = (uint32_t)i;
		}
	}
	/* Polls released without their timeout (cfg->virtual_timeouts):
	 * the timeout is offered as a timed wait's is, once the virtual
	 * clock reached it as the others took their steps and sleeps
	 * (vclock.c: 10 us a step; a loop that polls a flag under a mutex
	 * never stops to wait, and a 5 s wait for a worker must not end
	 * after a few hundred of its steps), or when no other thread can
	 * go on.  Then the one due first in virtual time fires,
	 * as on a clock: which one must not depend on how long the machine
	 * took (QA: two threads each polling 20 ms in a loop took turns by
	 * the policy's choice among those whose real time had passed, so a
	 * run waited for every poll one after another, 2 s for 1 s
	 * natively, and which returns were offered depended on the load).
	 * Its real time is still waited for: something outside the program
	 * may answer the poll meanwhile.  A replay offers every one always
	 * and takes the one the trace did. */
	size_t first_due = SIZE_MAX;
	bool vt_offered = false;
	uint64_t vnow = sc_vclock_now_ns(e);
	for (size_t i = 0; i < n; i++) {
		struct sc_thread_view *v = &e->view_threads[i];
		const struct sc_thread *t = e->view_map[i];
		if (t->state != TH_IN_KERNEL || !t->vt_pending || t->vt_firing)
			continue;
		if (!hold_timed || eager || vnow >= t->vt_due_vns) {
			v->enabled = true;
			v->next.kind = SC_EV_TIMEOUT;
			e->view_enabled[nen++] = (uint32_t)i;
			vt_offered = true;
		} else if (first_due == SIZE_MAX ||
			   t->vt_due_vns < e->view_map[first_due]->vt_due_vns) {
			first_due = i;
		}
	}
	if (idle && !vt_offered && first_due != SIZE_MAX) {
		const struct sc_thread *t = e->view_map[first_due];
		uint64_t now = sc_now_us();
		if (now < t->vt_due_us) {
			wait_for_kernel_at_most(e, t->vt_due_us - now);
			return;
		}
		e->view_threads[first_due].enabled = true;
		e->view_threads[first_due].next.kind = SC_EV_TIMEOUT;
		e->view_enabled[nen++] = (uint32_t)first_due;
	}
	if (idle || eager || (waiting && timed)) {
		bool lazy_ok = idle &&
			       (!in_kernel || (timed && kernel_asleep(e)));
		uint64_t first_vns = hold_timed && !eager
				     ? first_deadline_vns(e, n) : UINT64_MAX;
		for (size_t i = 0; i < n; i++) {
			struct sc_thread_view *v = &e->view_threads[i];
			const struct sc_thread *t = e->view_map[i];
			/* Only counting yielders and sleepers can go on: the
			 * wait times out when the virtual clock reached it. */
			bool reached = waiting && (!t->wait_due_vns ||
						   vnow >= t->wait_due_vns);
			if (!v->timed || !(eager || lazy_ok || reached) ||
			    (first_vns != UINT64_MAX &&
			     t->wait_due_vns > first_vns + DEADLINE_SLACK_NS))
				continue;
			v->enabled = true;
			v->next.kind = SC_EV_TIMEOUT;
			e->view_enabled[nen++] = (uint32_t)i;
		}
	}
	if (nen == 0) {
		if (in_kernel) {
			/* Virtual time stands still: an alarm fires once its
			 * real time has passed (alarm(1); pause()). */
			if (sc_alarms_fire(e, true)) {
				wait_for_kernel_at_most(e, WAKE_POLL_US);
				return;
			}
			uint64_t alarm_us = sc_alarm_real_wait_us(e);
			if (alarm_us && !timed) {
				wait_for_kernel_at_most(e, alarm_us);
				return;
			}
			if (!timed && kernel_asleep(e) && sc_signals_lost(e)) {
				sc_report_deadlock(e);
				return;
			}
			wait_for_kernel_or_timeout(e, timed);
			return;
		}
		if (n > 0) {
			sc_report_deadlock(e);
			return;
		}
		/* No controlled thread left but the leader is not reaped
		 * yet (exit in progress): wait. */
		wait_for_kernel(e);
		return;
	}

	if (nen == 1) {
		struct sc_thread *only = e->view_map[e->view_enabled[0]];
		/* A budget preemption is a step while a timer is armed:
		 * its virtual time is what makes the timer fire. */
		bool ticks = only->next.kind == SC_EV_PREEMPT &&
			     (only->next.preempt_flags & SC_PREEMPT_BUDGET) &&
			     sc_alarm_armed(only->proc);
		if (only->state == TH_READY && timing_event(only) &&
		    absorbable(e, only) && !ticks) {
			go_on(e, only);
			return;
		}
	}

	struct sc_sched_view view = { .step = e->step, .nthreads = n,
		.threads = e->view_threads, .nenabled = nen,
		.enabled = e->view_enabled };
	const struct sc_policy *pol = e->cfg->policy;
	int idx = pol->pick(pol->ctx, &view);
	if (idx == SC_PICK_WAIT) {
		if (in_kernel) {
			wait_for_kernel_or_timeout(e, timed);
			return;
		}
		sc_engine_abort(e, "the schedule waits for a thread in a "
				   "system call, but none is");
		return;
	}
	if (idx <= SC_PICK_GO_ON_BASE) {
		size_t i = (size_t)(SC_PICK_GO_ON_BASE - idx);
		if (i < n && timing_event(e->view_map[i])) {
			go_on(e, e->view_map[i]);
			return;
		}
		sc_engine_abort(e, "the policy let a thread go on that has no "
				   "preemption or syscall return pending");
		return;
	}
	if (idx < 0 || (size_t)idx >= n || !e->view_threads[idx].enabled) {
		sc_engine_abort(e, idx < 0 ? NULL :
				"the policy picked a thread that cannot run");
		return;
	}
	execute(e, e->view_map[idx], &e->view_threads[idx].next,
		(uint32_t)nen);
}
