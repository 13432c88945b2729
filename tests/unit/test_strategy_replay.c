/*
 * test_strategy_replay.c - the replay policy on a hand-made trace:
 * follows the recorded threads, waits for a thread still in the kernel,
 * maps recorded wakes onto the waiters, and reports divergences with the
 * step and what was expected.
 */
#include "config.h"

#include <stdint.h>
#include <string.h>

#include "analysis.h"
#include "strategy/replay.h"
#include "tap.h"

static struct sc_trace_event events[] = {
	{ .step = 0, .thread = 0, .kind = SC_EV_MUTEX_LOCK, .object = 0x100 },
	{ .step = 1, .thread = 1, .kind = SC_EV_MUTEX_LOCK, .object = 0x100 },
	{ .step = 2, .thread = 0, .kind = SC_EV_FUTEX_WAKE, .object = 0x200,
	  .nwoken = 1, .woken_offset = 0 },
};
static uint32_t wake_pool[] = { 1 };

static void make_trace(struct sc_trace *t)
{
	memset(t, 0, sizeof(*t));
	t->events = events;
	t->nevents = 3;
	t->wake_pool = wake_pool;
	t->nwake_pool = 1;
	t->has_footer = true;
}

struct view_buf {
	struct sc_thread_view threads[3];
	uint32_t enabled[3];
	struct sc_sched_view view;
};

/* Threads T0..T(n-1); each given as state, kind, object. */
static void view_add(struct view_buf *b, enum sc_thread_state st,
		     uint16_t kind, uint64_t object)
{
	size_t i = b->view.nthreads++;

	b->threads[i] = (struct sc_thread_view){
		.thread = (uint32_t)i, .state = st,
		.enabled = st == SC_TS_READY,
		.next = { .kind = kind, .object = object },
	};
	if (st == SC_TS_READY)
		b->enabled[b->view.nenabled++] = (uint32_t)i;
}

static void view_start(struct view_buf *b, uint64_t step)
{
	memset(b, 0, sizeof(*b));
	b->view.step = step;
	b->view.threads = b->threads;
	b->view.enabled = b->enabled;
}

static void test_follow(void)
{
	struct sc_trace t;
	struct sc_policy p;
	struct view_buf v;
	struct sc_event waker = { .step = 2, .thread = 0 };
	uint32_t waiters[2] = { 2, 1 }, out[2];
	char err[256];

	make_trace(&t);
	if (sc_replay_create(&t, &p, err, sizeof(err)) < 0)
		bail_out(err);
	view_start(&v, 0);
	view_add(&v, SC_TS_READY, SC_EV_MUTEX_LOCK, 0x100);
	view_add(&v, SC_TS_READY, SC_EV_MUTEX_LOCK, 0x100);
	is_int(p.pick(p.ctx, &v.view), 0, "step 0: the recorded T0");

	view_start(&v, 1);
	view_add(&v, SC_TS_READY, SC_EV_FUTEX_WAKE, 0x200);
	view_add(&v, SC_TS_IN_KERNEL, SC_EV_NONE, 0);
	is_int(p.pick(p.ctx, &v.view), SC_PICK_WAIT,
	       "step 1: T1 still in the kernel, wait for it");
	v.threads[1] = (struct sc_thread_view){
		.thread = 1, .state = SC_TS_READY, .enabled = true,
		.next = { .kind = SC_EV_MUTEX_LOCK, .object = 0x100 },
	};
	v.enabled[v.view.nenabled++] = 1;
	is_int(p.pick(p.ctx, &v.view), 1, "step 1: T1 once back");

	view_start(&v, 2);
	view_add(&v, SC_TS_READY, SC_EV_FUTEX_WAKE, 0x200);
	is_int(p.pick(p.ctx, &v.view), 0, "step 2: T0 wakes");
	is_int((long long)p.pick_wake(p.ctx, &waker, waiters, 2, 1, out), 1,
	       "one thread woken, as recorded");
	is_int(out[0], 1, "the recorded T1, at index 1 of the waiters");

	view_start(&v, 3);
	view_add(&v, SC_TS_READY, SC_EV_MUTEX_LOCK, 0x100);
	is_int(p.pick(p.ctx, &v.view), SC_PICK_ABORT, "past the end: abort");
	is_str(p.error(p.ctx), "trace ends at step 3 but the program continued",
	       "end of trace message");
	is_int(sc_replay_diverged_at(&p), 3, "diverged at step 3");
	sc_replay_destroy(&p);
}

