/* preempt_replay.c - replay stops a thread where the recording preempted
 * it: at the first hit of the recorded pc with the recorded state.
 *
 * A spin is found at once: its loop reaches the recorded state on its
 * first turn (or, when a register holds a byte that differs from run to
 * run, its state repeats, which is as good).
 *
 * A computation ran for tens of milliseconds before it was preempted, and
 * a breakpoint hit costs about 20 us, so scanning every hit of a tight
 * loop would take minutes.  Instead the thread runs freely part of the
 * way, then two hits of the pc show which registers count the loop (a
 * register that changed by d between them and whose recorded value is a
 * whole number k of such steps ahead): k is how many hits are left.  Two
 * such estimates a known CPU time apart give the speed, the thread runs
 * freely for half the time that is left, and so on, until few hits are
 * left; those are scanned one by one.  A loop without such a counter is
 * scanned all the way (slow, but exact).
 *
 * The CPU clock counts more than the loop's progress: time the
 * hypervisor gave to other machines, a hyperthread sibling that is busy
 * or idle.  So the speed that plans a free run is the fastest measured
 * (load only ever makes a thread look slower), a free run covers only
 * part of what is left at that speed and at most twice the span the
 * speed was measured over, and the supervisor waits for its
 * end at real-time priority: on a busy machine its wake-up would
 * otherwise queue behind other programs while the target runs on past
 * the point (an overshoot cannot be undone: the replay diverges).  What
 * is left after the last free run is scanned hit by hit.
 */
#include <sched.h>
#include <stdint.h>
#include <string.h>
#include <sys/ptrace.h>

#include "internal.h"

/* The first free run is this share (in 1/100) of the recorded CPU time:
 * the recording may have run a few times slower per CPU nanosecond than
 * the replay (a loaded machine, a busy hyperthread sibling, stolen
 * time). */
#define FIRST_FREE_PERCENT 25
/* Later free runs cover this share of the time left at the fastest
 * speed measured. */
#define NEXT_FREE_PERCENT 40
/* Free runs shorter than this are not worth it (the supervisor looks
 * at the CPU clock about every 50 us): scan instead. */
#define MIN_FREE_NS 300000u
/* How late a free run may stop at first (measured: 0.1 ms on a quiet
 * machine, up to 3 ms with three busy programs per CPU and no
 * real-time priority); the worst lateness measured later replaces it
 * when larger. */
#define LATE_NS 1000000u
/* Without an estimate of the speed yet, a free run of this much. */
#define PROBE_FREE_NS 1000000u
/* Scan at most this many hits past the estimate before sampling again. */
#define SCAN_SLACK 64

/* While the target runs freely the supervisor sleeps; pinned to the
 * target's CPU it would wake up only when the scheduler preempts the
 * target, milliseconds late.  Let it wake up on any CPU meanwhile, ahead
 * of every ordinary program (where it may: root or CAP_SYS_NICE; the
 * target never inherits it). */
static void unpin(struct sc_engine *e)
{
	struct sched_param rt = { .sched_priority = 1 };

	if (e->pinned && !e->unpinned &&
	    sched_setaffinity(0, sizeof(e->unpinned_cpus),
			      &e->unpinned_cpus) == 0)
		e->unpinned = true;
	if (!e->boosted &&
	    sched_setscheduler(0, SCHED_FIFO | SCHED_RESET_ON_FORK, &rt) == 0)
		e->boosted = true;
}

static void repin(struct sc_engine *e)
{
	cpu_set_t one;

	sc_engine_unboost(e);
	if (!e->unpinned)
		return;
	CPU_ZERO(&one);
	CPU_SET(e->cfg->cpu, &one);
	if (sched_setaffinity(0, sizeof(one), &one) == 0)
		e->unpinned = false;
}

void sc_engine_unboost(struct sc_engine *e)
{
	struct sched_param normal = { .sched_priority = 0 };

	if (e->boosted && sched_setscheduler(0, SCHED_OTHER, &normal) == 0)
		e->boosted = false;
}

