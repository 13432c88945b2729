/* deadlock.c - every live thread is blocked in the futex model, or some
 * wait for each other's mutexes in a cycle: build the wait-for graph (who
 * waits on what, who holds it) and end the run.
 *
 * The owner of a glibc mutex is the kernel tid stored in
 * pthread_mutex_t.__data.__owner (offset 8 on x86-64); the futex word of
 * a mutex is its first word, so a thread blocked on the address of the
 * mutex it last tried to lock is waiting for that mutex.
 */
#include <stdio.h>
#include <string.h>

#include "internal.h"

#define MUTEX_OWNER_OFFSET 8
#define LIBC_OBJECT_SPAN 64   /* futex words lie inside the object */

static const char *object_noun(uint16_t kind)
{
	switch (kind) {
	case SC_EV_MUTEX_LOCK: case SC_EV_MUTEX_TRYLOCK: return "mutex";
	case SC_EV_COND_WAIT: return "condition variable";
	case SC_EV_RWLOCK_RDLOCK: case SC_EV_RWLOCK_WRLOCK: return "rwlock";
	case SC_EV_SEM_WAIT: return "semaphore";
	case SC_EV_BARRIER_WAIT: return "barrier";
	case SC_EV_ONCE: return "once control";
	case SC_EV_SPIN_LOCK: return "spinlock";
	default: return NULL;
	}
}

/* The thread of process p whose exit clears addr (what a joiner waits
 * on).  Only p's: with --follow-forks every process has the same
 * addresses, and a join in one was said to wait for a thread of another
 * (QA: "T3 waits for T4 to exit", T4 in another process). */
static struct sc_thread *thread_by_ctid(struct sc_engine *e,
					const struct sc_process *p,
					uint64_t addr)
{
	for (size_t i = 0; i < e->nthreads; i++)
		if (e->threads[i]->controlled && e->threads[i]->proc == p &&
		    e->threads[i]->clear_child_tid == addr)
			return e->threads[i];
	return NULL;
}

/* The tid in the owner field of the mutex t waits for; 0 when none or
 * unreadable. */
static int32_t owner_tid(struct sc_thread *t, uint64_t mutex)
{
	int32_t owner = 0;

	if (sc_mem_read(t->proc, mutex + MUTEX_OWNER_OFFSET, &owner,
			sizeof(owner)) < 0 || owner < 0)
		return 0;
	return owner;
}

/* " held by Tn" for the mutex t waits for, from its owner field;
 * empty when it cannot tell.  A thread that exited holding it (a return
 * path that forgot the unlock) is named as such: nobody can unlock it. */
static void mutex_owner_text(struct sc_engine *e, struct sc_thread *t,
			     uint64_t mutex, char *buf, size_t len)
{
	int32_t owner = owner_tid(t, mutex);

	buf[0] = '\0';
	if (!owner)
		return;
	struct sc_thread *o = sc_thread_by_tid(e, owner);
	/* A child of fork() has a copy of a mutex its parent's thread held
	 * at the fork: that thread is not in the child, nobody there can
	 * unlock it. */
	if (o && o->proc != t->proc) {
		snprintf(buf, len, " held by T%u of process %d, which fork did "
			 "not copy into this one", o->logical, (int)o->proc->pid);
		return;
	}
	if (o) {
		snprintf(buf, len, " held by T%u", o->logical);
		return;
	}
	/* The latest thread with that tid (the kernel reuses them). */
	for (size_t i = e->ngone; i-- > 0;)
		if (e->gone[i].tid == owner) {
			if (e->gone[i].pid != t->proc->pid)
				snprintf(buf, len, " held by T%u of process %d "
					 "when it forked (fork did not copy it "
					 "into this one)", e->gone[i].logical,
					 (int)e->gone[i].pid);
			else
				snprintf(buf, len, " held by T%u, which exited "
					 "without unlocking it",
					 e->gone[i].logical);
			return;
		}
}

/* glibc's pthread_rwlock_t: the tid of the writer holding it. */
#define RWLOCK_CUR_WRITER_OFFSET 24

/* " held for writing by Tn" or " held for reading by Tn, Tm" for the
 * rwlock t waits for; empty when it cannot tell.  QA: a shared_mutex
 * "upgrade" (the reader asks for the write lock) read "T2 waits for
 * rwlock mu" without saying that T2 itself held it. */
