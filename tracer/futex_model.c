/* futex_model.c - the supervisor's own futex implementation.
 *
 * No controlled thread ever sleeps in the kernel on a futex: a FUTEX_WAIT
 * whose value matches leaves the thread stopped at its seccomp stop
 * (TH_BLOCKED); a wake picks waiters (a policy choice, recorded in the
 * trace) and completes their calls with 0 by skipping the syscall; the
 * waker's own call is skipped too and returns the modelled count.  Because
 * one thread runs at a time, reading and writing the futex words here is
 * atomic with respect to the target.  Semantics follow futex(2) and
 * kernel/futex/ (waitwake.c, requeue.c) for the operations glibc uses.
 */
#include <errno.h>
#include <linux/futex.h>
#include <stdlib.h>

#include "internal.h"

#define BITSET_ANY 0xffffffffu

static void complete(struct sc_thread *t, int64_t ret)
{
	t->skip_syscall = true;
	t->skip_ret = ret;
}

static int cmp_seq(const void *a, const void *b)
{
	const struct sc_thread *x = *(struct sc_thread *const *)a;
	const struct sc_thread *y = *(struct sc_thread *const *)b;
	return x->wait_seq < y->wait_seq ? -1 : x->wait_seq > y->wait_seq;
}

/* The blocked threads of ours (of proc only, unless NULL) that match,
 * oldest wait first.  Returns the count; *out is malloc'd (NULL when
 * none). */
static size_t collect_blocked(struct sc_engine *e,
			      const struct sc_process *proc,
			      bool (*match)(const struct sc_thread *w,
					    const void *ctx),
			      const void *ctx, struct sc_thread ***out)
{
	size_t n = 0;
	struct sc_thread **v = NULL;

	*out = NULL;
	for (size_t i = 0; i < e->nthreads; i++) {
		struct sc_thread *w = e->threads[i];
		if (!w->controlled || w->state != TH_BLOCKED ||
		    (proc && w->proc != proc) || !match(w, ctx))
			continue;
		struct sc_thread **nv = realloc(v, (n + 1) * sizeof(*v));
		if (!nv)
			break;
		v = nv;
		v[n++] = w;
	}
	if (n > 1)
		qsort(v, n, sizeof(*v), cmp_seq);
	*out = v;
	return n;
}

struct futex_key {
	uint64_t addr;
	uint32_t bitset;
};

static bool waits_on(const struct sc_thread *w, const void *ctx)
{
	const struct futex_key *k = ctx;

	return w->wait_addr == k->addr && (w->wait_bitset & k->bitset);
}

/* Blocked threads waiting on addr whose bitset intersects, oldest first.
 * Followed processes have their own address spaces: the same address is
 * a different futex in another process (proc). */
static size_t collect_waiters(struct sc_engine *e, struct sc_process *proc,
			      uint64_t addr, uint32_t bitset,
			      struct sc_thread ***out)
{
	const struct futex_key k = { addr, bitset };

	return collect_blocked(e, proc, waits_on, &k, out);
}

static void release_waiter(struct sc_engine *e, struct sc_thread *w)
{
	w->state = TH_READY;
	w->wait_timed = false;
	w->next.kind = SC_EV_WAIT_RETURN;
	w->next.access = SC_ACC_NONE;
	complete(w, 0);
	if (e->nwoken < sizeof(e->woken) / sizeof(e->woken[0]))
		e->woken[e->nwoken++] = w->logical;
}

/* A signal sent to w, blocked in our model of FUTEX_WAIT: in the kernel
 * its wait would be interrupted to run the handler (pthread_cancel of a
 * thread in pthread_cond_wait, sem_wait or pthread_join: the handler
 * unwinds it).  Its call returns EINTR, which every futex user takes for
 * a spurious wake-up, and the signal is delivered as it returns. */
void sc_futex_interrupt(struct sc_thread *w)
{
	w->state = TH_READY;
	w->wait_timed = false;
	w->next.kind = SC_EV_WAIT_RETURN;
	w->next.access = SC_ACC_NONE;
	complete(w, -EINTR);
}