static void start_free_run(struct sc_engine *e, struct sc_thread *t,
			   uint64_t free_ns)
{
	unpin(e);
	sc_preempt_remove_bp(t);
	t->probe = PROBE_REPLAY_FREE;
	t->cpu_at_resume_ns = sc_process_cpu_ns(t->proc->pid);
	t->slice_budget_ns = free_ns;
	t->next_check_us = sc_now_us() + free_ns / 1000u;
}

static void start_scan(struct sc_thread *t, uint64_t limit)
{
	t->probe = PROBE_REPLAY_SCAN;
	t->nprobe_hashes = 0;
	t->scan_hits = 0;
	t->scan_limit = limit;
}

void sc_preempt_replay_arm(struct sc_engine *e, struct sc_thread *t)
{
	uint64_t share = t->target.cpu_ns / 100u * FIRST_FREE_PERCENT;
	uint64_t free_ns = share > 2u * LATE_NS ? share - 2u * LATE_NS : 0;

	t->have_estimate = false;
	t->top_hits_per_ns = 0;
	t->sample_hits = 0;
	t->late_ns = LATE_NS;
	t->replay_cpu0_ns = sc_process_cpu_ns(t->proc->pid);
	if ((t->target.preempt_flags & SC_PREEMPT_BUDGET) &&
	    free_ns >= MIN_FREE_NS) {
		start_free_run(e, t, free_ns);
		return;
	}
	if (sc_preempt_plant_bp(t, t->target.pc) != 0)
		t->probe = PROBE_NONE;
	else if (t->target.has_regs)
		t->probe = PROBE_REPLAY_SAMPLE;
	else
		start_scan(t, UINT64_MAX);
}

/* The free run is over (t stopped for our interrupt): put the breakpoint
 * back and look at the next two hits. */
void sc_preempt_replay_sample(struct sc_engine *e, struct sc_thread *t)
{
	uint64_t used = sc_preempt_cpu_used(t);

	repin(e);
	/* How late the supervisor stopped it: later free runs keep twice
	 * that much short of the estimate. */
	if (used > t->slice_budget_ns && used - t->slice_budget_ns > t->late_ns)
		t->late_ns = used - t->slice_budget_ns;
	sc_regs_fetch(t);
	t->sample_hits = 0;
	t->nprobe_hashes = 0;
	t->probe = sc_preempt_plant_bp(t, t->target.pc) == 0
		   ? PROBE_REPLAY_SAMPLE : PROBE_NONE;
	sc_resume(t, PTRACE_CONT);
}

/* Hits of the pc left until the recorded registers, from two consecutive
 * hits a and b: a register that went from a to b by d and whose recorded
 * value is b + k d votes for k; the k with the most votes wins (a loop
 * counter and a pointer stepping through an array agree), the smaller on
 * a tie.  Not rip, the flags or fs_base.  False when no register counts
 * like that. */
bool sc_preempt_hits_left(const uint64_t *a, const uint64_t *b,
			  const uint64_t *want, uint64_t *k)
{
	uint64_t q[SC_PREEMPT_REGS];
	int nq = 0, best_votes = 0;

	*k = UINT64_MAX;
	for (int r = 0; r < SC_PREEMPT_REGS; r++) {
		if (r == 15 || r == 16 || r == 18)
			continue;
		int64_t d = (int64_t)(b[r] - a[r]);
		int64_t diff = (int64_t)(want[r] - b[r]);

		if (d == 0 || diff == 0 || (d == -1 && diff == INT64_MIN) ||
		    diff % d != 0 || diff / d < 0)
			continue;
		q[nq++] = (uint64_t)(diff / d);
	}
	for (int i = 0; i < nq; i++) {
		int votes = 0;
		for (int j = 0; j < nq; j++)
			votes += q[j] == q[i];
		if (votes > best_votes || (votes == best_votes && q[i] < *k)) {
			best_votes = votes;
			*k = q[i];
		}
	}
	return nq > 0;
}

/* Two hits of a sample seen: how far is the target, and how to get
 * there. */
