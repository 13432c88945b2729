/*
 * test_strategy_pos.c - POS and POS* (pos-rw) on synthetic views: the
 * enabled event of highest priority runs, only enabled threads are
 * picked, a seed fixes the schedule, a new pending event draws a new
 * priority, and after an event only the pending events that race with it
 * are re-drawn (same object; for pos-rw not two reads).
 */
#include "config.h"

#include <stdint.h>
#include <string.h>

#include "strategy/strategy.h"
#include "tap.h"

#define NTHREADS 4

struct view_buf {
	struct sc_thread_view threads[NTHREADS];
	uint32_t enabled[NTHREADS];
	struct sc_sched_view view;
};

/* Thread i is about to do kinds[i] with access acc[i] on objs[i]; those
 * in mask are enabled. */
static void make_view(struct view_buf *b, unsigned mask, const uint16_t *kinds,
		      const uint8_t *acc, const uint64_t *objs)
{
	size_t n = 0;

	for (uint32_t i = 0; i < NTHREADS; i++) {
		b->threads[i] = (struct sc_thread_view){
			.thread = i,
			.state = (mask >> i) & 1 ? SC_TS_READY : SC_TS_BLOCKED,
			.enabled = (mask >> i) & 1,
			.next = { .thread = i, .kind = kinds[i], .access = acc[i],
				  .object = objs[i], .pc = 0x400000 + 16 * i },
		};
		if ((mask >> i) & 1)
			b->enabled[n++] = i;
	}
	b->view = (struct sc_sched_view){
		.nthreads = NTHREADS, .threads = b->threads,
		.nenabled = n, .enabled = b->enabled,
	};
}

static const uint16_t locks[NTHREADS] = {
	SC_EV_MUTEX_LOCK, SC_EV_MUTEX_LOCK, SC_EV_MUTEX_LOCK, SC_EV_MUTEX_LOCK,
};
static const uint8_t rmw[NTHREADS] = {
	SC_ACC_RMW, SC_ACC_RMW, SC_ACC_RMW, SC_ACC_RMW,
};
/* T0, T1 and T2 on object A, T3 on B. */
static const uint64_t objs[NTHREADS] = { 0xa0, 0xa0, 0xa0, 0xb0 };

static struct sc_policy make_pos(const char *name, uint64_t seed)
{
	const struct sc_strategy *st = sc_strategy_find(name);
	struct sc_policy p = { 0 };
	char err[256];

	if (!st || st->create("", seed, 1, NULL, &p, err, sizeof(err)) < 0)
		bail_out("cannot create the pos strategy");
	return p;
}

static void test_registry(void)
{
	const struct sc_strategy *a = sc_strategy_find("pos");
	const struct sc_strategy *b = sc_strategy_find("pos-rw");
	struct sc_policy p;
	char err[256] = "";

	ok(a && a->create && b && b->create, "pos and pos-rw are registered");
	ok(!sc_strategy_planned("pos") && !sc_strategy_planned("pos-rw"),
	   "neither is planned any more");
	ok(a && a->create("x=1", 1, 1, NULL, &p, err, sizeof(err)) < 0 &&
	   strstr(err, "pos"), "pos rejects parameters: %s", err);
	ok(b && b->create("x=1", 1, 1, NULL, &p, err, sizeof(err)) < 0 &&
	   strstr(err, "pos-rw"), "pos-rw rejects parameters: %s", err);
}

/* The pick is the enabled thread whose pending event has the highest
 * priority; a fixed view keeps its priorities. */