static void expect_divergence(enum sc_thread_state st, uint16_t kind,
			      uint64_t object, const char *want,
			      const char *name)
{
	struct sc_trace t;
	struct sc_policy p;
	struct view_buf v;
	char err[256];

	make_trace(&t);
	if (sc_replay_create(&t, &p, err, sizeof(err)) < 0)
		bail_out(err);
	view_start(&v, 0);
	view_add(&v, st, kind, object);
	view_add(&v, SC_TS_READY, SC_EV_MUTEX_LOCK, 0x100);
	is_int(p.pick(p.ctx, &v.view), SC_PICK_ABORT, "%s: abort", name);
	is_str(p.error(p.ctx), want, "%s: message", name);
	is_int(sc_replay_diverged_at(&p), 0, "%s: at step 0", name);
	sc_replay_destroy(&p);
}

static void test_divergences(void)
{
	struct sc_trace t;
	struct sc_policy p;
	struct view_buf v;
	struct sc_event waker = { .step = 2, .thread = 0 };
	uint32_t waiters[1] = { 2 }, out[1];
	char err[256];

	expect_divergence(SC_TS_READY, SC_EV_COND_WAIT, 0x300,
			  "step 0: T0 was to mutex_lock 0x100, but it is "
			  "about to cond_wait 0x300 (it took another path "
			  "than when recorded: did something it reads change "
			  "since, a file, a directory's listing, the program "
			  "itself?  Or did a signal from outside the schedule, "
			  "a timer's SIGALRM, come at another point?)",
			  "other event");
	expect_divergence(SC_TS_BLOCKED, SC_EV_FUTEX_WAIT, 0x400,
			  "step 0: T0 was to mutex_lock 0x100, but it is "
			  "blocked in futex_wait 0x400", "blocked thread");

	/* A wake whose recorded thread is not waiting now. */
	make_trace(&t);
	if (sc_replay_create(&t, &p, err, sizeof(err)) < 0)
		bail_out(err);
	for (uint64_t s = 0; s < 3; s++) {
		view_start(&v, s);
		view_add(&v, SC_TS_READY, events[s].thread == 0 ? events[s].kind
			 : SC_EV_NONE, events[s].object);
		view_add(&v, SC_TS_READY, events[s].thread == 1 ? events[s].kind
			 : SC_EV_NONE, events[s].object);
		p.pick(p.ctx, &v.view);
	}
	ok(p.pick_wake(p.ctx, &waker, waiters, 1, 1, out) == SIZE_MAX,
	   "recorded T1 woken, but only T2 waits: abort");
	ok(p.error(p.ctx) && strstr(p.error(p.ctx), "step 2:"),
	   "wake divergence names the step: %s", p.error(p.ctx));
	sc_replay_destroy(&p);

	/* A trace whose wake list points outside the pool is refused. */
	make_trace(&t);
	t.nwake_pool = 0;
	ok(sc_replay_create(&t, &p, err, sizeof(err)) < 0 && strstr(err, "corrupt"),
	   "wake list out of range: %s", err);
}

/* Timing the recording does not hold is no step: a pending preemption or
 * syscall return of the recorded thread lets it go on.  A recorded
 * preemption with a state is a target for the engine. */
