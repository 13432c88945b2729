/*
 * test_strategy_urw.c - urw and surw: determinism, only enabled threads,
 * weights from the session's per-thread event averages (remaining =
 * max(1, estimate - done), unknown threads at the mean), picks in
 * proportion to the weights, surw keeps the running thread at events on
 * objects that are not shared.
 */
#include "config.h"

#include <math.h>
#include <string.h>

#include "strategy_view.h"

static void test_determinism(void)
{
	const char *names[] = { "urw", "surw" };

	for (size_t i = 0; i < 2; i++) {
		int en1, en2;
		struct sc_policy p;
		char err[256];

		ok(same_schedule(names[i], "", 21, 21, 2000, &en1) && en1,
		   "%s: a seed gives one schedule, only enabled threads",
		   names[i]);
		ok(!same_schedule(names[i], "", 21, 22, 2000, &en2) && en2,
		   "%s: another seed another one", names[i]);
		ok(sc_strategy_find(names[i])->create("x=1", 1, 1, NULL, &p, err,
						      sizeof(err)) < 0,
		   "%s rejects parameters: %s", names[i], err);
	}
}

static void test_weights(void)
{
	struct sc_strategy_session s;
	struct sc_policy p;
	int count[NTHREADS] = { 0 }, n = 30000;

	memset(&s, 0, sizeof(s));
	/* T0 averaged 10 events, T1 100, T2 400 (two runs); T3.. unknown. */
	s.learn.thread_events[0] = 20;
	s.learn.thread_runs[0] = 2;
	s.learn.thread_events[1] = 200;
	s.learn.thread_runs[1] = 2;
	s.learn.thread_events[2] = 800;
	s.learn.thread_runs[2] = 2;
	p = make_policy("urw", "", 1, 3, &s);
	is_int((long long)sc_urw_weight(&p, 0), 10, "T0: weight 10");
	is_int((long long)sc_urw_weight(&p, 2), 400, "T2: weight 400");
	is_int((long long)sc_urw_weight(&p, 5), 170,
	       "an unknown thread: the mean, (20+200+800)/6 = 170");
	/* Proportional: enable T1 and T2 only (weights 100 : 400 at the
	 * start; they shrink as events run, so look at the first pick of
	 * many fresh policies). */
	destroy_policy("urw", &p);
	for (int k = 0; k < n / 10; k++) {
		static struct sc_strategy_session copy;

		copy = s;   /* destroy() learns: keep s as it was */
		p = make_policy("urw", "", (uint64_t)k + 100, 3, &copy);
		count[step_policy(&p, 0x6, 0, NULL)]++;
		destroy_policy("urw", &p);
	}
	ok(fabs((double)count[2] / (n / 10) - 0.8) < 0.04,
	   "T2 drawn in proportion 400/(100+400) (%d of %d)", count[2], n / 10);
	/* Done events lower the weight, never below 1. */
	p = make_policy("urw", "", 1, 3, &s);
	for (int k = 0; k < 30; k++)
		step_policy(&p, 0x1, (uint64_t)k, NULL);
	is_int((long long)sc_urw_weight(&p, 0), 1,
	       "T0 after 30 of its 10 expected events: weight 1");
	destroy_policy("urw", &p);
	ok(s.runs == 2 && s.learn.thread_runs[0] == 3 &&
	   s.learn.thread_events[0] == 50,
	   "destroy() folds the run into the session");
}

static void test_surw(void)
{
	struct sc_strategy_session s;
	struct sc_policy p;
	uint64_t objects[NTHREADS], shared = 0x9000;
	int first, kept = 1, moved = 0, cur, switches = 0;

	memset(&s, 0, sizeof(s));
	/* Private objects: surw keeps the running thread. */
	for (int i = 0; i < NTHREADS; i++)
		objects[i] = 0x2000 + (uint64_t)i;
	p = make_policy("surw", "", 17, 1, &s);
	first = step_policy(&p, 0x3f, 0, objects);
	for (int k = 1; k <= 64; k++)
		kept &= step_policy(&p, 0x3f, (uint64_t)k, objects) == first;
	ok(kept, "surw: the running thread keeps running at private events");
	/* ... for 64 decisions in a row at most: then the walk draws again,
	 * so that a poller cannot starve the thread that would end its
	 * wait. */
	cur = first;
	for (int k = 65; k < 200; k++) {
		int pick = step_policy(&p, 0x3f, (uint64_t)k, objects);
		switches += pick != cur;
		cur = pick;
	}
	ok(switches >= 1 && switches <= 3,
	   "surw: after 64 kept decisions the walk draws again (%d switches "
	   "in 135 private events)", switches);
	/* A shared object (touched by two threads): a weighted choice. */
	sc_learn_touch(&s.learn, shared, 0);
	sc_learn_touch(&s.learn, shared, 1);
	ok(sc_learn_shared(&s.learn, shared) &&
	   !sc_learn_shared(&s.learn, 0x2000), "the session knows shared objects");
	for (int i = 0; i < NTHREADS; i++)
		objects[i] = shared;
	first = cur;
	for (int k = 200; k < 400; k++)
		moved += step_policy(&p, 0x3f, (uint64_t)k, objects) != first;
	ok(moved > 100, "surw: threads are drawn at shared events (%d of 200 "
	   "picks moved)", moved);
	destroy_policy("surw", &p);
}

/* A run of identical loads or compare-and-swaps is a spin; anything else
 * in between, or another pc, object or thread, starts the count again;
 * other kinds never spin. */
static void test_spin_watch(void)
{
	struct sc_spin_watch w = { 0 };
	struct sc_event read = { .thread = 1, .kind = SC_EV_MEM_READ,
				 .pc = 0x401000, .object = 0x4040 };
	struct sc_event lock = { .thread = 1, .kind = SC_EV_MUTEX_LOCK,
				 .pc = 0x401100, .object = 0x4080 };
	int first = -1;

	for (int k = 1; k <= 12 && first < 0; k++)
		if (sc_spin_watch_event(&w, &read))
			first = k;
	is_int(first, SC_SPIN_REPEATS, "the 8th identical load in a row is a spin");
	ok(!sc_spin_watch_event(&w, &lock), "a lock in between ends it");
	ok(!sc_spin_watch_event(&w, &read), "and the count starts again");
	read.thread = 2;
	ok(!sc_spin_watch_event(&w, &read), "another thread's load is not the same");
	memset(&w, 0, sizeof(w));
	bool spun = false;
	for (int k = 0; k < 20; k++)
		spun |= sc_spin_watch_event(&w, &lock);
	ok(!spun, "20 identical lock calls are not a spin");
}

int main(void)
{
	test_determinism();
	test_weights();
	test_surw();
	test_spin_watch();
	return done_testing();
}