static void rwlock_holder_text(struct sc_engine *e, struct sc_thread *t,
			       uint64_t rwlock, char *buf, size_t len)
{
	int32_t writer = 0;
	size_t used = 0;

	buf[0] = '\0';
	if (sc_mem_read(t->proc, rwlock + RWLOCK_CUR_WRITER_OFFSET, &writer,
			sizeof(writer)) == 0 && writer > 0) {
		struct sc_thread *o = sc_thread_by_tid(e, writer);
		if (o)
			snprintf(buf, len, " held for writing by T%u%s",
				 o->logical, o == t ? " itself" : "");
		return;
	}
	for (size_t i = 0; i < e->nthreads; i++) {
		struct sc_thread *o = e->threads[i];
		bool holds = false;

		if (!o->controlled || o->proc != t->proc ||
		    o->state == TH_EXITING || o->state == TH_DEAD)
			continue;
		for (size_t k = 0; k < o->nrd_held; k++)
			holds |= o->rd_held[k] == rwlock;
		if (!holds || used >= len)
			continue;
		used += (size_t)snprintf(buf + used, len - used, "%sT%u%s",
					 used ? ", " : " held for reading by ",
					 o->logical, o == t ? " itself" : "");
	}
}

/* The owner of the mutex t waits for: the thread of that tid, NULL when
 * it cannot tell or none of ours has it. */
static struct sc_thread *mutex_owner(struct sc_engine *e, struct sc_thread *t,
				     uint64_t mutex)
{
	int32_t owner = owner_tid(t, mutex);

	return owner > 0 ? sc_thread_by_tid(e, owner) : NULL;
}

/* What t waits on: its futex word, or for a thread about to lock a held
 * spinlock (spin_model.c, no futex) the lock, which its last call
 * (pthread_spin_lock) names. */
static uint64_t waited_on(const struct sc_thread *t)
{
	return t->spin_wait ? t->last_call_object : t->wait_addr;
}

/* Where t's last library call came from: the program's own line, not a
 * wrapper of a system library (std::thread::join calling pthread_join,
 * thrd_join), through the stack when the call site is not the
 * program's. */
static void call_site_text(struct sc_thread *t, char *site, size_t len)
{
	uint64_t pc = t->last_call_site - 1;
	bool system = false;

	sc_symbolize_code(t->proc->pid, pc, site, len, &system);
	if (sc_code_is_own(t->proc, pc) && !system)
		return;
	sc_stack_own_text(t->proc->pid, t->tid, site, len);
}

/* Whether the futex t waits on lies inside the object of its last
 * library call (the mutex it locks, the condition variable it waits on). */
static bool waits_in_call_object(const struct sc_thread *t)
{
	uint64_t addr = waited_on(t);

	return t->last_call_object && addr >= t->last_call_object &&
	       addr < t->last_call_object + LIBC_OBJECT_SPAN;
}

/* Append one "T1 waits for ..." clause for blocked thread t. */
static void describe_wait(struct sc_engine *e, struct sc_thread *t,
			  char *buf, size_t len)
{
	char obj[256], site[512] = "";
	uint64_t addr = waited_on(t);
	pid_t pid = t->proc->pid;
	size_t used = strlen(buf);
	const char *noun = object_noun(t->last_call_kind);
	bool inside = waits_in_call_object(t);

	if (t->last_call_site)
		call_site_text(t, site, sizeof(site));
	struct sc_thread *joined = thread_by_ctid(e, t->proc, addr);
	if (joined) {
		snprintf(buf + used, len - used,
			 "%sT%u waits for T%u to exit (pthread_join%s%s)",
			 used ? "; " : "", t->logical, joined->logical,
			 *site ? " called from " : "", site);
		return;
	}
	if (noun && inside) {
		sc_symbolize_data(pid, t->last_call_object, obj, sizeof(obj));
		char held[96] = "";
		if (t->last_call_kind == SC_EV_MUTEX_LOCK ||
		    t->last_call_kind == SC_EV_MUTEX_TRYLOCK)
			mutex_owner_text(e, t, t->last_call_object, held,
					 sizeof(held));
		else if (t->last_call_kind == SC_EV_RWLOCK_RDLOCK ||
			 t->last_call_kind == SC_EV_RWLOCK_WRLOCK)
			rwlock_holder_text(e, t, t->last_call_object, held,
					   sizeof(held));
		/* The address beside a name (fork_mtx+0x28), not twice. */
		char addr_text[32] = "";
		if (strncmp(obj, "0x", 2) != 0)
			snprintf(addr_text, sizeof(addr_text), " (0x%llx)",
				 (unsigned long long)t->last_call_object);
		snprintf(buf + used, len - used,
			 "%sT%u waits for %s %s%s%s in %s%s%s", used ? "; " : "",
			 t->logical, noun, obj, addr_text, held,
			 sc_event_kind_name(t->last_call_kind),
			 *site ? " called from " : "", site);
		return;
	}
	/* A futex of the program's own (std::latch, std::barrier, an
	 * atomic wait inlined into it): named if it is a variable, and
	 * where the thread waits. */
	sc_symbolize_data(pid, addr, obj, sizeof(obj));
	char addr_text[32] = "", where[600] = "", own[512];
	if (strncmp(obj, "0x", 2) != 0)
		snprintf(addr_text, sizeof(addr_text), " (0x%llx)",
			 (unsigned long long)addr);
	if (sc_stack_own_text(pid, t->tid, own, sizeof(own)))
		snprintf(where, sizeof(where), ", waiting in %s", own);
	snprintf(buf + used, len - used, "%sT%u waits on futex %s%s%s",
		 used ? "; " : "", t->logical, obj, addr_text, where);
}