static void test_timing(void)
{
	static struct sc_trace_event pre[] = {
		{ .step = 0, .thread = 0, .kind = SC_EV_MUTEX_LOCK, .object = 0x100 },
		{ .step = 1, .thread = 1, .kind = SC_EV_PREEMPT, .pc = 0x4010,
		  .state = 0xabc, .cpu_ns = 5000, .preempt_flags = SC_PREEMPT_SPIN },
		{ .step = 2, .thread = 0, .kind = SC_EV_MUTEX_UNLOCK, .object = 0x100 },
	};
	struct sc_trace t;
	struct sc_policy p;
	struct view_buf v;
	struct sc_preempt_target tgt;
	char err[256];

	memset(&t, 0, sizeof(t));
	t.events = pre;
	t.nevents = 3;
	t.has_footer = true;
	if (sc_replay_create(&t, &p, err, sizeof(err)) < 0)
		bail_out(err);
	ok(p.no_slices, "replay runs without time slices");
	view_start(&v, 0);
	view_add(&v, SC_TS_READY, SC_EV_PREEMPT, 0);
	view_add(&v, SC_TS_READY, SC_EV_THREAD_START, 0);
	is_int(p.pick(p.ctx, &v.view), SC_PICK_GO_ON(0),
	       "T0 interrupted, recorded mutex_lock: it goes on");
	view_start(&v, 0);
	view_add(&v, SC_TS_READY, SC_EV_SYSCALL_RETURN, 0);
	view_add(&v, SC_TS_READY, SC_EV_THREAD_START, 0);
	is_int(p.pick(p.ctx, &v.view), SC_PICK_GO_ON(0),
	       "T0 back from a syscall, recorded mutex_lock: it goes on");
	ok(p.preempt_target(p.ctx, 0, 1, &tgt) && tgt.pc == 0x4010 &&
	   tgt.state == 0xabc && tgt.preempt_flags == SC_PREEMPT_SPIN,
	   "T1's next recorded event is a preemption: its pc and state");
	ok(!p.preempt_target(p.ctx, 0, 0, &tgt),
	   "T0's next recorded event is no preemption: no target");
	view_start(&v, 0);
	view_add(&v, SC_TS_READY, SC_EV_MUTEX_LOCK, 0x100);
	view_add(&v, SC_TS_READY, SC_EV_THREAD_START, 0);
	is_int(p.pick(p.ctx, &v.view), 0, "step 0: T0");
	view_start(&v, 1);
	view_add(&v, SC_TS_READY, SC_EV_MUTEX_UNLOCK, 0x100);
	view_add(&v, SC_TS_READY, SC_EV_MUTEX_LOCK, 0x100);
	is_int(p.pick(p.ctx, &v.view), SC_PICK_ABORT,
	       "T1 reached a lock instead of its preemption: abort");
	is_str(p.error(p.ctx), "step 1: T1 should have been preempted at pc "
	       "0x4010 (a spin loop) but it is about to mutex_lock 0x100",
	       "the message says where it should have stopped");
	sc_replay_destroy(&p);
}

/* A shell's $(dirname ...): T1 (dirname) writes to the pipe, T0 (the
 * shell) comes back from its read and reads again, then T1 exits.  T1's
 * write came back within its step (no return event of its own): it is
 * awaited, not released as blocking, or the replay held T1 at an
 * unrecorded return before it closed the pipe and the shell's second
 * read never ended.  T0's first read, whose return is recorded, and a
 * thread whose next event is none other than a return, are released. */
static void test_release(void)
{
	static struct sc_trace_event pipe_run[] = {
		{ .step = 0, .thread = 0, .kind = SC_EV_SYSCALL_BLOCKING,
		  .access = SC_ACC_READ, .object = 3 },
		{ .step = 1, .thread = 1, .kind = SC_EV_SYSCALL_BLOCKING,
		  .access = SC_ACC_WRITE, .object = 1 },
		{ .step = 2, .thread = 0, .kind = SC_EV_SYSCALL_RETURN },
		{ .step = 3, .thread = 0, .kind = SC_EV_SYSCALL_BLOCKING,
		  .access = SC_ACC_READ, .object = 3 },
		{ .step = 4, .thread = 0, .kind = SC_EV_SYSCALL_BLOCKING },
		{ .step = 5, .thread = 1, .kind = SC_EV_PROCESS_EXIT },
		{ .step = 6, .thread = 0, .kind = SC_EV_SYSCALL_RETURN },
	};
	struct sc_trace t;
	struct sc_policy p;
	struct sc_event ev[7];
	char err[256];

	for (size_t i = 0; i < 7; i++)
		ev[i] = (struct sc_event){
			.step = pipe_run[i].step, .thread = pipe_run[i].thread,
			.kind = pipe_run[i].kind, .access = pipe_run[i].access,
			.object = pipe_run[i].object,
		};
	memset(&t, 0, sizeof(t));
	t.events = pipe_run;
	t.nevents = 7;
	t.has_footer = true;
	if (sc_replay_create(&t, &p, err, sizeof(err)) < 0)
		bail_out(err);
	is_int(p.release(p.ctx, &ev[0]), SC_RELEASE_NOW,
	       "a read whose return is a recorded event: released");
	is_int(p.release(p.ctx, &ev[1]), SC_RELEASE_AWAIT,
	       "a write that came back within its step, the others' events "
	       "after it: awaited");
	is_int(p.release(p.ctx, &ev[4]), SC_RELEASE_NOW,
	       "a non-fd syscall with others' events after it: released");
	sc_replay_destroy(&p);
}