/* Release nwake of the nw waiters w[] (oldest first), as the policy
 * picks them: a choice of the schedule, which a replay makes as
 * recorded.  Frees w.  Returns how many were released. */
static size_t pick_and_release(struct sc_engine *e, struct sc_thread *waker,
			       struct sc_thread **w, size_t nw, size_t nwake)
{
	size_t done = 0;

	if (nw == 0 || nwake == 0) {
		free(w);
		return 0;
	}
	if (nwake > nw)
		nwake = nw;
	uint32_t *ids = malloc(nw * sizeof(*ids));
	uint32_t *chosen = malloc(nw * sizeof(*chosen));
	if (!ids || !chosen)
		goto out;
	for (size_t i = 0; i < nw; i++)
		ids[i] = w[i]->logical;
	size_t k;
	const struct sc_policy *pol = e->cfg->policy;
	if (pol->pick_wake) {
		struct sc_event ev = waker ? waker->next : (struct sc_event){ 0 };
		k = pol->pick_wake(pol->ctx, &ev, ids, nw, nwake, chosen);
		if (k == SIZE_MAX) {
			sc_engine_abort(e, NULL);
			goto out;
		}
	} else {
		for (k = 0; k < nwake; k++)
			chosen[k] = (uint32_t)k;
	}
	for (size_t i = 0; i < k && i < nwake; i++) {
		if (chosen[i] >= nw || w[chosen[i]]->state != TH_BLOCKED)
			continue;
		release_waiter(e, w[chosen[i]]);
		done++;
	}
out:
	free(ids);
	free(chosen);
	free(w);
	return done;
}

size_t sc_wake_waiters(struct sc_engine *e, struct sc_thread *waker,
		       uint64_t addr, uint32_t bitset, size_t nwake)
{
	struct sc_thread **w;
	size_t nw = collect_waiters(e, waker ? waker->proc : NULL, addr, bitset, &w);

	return pick_and_release(e, waker, w, nw, nwake);
}

static int read_word(struct sc_thread *t, uint64_t addr, uint32_t *val)
{
	return sc_mem_read(t->proc, addr, val, sizeof(*val));
}

/* Was t sent a signal it has not taken yet (pthread_cancel while t was
 * on its way into pthread_join)?  The kernel's wait would return at once
 * to run its handler.  Looked at only after a thread of ours sent it
 * one: reading /proc at every wait would cost more than the wait. */
static bool signal_pending(struct sc_thread *t)
{
	uint64_t pending, blocked;

	if (!t->signal_sent)
		return false;
	t->signal_sent = false;
	return sc_thread_signals(t->proc->pid, t->tid, &pending, &blocked) == 0 &&
	       (pending & ~blocked) != 0;
}

/* Where the timeout of t's FUTEX_WAIT (relative to now) or
 * FUTEX_WAIT_BITSET (absolute, on the monotonic clock or with
 * FUTEX_CLOCK_REALTIME the wall clock: what pthread_cond_timedwait,
 * sem_timedwait and pthread_mutex_timedlock pass) falls in virtual time.
 * The program computed an absolute one from the virtual clock. */
static uint64_t wait_due_vns(const struct sc_engine *e, struct sc_thread *t)
{
	int op = (int)t->regs.rsi;
	uint64_t ns;

	if (!sc_read_timespec_ns(t->proc, t->regs.r10, &ns))
		return 0;
	if ((op & FUTEX_CMD_MASK) != FUTEX_WAIT_BITSET)
		return ns < SC_TIMESPEC_MAX_NS ? sc_vclock_now_ns(e) + ns : 0;
	return sc_vclock_abs_vns(e, (op & FUTEX_CLOCK_REALTIME)
				    ? CLOCK_REALTIME : CLOCK_MONOTONIC, ns);
}