static void test_highest_enabled(void)
{
	struct view_buf v;
	int highest = 1, enabled_only = 1, stable = 1;
	unsigned top_seen = 0;

	for (uint64_t seed = 1; seed <= 200; seed++) {
		struct sc_policy p = make_pos("pos", seed);
		uint64_t pr[NTHREADS];
		int first;

		make_view(&v, 0xf, locks, rmw, objs);
		first = p.pick(p.ctx, &v.view);
		top_seen |= 1u << first;
		for (uint32_t t = 0; t < NTHREADS; t++)
			if (!sc_pos_priority(&p, t, &pr[t]))
				highest = 0;
		for (int i = 0; i < 20; i++)
			stable &= p.pick(p.ctx, &v.view) == first;
		for (unsigned mask = 1; mask < 16; mask++) {
			int k;

			make_view(&v, mask, locks, rmw, objs);
			k = p.pick(p.ctx, &v.view);
			if (k < 0 || k >= NTHREADS || !((mask >> k) & 1)) {
				enabled_only = 0;
				continue;
			}
			for (uint32_t t = 0; t < NTHREADS; t++)
				if (((mask >> t) & 1) && pr[t] > pr[k])
					highest = 0;
		}
		sc_pos_destroy(&p);
	}
	ok(highest, "the enabled event of highest priority is picked");
	ok(enabled_only, "only enabled threads are picked");
	ok(stable, "priorities stay while the pending events stay");
	is_int(top_seen, 0xf, "over 200 seeds each thread comes first sometimes");
}

static void test_deterministic(void)
{
	struct sc_policy a = make_pos("pos", 7), b = make_pos("pos", 7),
			 c = make_pos("pos", 8);
	struct view_buf v;
	int same = 1, differ = 0;

	make_view(&v, 0xf, locks, rmw, objs);
	for (int i = 0; i < 100; i++) {
		int pa = a.pick(a.ctx, &v.view);
		int pb = b.pick(b.ctx, &v.view);
		int pc = c.pick(c.ctx, &v.view);
		struct sc_event ev = v.threads[pa].next;

		same &= pa == pb;
		differ |= pa != pc;
		/* Every thread executes what POS a picked. */
		a.executed(a.ctx, &ev);
		b.executed(b.ctx, &ev);
		ev = v.threads[pc].next;
		c.executed(c.ctx, &ev);
	}
	ok(same, "same seed, same 100 picks");
	ok(differ, "another seed, another schedule");
	sc_pos_destroy(&a);
	sc_pos_destroy(&b);
	sc_pos_destroy(&c);
}

/* After T0 executes a lock of A: T1 and T2 (on A) get new priorities,
 * T3 (on B) keeps its own, and T0's next event draws a new one. */
static void test_redraw_racing(void)
{
	struct view_buf v;
	struct sc_policy p = make_pos("pos", 11);
	struct sc_event ev;
	uint64_t before[NTHREADS], after[NTHREADS];
	int have = 1;

	make_view(&v, 0xf, locks, rmw, objs);
	p.pick(p.ctx, &v.view);
	for (uint32_t t = 0; t < NTHREADS; t++)
		have &= sc_pos_priority(&p, t, &before[t]);
	ok(have, "priorities are drawn at the first pick");
	ev = v.threads[0].next;
	p.executed(p.ctx, &ev);
	ok(!sc_pos_priority(&p, 0, &after[0]) && !sc_pos_priority(&p, 1, &after[1])
	   && !sc_pos_priority(&p, 2, &after[2]),
	   "the executed event and those racing with it wait for a new draw");
	v.threads[0].next.kind = SC_EV_MUTEX_UNLOCK;
	p.pick(p.ctx, &v.view);
	have = sc_pos_priority(&p, 0, &after[0]) &&
	       sc_pos_priority(&p, 1, &after[1]) &&
	       sc_pos_priority(&p, 2, &after[2]) &&
	       sc_pos_priority(&p, 3, &after[3]);
	ok(have, "the next choice draws them");
	ok(after[1] != before[1] && after[2] != before[2],
	   "events on the same object are re-drawn");
	ok(after[3] == before[3], "an event on another object keeps its priority");
	ok(after[0] != before[0], "the executing thread's next event got a "
	   "priority of its own");
	sc_pos_destroy(&p);

	/* Object 0 races with nothing. */
	p = make_pos("pos", 12);
	p.pick(p.ctx, &v.view);
	for (uint32_t t = 0; t < NTHREADS; t++)
		sc_pos_priority(&p, t, &before[t]);
	ev = (struct sc_event){ .thread = 0, .kind = SC_EV_THREAD_CREATE };
	p.executed(p.ctx, &ev);
	p.pick(p.ctx, &v.view);
	have = 1;
	for (uint32_t t = 1; t < NTHREADS; t++)
		have &= sc_pos_priority(&p, t, &after[t]) && after[t] == before[t];
	ok(have, "an event without an object re-draws nothing");
	sc_pos_destroy(&p);
}