/* Append "T1 waits in pause for a signal ..." for t (lost_signal.c). */
static void describe_signal_wait(struct sc_thread *t, char *buf, size_t len)
{
	char own[512] = "";
	size_t used = strlen(buf);

	sc_stack_own_text(t->proc->pid, t->tid, own, sizeof(own));
	snprintf(buf + used, len - used,
		 "%sT%u waits in %s%s%s for a signal that no thread, timer "
		 "or child process of the run is left to send",
		 used ? "; " : "", t->logical, sc_signal_wait_name(t),
		 *own ? " called from " : "", own);
}

/* Where a deadlock report is best located: at a thread waiting for a
 * lock (the cycle of a lock-order deadlock: 2), else at one not joining
 * a thread (1), not at main waiting for the others to end (0: in
 * pthread_join, or in boost::thread::join's condition variable). */
static int location_rank(struct sc_engine *e, const struct sc_thread *t)
{
	if (waits_in_call_object(t) &&
	    (t->last_call_kind == SC_EV_MUTEX_LOCK ||
	     t->last_call_kind == SC_EV_RWLOCK_RDLOCK ||
	     t->last_call_kind == SC_EV_RWLOCK_WRLOCK))
		return 2;
	return thread_by_ctid(e, t->proc, waited_on(t)) ? 0 : 1;
}

/* all_blocked: no thread can move (a thread in the kernel then waits
 * for children that are all blocked); else a cycle of mutexes, and the
 * threads in the kernel are others that still can. */
static void report(struct sc_engine *e, bool all_blocked)
{
	struct sc_run_result *r = e->res;
	char graph[sizeof(r->message) - 64] = "";
	size_t blocked = 0;
	struct sc_thread *first = NULL;
	int first_rank = -1;

	/* First: it stops the threads in the kernel, whose own frames the
	 * message then names. */
	sc_report_blocked_stacks(e, all_blocked);
	for (size_t i = 0; i < e->nthreads; i++) {
		struct sc_thread *t = e->threads[i];
		if (t->controlled && t->state == TH_IN_KERNEL && all_blocked &&
		    sc_signal_wait_name(t)) {
			describe_signal_wait(t, graph, sizeof(graph));
			/* The report is located where the signal is awaited. */
			first = t;
			first_rank = 3;
			blocked++;
			continue;
		}
		if (t->controlled && t->state == TH_IN_KERNEL && all_blocked) {
			/* wait4/waitid for children that are all blocked */
			size_t used = strlen(graph);
			snprintf(graph + used, sizeof(graph) - used,
				 "%sT%u (process %d) waits for a child process",
				 used ? "; " : "", t->logical, (int)t->proc->pid);
			blocked++;
			continue;
		}
		if (!t->controlled ||
		    (t->state != TH_BLOCKED && !t->spin_wait))
			continue;
		/* Locate the report at a thread in the cycle. */
		int rank = location_rank(e, t);
		if (rank > first_rank) {
			first = t;
			first_rank = rank;
		}
		blocked++;
		describe_wait(e, t, graph, sizeof(graph));
	}
	snprintf(r->message, sizeof(r->message),
		 "%zu thread%s blocked: %s", blocked,
		 blocked == 1 ? "" : "s", graph);
	/* Where the thread waits: the first frame of the program's own
	 * code on its stack.  Its last library call is the fallback: a
	 * wait inlined into the program (std::latch's futex) made no call,
	 * and the last one was elsewhere (std::thread's pthread_create). */
	if (first && !sc_stack_own_text(first->proc->pid, first->tid,
					r->location, sizeof(r->location)) &&
	    first->last_call_site)
		sc_symbolize(first->proc->pid, first->last_call_site - 1,
			     r->location, sizeof(r->location));
	r->verdict = SC_VERDICT_DEADLOCK;
	e->finished = true;
}