static void do_wait(struct sc_engine *e, struct sc_thread *t, bool bitset_op)
{
	uint64_t addr = t->regs.rdi;
	uint32_t expected = (uint32_t)t->regs.rdx, cur;
	uint32_t bitset = bitset_op ? (uint32_t)t->regs.r9 : BITSET_ANY;

	if (bitset == 0) {
		complete(t, -EINVAL);
		return;
	}
	if (read_word(t, addr, &cur) < 0) {
		complete(t, -EFAULT);
		return;
	}
	if (cur != expected) {
		complete(t, -EAGAIN);
		return;
	}
	if (signal_pending(t)) {
		complete(t, -EINTR);
		return;
	}
	t->state = TH_BLOCKED;
	t->wait_addr = addr;
	t->wait_val = expected;
	t->wait_bitset = bitset;
	t->wait_timed = t->regs.r10 != 0;
	t->wait_due_vns = t->wait_timed ? wait_due_vns(e, t) : 0;
	t->wait_seq = ++e->wait_seq;
}

static size_t nr_arg(uint64_t reg)
{
	int n = (int)(uint32_t)reg;
	return n <= 0 ? 1 : (size_t)n;   /* the kernel wakes one for 0 */
}

static void do_wake(struct sc_engine *e, struct sc_thread *t, bool bitset_op)
{
	uint32_t bitset = bitset_op ? (uint32_t)t->regs.r9 : BITSET_ANY;

	if (bitset == 0) {
		complete(t, -EINVAL);
		return;
	}
	size_t n = sc_wake_waiters(e, t, t->regs.rdi, bitset, nr_arg(t->regs.rdx));
	complete(t, (int64_t)n);
}

static void do_requeue(struct sc_engine *e, struct sc_thread *t, bool cmp)
{
	uint64_t addr = t->regs.rdi, addr2 = t->regs.r8;
	size_t nwake = nr_arg(t->regs.rdx);
	int nreq = (int)(uint32_t)t->regs.r10;   /* val2 travels in timeout */

	if (cmp) {
		uint32_t cur;
		if (read_word(t, addr, &cur) < 0) {
			complete(t, -EFAULT);
			return;
		}
		if (cur != (uint32_t)t->regs.r9) {
			complete(t, -EAGAIN);
			return;
		}
	}
	size_t woken = sc_wake_waiters(e, t, addr, BITSET_ANY, nwake);
	size_t moved = 0;
	struct sc_thread **w;
	size_t nw = collect_waiters(e, t->proc, addr, BITSET_ANY, &w);
	for (size_t i = 0; i < nw && (int)moved < nreq; i++, moved++)
		w[i]->wait_addr = addr2;
	free(w);
	complete(t, (int64_t)(cmp ? woken + moved : woken));
}

/* FUTEX_WAKE_OP: *uaddr2 = op(old = *uaddr2, oparg); wake nr on uaddr;
 * if cmp(old, cmparg) also wake nr2 on uaddr2. */
static void do_wake_op(struct sc_engine *e, struct sc_thread *t)
{
	uint32_t enc = (uint32_t)t->regs.r9;
	int op = (enc >> 28) & 7, cmp = (enc >> 24) & 15;
	int32_t oparg = (int32_t)(enc << 8) >> 20;
	int32_t cmparg = (int32_t)(enc << 20) >> 20;
	uint64_t addr = t->regs.rdi, addr2 = t->regs.r8;
	uint32_t old, nv;

	if (op & FUTEX_OP_OPARG_SHIFT) {
		op &= ~FUTEX_OP_OPARG_SHIFT;
		oparg = (int32_t)(1u << (oparg & 31));
	}
	if (read_word(t, addr2, &old) < 0) {
		complete(t, -EFAULT);
		return;
	}
	switch (op) {
	case FUTEX_OP_SET: nv = (uint32_t)oparg; break;
	case FUTEX_OP_ADD: nv = old + (uint32_t)oparg; break;
	case FUTEX_OP_OR: nv = old | (uint32_t)oparg; break;
	case FUTEX_OP_ANDN: nv = old & ~(uint32_t)oparg; break;
	case FUTEX_OP_XOR: nv = old ^ (uint32_t)oparg; break;
	default: complete(t, -ENOSYS); return;
	}
	bool hit;
	int32_t o = (int32_t)old;
	switch (cmp) {
	case FUTEX_OP_CMP_EQ: hit = o == cmparg; break;
	case FUTEX_OP_CMP_NE: hit = o != cmparg; break;
	case FUTEX_OP_CMP_LT: hit = o < cmparg; break;
	case FUTEX_OP_CMP_LE: hit = o <= cmparg; break;
	case FUTEX_OP_CMP_GT: hit = o > cmparg; break;
	case FUTEX_OP_CMP_GE: hit = o >= cmparg; break;
	default: complete(t, -ENOSYS); return;
	}
	if (sc_mem_write(t->proc, addr2, &nv, sizeof(nv)) < 0) {
		complete(t, -EFAULT);
		return;
	}
	size_t n = sc_wake_waiters(e, t, addr, BITSET_ANY, nr_arg(t->regs.rdx));
	if (hit)
		n += sc_wake_waiters(e, t, addr2, BITSET_ANY,
				     nr_arg(t->regs.r10));
	complete(t, (int64_t)n);
}