/* pos-rw: two reads do not race; a read and a write do.  pos: any two
 * accesses of the same object race. */
static void test_read_only_relaxation(void)
{
	static const uint16_t mem[NTHREADS] = {
		SC_EV_MEM_READ, SC_EV_MEM_READ, SC_EV_MEM_WRITE, SC_EV_MEM_READ,
	};
	static const uint8_t acc[NTHREADS] = {
		SC_ACC_READ, SC_ACC_READ, SC_ACC_WRITE, SC_ACC_READ,
	};
	static const uint64_t obj[NTHREADS] = { 0xc0, 0xc0, 0xc0, 0xd0 };
	struct view_buf v;
	uint64_t before[NTHREADS], after[NTHREADS];
	struct sc_event ev;
	struct sc_policy p;

	make_view(&v, 0xf, mem, acc, obj);
	p = make_pos("pos-rw", 21);
	p.pick(p.ctx, &v.view);
	for (uint32_t t = 0; t < NTHREADS; t++)
		sc_pos_priority(&p, t, &before[t]);
	ev = v.threads[0].next;        /* T0 reads 0xc0 */
	p.executed(p.ctx, &ev);
	p.pick(p.ctx, &v.view);
	for (uint32_t t = 1; t < NTHREADS; t++)
		sc_pos_priority(&p, t, &after[t]);
	ok(after[1] == before[1], "pos-rw: a read does not re-draw another read");
	ok(after[2] != before[2], "pos-rw: a read re-draws a write of the object");
	ok(after[3] == before[3], "pos-rw: other objects keep their priority");
	sc_pos_destroy(&p);

	p = make_pos("pos", 21);
	p.pick(p.ctx, &v.view);
	for (uint32_t t = 0; t < NTHREADS; t++)
		sc_pos_priority(&p, t, &before[t]);
	p.executed(p.ctx, &ev);
	p.pick(p.ctx, &v.view);
	for (uint32_t t = 1; t < NTHREADS; t++)
		sc_pos_priority(&p, t, &after[t]);
	ok(after[1] != before[1] && after[2] != before[2],
	   "pos: a read re-draws every event on the object");
	ok(after[3] == before[3], "pos: other objects keep their priority");
	sc_pos_destroy(&p);
}

/* A pending event that changes without its thread running (a woken
 * waiter) draws a new priority. */
static void test_changed_event(void)
{
	struct view_buf v;
	struct sc_policy p = make_pos("pos", 31);
	uint64_t before, after;

	make_view(&v, 0x7, locks, rmw, objs);
	v.threads[3].next.kind = SC_EV_FUTEX_WAIT;
	p.pick(p.ctx, &v.view);
	sc_pos_priority(&p, 3, &before);
	v.threads[3].next.kind = SC_EV_WAIT_RETURN;
	p.pick(p.ctx, &v.view);
	sc_pos_priority(&p, 3, &after);
	ok(before != after, "a changed pending event draws a new priority");
	sc_pos_destroy(&p);
}

/* Steps with one enabled thread consume no randomness: a session with
 * extra sequential steps (a slow syscall's return) makes the same choices
 * afterwards. */