/* Two threads fail an assert: T1 writes its message (fd 2) and has no
 * event after it, T2 writes and aborts.  T1's write came back within its
 * step (it then waited in abort()): awaited, unless the run ended stuck,
 * where a thread with no later event may never have come back.  And a
 * system call is told by its pc: dash's rt_sigsuspend where the recording
 * has its wait4, both on descriptor 0, is a divergence, said at once (it
 * was taken for the recorded step and awaited for good). */
static void test_last_write_and_pc(void)
{
	static struct sc_trace_event asserts[] = {
		{ .step = 0, .thread = 1, .kind = SC_EV_SYSCALL_BLOCKING,
		  .access = SC_ACC_WRITE, .object = 2, .pc = 0x30 },
		{ .step = 1, .thread = 2, .kind = SC_EV_SYSCALL_BLOCKING,
		  .access = SC_ACC_WRITE, .object = 2, .pc = 0x30 },
		{ .step = 2, .thread = 2, .kind = SC_EV_SYSCALL_BLOCKING,
		  .object = 0, .pc = 0x40 },
	};
	struct sc_trace t;
	struct sc_policy p;
	struct view_buf v;
	struct sc_event ev0 = { .step = 0, .thread = 1,
		.kind = SC_EV_SYSCALL_BLOCKING, .access = SC_ACC_WRITE,
		.object = 2, .pc = 0x30 };
	char err[256];

	memset(&t, 0, sizeof(t));
	t.events = asserts;
	t.nevents = 3;
	t.has_footer = true;
	t.verdict = SC_VERDICT_ASSERT;
	if (sc_replay_create(&t, &p, err, sizeof(err)) < 0)
		bail_out(err);
	is_int(p.release(p.ctx, &ev0), SC_RELEASE_AWAIT,
	       "an assert's write with no later event of its thread: awaited");
	sc_replay_destroy(&p);
	t.verdict = SC_VERDICT_DEADLOCK;
	if (sc_replay_create(&t, &p, err, sizeof(err)) < 0)
		bail_out(err);
	is_int(p.release(p.ctx, &ev0), SC_RELEASE_NOW,
	       "the same in a run that ended stuck: released");
	sc_replay_destroy(&p);

	t.verdict = SC_VERDICT_ASSERT;
	if (sc_replay_create(&t, &p, err, sizeof(err)) < 0)
		bail_out(err);
	view_start(&v, 0);
	view_add(&v, SC_TS_READY, SC_EV_THREAD_START, 0);
	view_add(&v, SC_TS_READY, SC_EV_SYSCALL_BLOCKING, 2);
	view_add(&v, SC_TS_READY, SC_EV_SYSCALL_BLOCKING, 2);
	v.threads[1].next.pc = 0x30;
	v.threads[2].next.pc = 0x30;
	is_int(p.pick(p.ctx, &v.view), 1, "step 0: T1's write, same pc");
	view_start(&v, 1);
	view_add(&v, SC_TS_READY, SC_EV_THREAD_START, 0);
	view_add(&v, SC_TS_IN_KERNEL, SC_EV_SYSCALL_BLOCKING, 2);
	view_add(&v, SC_TS_READY, SC_EV_SYSCALL_BLOCKING, 2);
	v.threads[2].next.pc = 0x30;
	is_int(p.pick(p.ctx, &v.view), 2, "step 1: T2's write");
	view_start(&v, 2);
	view_add(&v, SC_TS_READY, SC_EV_THREAD_START, 0);
	view_add(&v, SC_TS_IN_KERNEL, SC_EV_SYSCALL_BLOCKING, 2);
	view_add(&v, SC_TS_READY, SC_EV_SYSCALL_BLOCKING, 0);
	v.threads[2].next.pc = 0x50;
	is_int(p.pick(p.ctx, &v.view), SC_PICK_ABORT,
	       "step 2: the same kind and descriptor at another pc: abort");
	ok(strstr(p.error(p.ctx), "at pc 0x40, but it is about to make "
		  "another system call, at pc 0x50") != NULL,
	   "the message gives both pcs");
	sc_replay_destroy(&p);
}

int main(void)
{
	test_follow();
	test_divergences();
	test_timing();
	test_release();
	test_last_write_and_pc();
	return done_testing();
}