void sc_report_deadlock(struct sc_engine *e)
{
	report(e, true);
}

void sc_report_endless_spin(struct sc_engine *e, struct sc_thread *spinner)
{
	struct sc_run_result *r = e->res;
	char graph[sizeof(r->message) / 2] = "", where[512] = "";

	for (size_t i = 0; i < e->nthreads; i++) {
		struct sc_thread *t = e->threads[i];
		if (t->controlled && t->state == TH_BLOCKED)
			describe_wait(e, t, graph, sizeof(graph));
	}
	if (sc_stack_own_text(spinner->proc->pid, spinner->tid, where,
			      sizeof(where)))
		snprintf(r->location, sizeof(r->location), "%s", where);
	snprintf(r->message, sizeof(r->message),
		 "hang: T%u spins%s%s and no other thread can run to end it%s%s "
		 "(it would spin until the time budget)", spinner->logical,
		 *where ? " in " : "", where, *graph ? ": " : "", graph);
	sc_report_hang_stacks(e);
	r->verdict = SC_VERDICT_HANG;
	e->finished = true;
}

/* Blocked, for good, in pthread_mutex_lock of the mutex its futex word
 * belongs to: not a timed lock (it ends by itself), not a spinlock. */
static bool waits_for_mutex(const struct sc_thread *t)
{
	return t->controlled && t->state == TH_BLOCKED && !t->wait_timed &&
	       !t->spin_wait && t->last_call_kind == SC_EV_MUTEX_LOCK &&
	       waits_in_call_object(t);
}

/* The threads a lock cycle leaves running are no part of it: say so,
 * or the report reads as if they had been forgotten. */
static void note_others_live(struct sc_engine *e)
{
	struct sc_run_result *r = e->res;
	char ids[256] = "";
	size_t live = 0;

	for (size_t i = 0; i < e->nthreads; i++) {
		const struct sc_thread *t = e->threads[i];
		size_t used = strlen(ids);
		if (!t->controlled || t->state == TH_BLOCKED || t->spin_wait ||
		    t->state == TH_EXITING || t->state == TH_DEAD ||
		    t->state == TH_NEW)
			continue;
		live++;
		snprintf(ids + used, sizeof(ids) - used, "%sT%u",
			 used ? ", " : "", t->logical);
	}
	if (live) {
		size_t used = strlen(r->message);
		snprintf(r->message + used, sizeof(r->message) - used,
			 " (a cycle of mutexes: %s %s still run, but no thread "
			 "can release them)", ids, live == 1 ? "can" : "could");
	}
}

bool sc_lock_cycle_ends_run(struct sc_engine *e)
{
	if (e->cycle_checked_seq == e->wait_seq)
		return false;
	e->cycle_checked_seq = e->wait_seq;
	for (size_t i = 0; i < e->nthreads; i++) {
		struct sc_thread *t = e->threads[i], *cur = t;
		if (!waits_for_mutex(t))
			continue;
		/* Follow "waits for a mutex held by" from t: back at t is a
		 * cycle; a holder that can still move (or none) is not.
		 * An owner field is written by the thread that acquired the
		 * mutex and cleared by its unlock, and a blocked holder is
		 * in neither. */
		for (size_t hops = 0; hops < e->nthreads; hops++) {
			cur = mutex_owner(e, cur, cur->last_call_object);
			if (!cur || !waits_for_mutex(cur))
				break;
			if (cur == t) {
				report(e, false);
				note_others_live(e);
				return true;
			}
		}
	}
	return false;
}