static void test_single_choice_free(void)
{
	struct sc_policy a = make_pos("pos", 51), b = make_pos("pos", 51);
	struct view_buf v, one;
	int same = 1;

	make_view(&v, 0xf, locks, rmw, objs);
	make_view(&one, 0x1, locks, rmw, objs);
	for (int i = 0; i < 50; i++) {
		int pa, pb;
		struct sc_event ev;

		if (i % 3 == 0) {
			struct sc_event ret = { .thread = 0,
				.kind = SC_EV_SYSCALL_RETURN };

			one.threads[0].next.kind = SC_EV_SYSCALL_RETURN;
			same &= b.pick(b.ctx, &one.view) == 0;
			b.executed(b.ctx, &ret);
		}
		pa = a.pick(a.ctx, &v.view);
		pb = b.pick(b.ctx, &v.view);
		same &= pa == pb;
		ev = v.threads[pa].next;
		a.executed(a.ctx, &ev);
		b.executed(b.ctx, &ev);
	}
	ok(same, "single-choice steps do not change the later choices");
	{
		struct sc_event sys = { .kind = SC_EV_SYSCALL_BLOCKING };
		struct sc_sched_view alone = one.view;

		alone.nthreads = 1;
		a.pick(a.ctx, &alone);
		is_int(a.release(a.ctx, &sys), SC_RELEASE_AWAIT,
		       "the only live thread's syscall is awaited");
		a.pick(a.ctx, &one.view);
		is_int(a.release(a.ctx, &sys), SC_RELEASE_AUTO,
		       "with other threads alive, the engine decides");
	}
	sc_pos_destroy(&a);
	sc_pos_destroy(&b);
}

static void test_wake(void)
{
	struct sc_policy p = make_pos("pos-rw", 41);
	struct sc_event waker = { .kind = SC_EV_FUTEX_WAKE, .object = 0x10 };
	uint32_t waiters[4] = { 2, 0, 3, 1 }, out[4];
	unsigned seen = 0;
	int valid = 1;

	for (int i = 0; i < 300; i++) {
		size_t n = p.pick_wake(p.ctx, &waker, waiters, 4, 2, out);

		valid &= n == 2 && out[0] < out[1] && out[1] < 4;
		for (size_t k = 0; k < n && k < 4; k++)
			seen |= 1u << out[k];
	}
	ok(valid, "wakes of 2 of 4 are valid subsets");
	is_int(seen, 0xf, "every waiter gets woken sometimes");
	is_int((long long)p.pick_wake(p.ctx, &waker, waiters, 4, 9, out), 4,
	       "wake all: every waiter");
	sc_pos_destroy(&p);
}

/* Thread creation runs before any draw, whoever has it pending, and
 * does not use up randomness; a program that creates threads forever
 * still lets the priorities decide after a while. */
static void test_creation_first(void)
{
	struct sc_policy a = make_pos("pos", 61), b = make_pos("pos", 61);
	struct view_buf v;
	uint16_t kinds[NTHREADS];
	int first = 1, same = 1, others = 0;

	for (int k = 0; k < 3; k++) {
		static const uint16_t creation[3] = {
			SC_EV_LIB_CREATE, SC_EV_THREAD_CREATE, SC_EV_THREAD_START,
		};

		for (int i = 0; i < NTHREADS; i++)
			kinds[i] = SC_EV_MUTEX_LOCK;
		kinds[2] = creation[k];
		make_view(&v, 0xf, kinds, rmw, objs);
		first &= a.pick(a.ctx, &v.view) == 2;
	}
	ok(first, "a pending pthread_create, clone or thread start runs first");
	/* b drew nothing for them: its next choice among locks is a's. */
	for (int i = 0; i < NTHREADS; i++)
		kinds[i] = SC_EV_MUTEX_LOCK;
	make_view(&v, 0xf, kinds, rmw, objs);
	same = a.pick(a.ctx, &v.view) == b.pick(b.ctx, &v.view);
	ok(same, "picking them draws no priority");
	kinds[1] = SC_EV_THREAD_START;
	make_view(&v, 0xf, kinds, rmw, objs);
	for (int i = 0; i < 1000; i++)
		others += a.pick(a.ctx, &v.view) != 1;
	ok(others > 0, "endless creation lets the others run (%d of 1000)",
	   others);
	sc_pos_destroy(&a);
	sc_pos_destroy(&b);
}

int main(void)
{
	test_registry();
	test_highest_enabled();
	test_deterministic();
	test_redraw_racing();
	test_read_only_relaxation();
	test_changed_event();
	test_single_choice_free();
	test_wake();
	test_creation_first();
	return done_testing();
}