bool sc_futex_is_modelled(const struct sc_thread *t)
{
	switch ((int)(t->regs.rsi & FUTEX_CMD_MASK)) {
	case FUTEX_WAIT: case FUTEX_WAIT_BITSET: case FUTEX_WAKE:
	case FUTEX_WAKE_BITSET: case FUTEX_REQUEUE: case FUTEX_CMP_REQUEUE:
	case FUTEX_WAKE_OP:
		return true;
	default:
		return false;
	}
}

/* t is at its futex seccomp stop and was chosen: run the model.  Leaves t
 * TH_BLOCKED, or with a completion to apply when it resumes. */
void sc_futex_execute(struct sc_engine *e, struct sc_thread *t)
{
	switch ((int)(t->regs.rsi & FUTEX_CMD_MASK)) {
	case FUTEX_WAIT: do_wait(e, t, false); break;
	case FUTEX_WAIT_BITSET: do_wait(e, t, true); break;
	case FUTEX_WAKE: do_wake(e, t, false); break;
	case FUTEX_WAKE_BITSET: do_wake(e, t, true); break;
	case FUTEX_REQUEUE: do_requeue(e, t, false); break;
	case FUTEX_CMP_REQUEUE: do_requeue(e, t, true); break;
	case FUTEX_WAKE_OP: do_wake_op(e, t); break;
	default: break;
	}
}

/* A thread died and the kernel changed futex words for it: release the
 * modelled waiters (of process only, unless NULL) whose word is no
 * longer the value they waited on and has the bits must_have set (a
 * spurious wake-up is always allowed; callers re-check).  Attached
 * processes: threads created before we came have a clear_child_tid we
 * never saw.  Robust mutexes: the kernel walked the dead thread's robust
 * list, marked each word FUTEX_OWNER_DIED (clearing the owner's tid) and
 * woke a waiter (exit_robust_list), whose pthread_mutex_lock returns
 * EOWNERDEAD. */
/* Its futex word no longer holds the value it waited on, and has the
 * bits *must_have set. */
static bool word_changed(const struct sc_thread *w, const void *must_have)
{
	uint32_t cur, bits = *(const uint32_t *)must_have;

	return sc_mem_read(w->proc, w->wait_addr, &cur, sizeof(cur)) == 0 &&
	       cur != w->wait_val && (cur & bits) == bits;
}

static void wake_changed_words(struct sc_engine *e, struct sc_thread *dead,
			       const struct sc_process *process,
			       uint32_t must_have)
{
	struct sc_thread **v;
	size_t n = collect_blocked(e, process, word_changed, &must_have, &v);

	/* Through the policy, as every wake: a replay then knows these
	 * were the dead thread's (recorded with its thread_exit), not
	 * wakes that went missing. */
	pick_and_release(e, dead, v, n, n);
}

/* A thread with CLONE_CHILD_CLEARTID died: the kernel wrote 0 there and
 * woke one waiter (mm_release); do the same for modelled waiters. */
void sc_futex_wake_clear_tid(struct sc_engine *e, struct sc_thread *dead)
{
	if (dead->clear_child_tid)
		sc_wake_waiters(e, dead, dead->clear_child_tid, BITSET_ANY, 1);
	else if (e->attached)
		wake_changed_words(e, dead, NULL, 0);
	wake_changed_words(e, dead, dead->proc, FUTEX_OWNER_DIED);
}