static void plan_from_sample(struct sc_engine *e, struct sc_thread *t,
			     const uint64_t *now_regs)
{
	uint64_t k, cpu = sc_process_cpu_ns(t->proc->pid);

	if (!sc_preempt_hits_left(t->sample_regs, now_regs, t->target.regs, &k)) {
		start_scan(t, UINT64_MAX);      /* no counter: scan it all */
		return;
	}
	uint64_t free_ns = PROBE_FREE_NS;
	/* Before any speed is known, the recorded CPU time says roughly
	 * how much is left: too little for a free run that may stop a tick
	 * late, scan. */
	uint64_t ran = cpu > t->replay_cpu0_ns ? cpu - t->replay_cpu0_ns : 0;
	if (!t->have_estimate &&
	    ran + PROBE_FREE_NS + 2u * t->late_ns > t->target.cpu_ns) {
		start_scan(t, k + SCAN_SLACK);
		return;
	}
	if (t->have_estimate && t->hits_left > k && cpu > t->estimate_cpu_ns) {
		double per_ns = (double)(t->hits_left - k) /
				(double)(cpu - t->estimate_cpu_ns);
		if (per_ns > t->top_hits_per_ns)
			t->top_hits_per_ns = per_ns;
		double left_ns = (double)k / t->top_hits_per_ns;
		double run_ns = left_ns / 100.0 * NEXT_FREE_PERCENT -
				2.0 * (double)t->late_ns;
		/* One slow measurement (the thread's CPU clock ran while
		 * the machine ran others) must not plan a long run: at most
		 * twice the span just measured, then measure again. */
		double span_ns = (double)(cpu - t->estimate_cpu_ns);
		if (run_ns > 2.0 * span_ns)
			run_ns = 2.0 * span_ns;
		free_ns = run_ns > 0 ? (uint64_t)run_ns : 0;
	} else if (t->have_estimate) {
		start_scan(t, k + SCAN_SLACK);   /* no progress measured */
		return;
	}
	t->have_estimate = true;
	t->hits_left = k;
	t->estimate_cpu_ns = cpu;
	if (free_ns < MIN_FREE_NS || k <= SCAN_SLACK) {
		start_scan(t, k + SCAN_SLACK);
		return;
	}
	start_free_run(e, t, free_ns);
}

void sc_preempt_replay_hit(struct sc_engine *e, struct sc_thread *t)
{
	uint64_t h = sc_preempt_state_hash(t);
	bool full_up = false, spin = t->target.preempt_flags & SC_PREEMPT_SPIN;

	if (h == t->target.state) {
		sc_preempt_here(e, t, h, t->target.preempt_flags);
		return;
	}
	/* A spin whose state differs from the recorded one (a register
	 * holds a byte that differs from run to run): any turn of it will
	 * do, once it is known to be one, as when recording. */
	if (spin) {
		enum sc_spin s = sc_preempt_spin_check(
			t, sc_preempt_full_hash(t, h), &full_up);
		if (s == SC_SPIN_YES) {
			sc_preempt_here(e, t, h, t->target.preempt_flags);
			return;
		}
		if (s == SC_SPIN_NO)
			full_up = true;
	}
	if (full_up)
		t->nprobe_hashes = 0;
	if (t->probe == PROBE_REPLAY_SAMPLE && t->target.has_regs) {
		uint64_t regs[SC_PREEMPT_REGS];
		sc_preempt_state_words(t, regs);
		if (t->sample_hits++ == 0)
			memcpy(t->sample_regs, regs, sizeof(regs));
		else
			plan_from_sample(e, t, regs);
	} else if (t->probe == PROBE_REPLAY_SAMPLE) {
		start_scan(t, UINT64_MAX);
	} else if (++t->scan_hits > t->scan_limit && t->target.has_regs) {
		/* Past the estimate: the counter was not the loop's own
		 * (nested loops); look again. */
		t->probe = PROBE_REPLAY_SAMPLE;
		t->sample_hits = 0;
		t->have_estimate = false;
		t->top_hits_per_ns = 0;   /* another counter, other units */
	}
	sc_preempt_go_on(e, t);
}
