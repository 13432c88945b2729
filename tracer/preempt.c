/* preempt.c - preemptions that do not depend on the machine's load.
 *
 * A thread that runs for a long time without reaching a scheduling point
 * must sometimes be stopped so that the others can run (a spin loop waits
 * for them).  Stopping it "after 2 ms" would make the schedule a function
 * of timing, and replay could not find the instruction again: there are
 * no hardware counters to count instructions with.  So a preemption is
 * only ever taken at a point that can be found again by looking at the
 * thread's state alone:
 *
 *  - Recording: once the running thread has used its slice of CPU time
 *    while another thread could run, it is interrupted at some pc P, a
 *    temporary breakpoint goes on P, and the state (registers, the top of
 *    the stack, the vector registers) at each of the next hits of P is
 *    hashed.  When a state repeats, the thread is in a cycle that makes
 *    no progress by itself (a spin loop): it is preempted there, at a
 *    state that every run reaching the loop reaches too.  When no state
 *    repeats within PROBE_HITS hits it is computing: it goes on, and is
 *    looked at again after twice the CPU time, until it has used
 *    BUDGET_SLICES slices; then it is preempted anyway (a "budget"
 *    preemption): where its function returns, when that comes within
 *    EXIT_SLICES more slices, else at the next hit of P.  A return
 *    address runs once where P may run a million times a millisecond,
 *    and replay can find only the latter by scanning hit by hit
 *    (minutes).
 *  - Replay (preempt_replay.c) stops the thread at the first hit of the
 *    recorded pc with the recorded state.
 *
 * The probe breakpoint is the engine's own (kind SC_EV_NONE): other
 * threads of the process are all stopped while the probed one runs.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <signal.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/user.h>
#include <time.h>

#include "internal.h"

/* Hits of P looked at before a computation is called one. */
#define PROBE_HITS 64
/* CPU time, in slices, a probe at a library call's return address waits
 * for a hit before it probes inside the library instead. */
#define CALLER_SLICES 25
/* A computation is preempted after this many slices of CPU time: only a
 * loop that waits for another thread without a state that repeats (it
 * counts while it waits) needs it, and replaying such a point is slow
 * (preempt_replay.c). */
#define BUDGET_SLICES 250
/* ... and waits this many more slices for its function to return (a
 * computation ends; a loop that counts while it waits does not). */
#define EXIT_SLICES 500

/* Bytes of stack hashed around rsp: the red zone below it (leaf
 * functions keep locals there) and the first slots above it. */
#define STACK_BELOW 128
#define STACK_ABOVE 64

uint64_t sc_state_mix(uint64_t h, uint64_t v)
{
	h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
	h ^= h >> 31;
	h *= 0xbf58476d1ce4e5b9ull;
	return h ^ (h >> 29);
}

uint64_t sc_state_mix_bytes(uint64_t h, const uint8_t *p, size_t n)
{
	uint64_t w;

	for (size_t i = 0; i + 8 <= n; i += 8) {
		memcpy(&w, p + i, 8);
		h = sc_state_mix(h, w);
	}
	return h;
}

/* The state recorded for replay: the general registers (what the
 * program computes with; not orig_rax, the kind of stop, nor the trap and
 * resume flags).  Not memory: the stack below and around rsp holds stale
 * bytes (thread ids, times) that differ from run to run. */
void sc_preempt_state_words(const struct sc_thread *t,
			    uint64_t w[SC_PREEMPT_REGS])
{
	const struct user_regs_struct *r = &t->regs;
	const uint64_t words[SC_PREEMPT_REGS] = { r->r15, r->r14, r->r13,
		r->r12, r->rbp, r->rbx, r->r11, r->r10, r->r9, r->r8, r->rax,
		r->rcx, r->rdx, r->rsi, r->rdi, r->rip, r->eflags & 0xcd5,
		r->rsp, r->fs_base };

	memcpy(w, words, sizeof(words));
}

uint64_t sc_preempt_state_hash(struct sc_thread *t)
{
	uint64_t words[SC_PREEMPT_REGS];
	uint64_t h = 0x5343535441544531ull;

	sc_preempt_state_words(t, words);
	for (size_t i = 0; i < SC_PREEMPT_REGS; i++)
		h = sc_state_mix(h, words[i]);
	return h ? h : 1;   /* 0 means "not recorded" in traces */
}

/* The state compared within one run to tell a spin from a computation:
 * the registers, the vector registers and the stack around rsp (loop
 * counters of unoptimised code live there, in the red zone of a leaf). */
uint64_t sc_preempt_full_hash(struct sc_thread *t, uint64_t regs_hash)
{
	uint8_t stack[STACK_BELOW + STACK_ABOVE];
	struct user_fpregs_struct fp;
	uint64_t h = regs_hash, rsp = t->regs.rsp;

	if (sc_mem_read(t->proc, rsp - STACK_BELOW, stack, sizeof(stack)) == 0)
		h = sc_state_mix_bytes(h, stack, sizeof(stack));
	else if (sc_mem_read(t->proc, rsp - STACK_BELOW, stack,
			     STACK_BELOW) == 0)
		h = sc_state_mix_bytes(h, stack, STACK_BELOW);
	if (ptrace(PTRACE_GETFPREGS, t->tid, 0, &fp) == 0)
		h = sc_state_mix_bytes(h, (const uint8_t *)fp.xmm_space,
			      sizeof(fp.xmm_space));
	return h;
}

/* Has t's state at its probe breakpoint been seen before in this
 * stretch?  Remembers it otherwise (false when the memory is full). */
bool sc_preempt_seen_before(struct sc_thread *t, uint64_t full, bool *full_up)
{
	for (size_t i = 0; i < t->nprobe_hashes; i++)
		if (t->probe_hashes[i] == full)
			return true;
	*full_up = t->nprobe_hashes >= PROBE_HITS;
	if (!*full_up)
		t->probe_hashes[t->nprobe_hashes++] = full;
	return false;
}

/* A state seen before is a spin only when it comes back once more with
 * the memory a spin leaves alone (spin_memory.c) the same: a loop whose
 * progress is in memory (a counter, a table) repeats its state too, and
 * preempted as a spin at its second occurrence it could not be replayed
 * (replay stops at any occurrence of a spin's state).  The state must
 * come back within PROBE_HITS hits. */
enum sc_spin sc_preempt_spin_check(struct sc_thread *t, uint64_t full,
				   bool *full_up)
{
	*full_up = false;
	if (t->nprobe_hashes == 0)
		t->spin_candidate = 0;          /* a new stretch */
	if (t->spin_candidate) {
		if (full != t->spin_candidate)
			return ++t->spin_confirm_hits > PROBE_HITS
			       ? SC_SPIN_NO : SC_SPIN_UNSURE;
		uint64_t memory = sc_spin_memory_hash(t);
		bool same = memory == t->spin_memory;

		t->spin_candidate = 0;
		return same ? SC_SPIN_YES : SC_SPIN_NO;
	}
	if (!sc_preempt_seen_before(t, full, full_up))
		return SC_SPIN_UNSURE;
	t->spin_candidate = full;
	t->spin_memory = sc_spin_memory_hash(t);
	t->spin_confirm_hits = 0;
	return SC_SPIN_UNSURE;
}

bool sc_is_restart(const struct user_regs_struct *r)
{
	int64_t rax = (int64_t)r->rax;

	/* -ERESTARTSYS .. -ERESTART_RESTARTBLOCK: interrupted in a
	 * syscall that the kernel restarts on resume. */
	return (int64_t)r->orig_rax >= 0 && rax <= -512 && rax >= -516;
}

void sc_preempt_remove_bp(struct sc_thread *t)
{
	if (t->probe_bp_planted) {
		sc_bp_remove(t->proc, t->probe_pc);
		t->probe_bp_planted = false;
	}
}

void sc_preempt_cancel(struct sc_thread *t)
{
	sc_preempt_remove_bp(t);
	t->probe = PROBE_NONE;
	t->nprobe_hashes = 0;
	t->probe_at_caller = false;
	t->probe_in_library = false;
	t->probe_at_exit = false;
	t->exit_tried = false;
}

void sc_preempt_exit_expired(struct sc_thread *t)
{
	sc_preempt_remove_bp(t);
	t->probe = PROBE_NONE;
	t->nprobe_hashes = 0;
	t->probe_at_exit = false;
	sc_preempt_probe_begin(t, PROBE_INTERRUPTED);
}

void sc_preempt_caller_expired(struct sc_thread *t)
{
	sc_preempt_remove_bp(t);
	t->probe = PROBE_NONE;
	t->nprobe_hashes = 0;
	t->probe_at_caller = false;
	t->probe_in_library = true;
	sc_preempt_probe_begin(t, PROBE_INTERRUPTED);
}

int sc_preempt_plant_bp(struct sc_thread *t, uint64_t pc)
{
	if (sc_bp_find(t->proc, pc))
		return -1;      /* an event's breakpoint: it stops there anyway */
	if (sc_bp_add(t->proc, pc, SC_EV_NONE, SC_ACC_NONE, "preempt") < 0)
		return -1;
	t->probe_pc = pc;
	t->probe_bp_planted = true;
	return 0;
}

uint64_t sc_preempt_cpu_used(struct sc_thread *t)
{
	uint64_t now = sc_process_cpu_ns(t->proc->pid);

	return now > t->cpu_at_resume_ns && t->cpu_at_resume_ns
	       ? now - t->cpu_at_resume_ns : 0;
}

/* Stop t here with a preempt event of the given kind. */
void sc_preempt_here(struct sc_engine *e, struct sc_thread *t,
		     uint64_t state, uint8_t flags)
{
	uint64_t cpu = sc_preempt_cpu_used(t);

	sc_preempt_remove_bp(t);
	t->probe_at_caller = false;
	t->probe_in_library = false;
	t->probe_at_exit = false;
	t->exit_tried = false;
	t->probe = PROBE_NONE;
	t->nprobe_hashes = 0;
	t->stop = STOP_EVENT;
	t->next = (struct sc_event){ .thread = t->logical,
		.kind = SC_EV_PREEMPT, .pc = t->regs.rip, .state = state,
		.cpu_ns = cpu, .preempt_flags = flags };
	if (flags & SC_PREEMPT_BUDGET) {
		sc_preempt_state_words(t, t->preempt_regs);
		t->next.regs = t->preempt_regs;
	}
	t->preempt_step = e->step;
	sc_become_ready(e, t);
}

/* Resume t after a probe hit that is not the preemption. */
void sc_preempt_go_on(struct sc_engine *e, struct sc_thread *t)
{
	t->stop = STOP_BREAKPOINT;
	if (sc_bp_step_over(e, t) == 0)
		sc_resume(t, PTRACE_CONT);
}

/* Interrupt t to see where it is: its slice is used up while another
 * thread could run (PROBE_INTERRUPTED), it has run its free share in
 * replay (PROBE_REPLAY_FREE, PROBE_LEGACY), or it sleeps in a syscall the
 * filter does not trap (PROBE_ASLEEP). */
void sc_preempt_probe_begin(struct sc_thread *t, enum sc_probe why)
{
	if (t->interrupt_pending)
		return;
	if (ptrace(PTRACE_INTERRUPT, t->tid, 0, 0) == 0) {
		t->interrupt_pending = true;
		t->probe = why;
	}
}

/* Interrupted inside a blocking syscall that the filter does not trap:
 * it is blocked in the kernel like a released syscall; the others run
 * meanwhile and its return is a syscall_return event. */
static void asleep_in_kernel(struct sc_engine *e, struct sc_thread *t)
{
	t->probe = PROBE_NONE;
	t->released = true;
	t->released_quick = false;
	t->release_step = e->step;
	t->state = TH_IN_KERNEL;
	if (e->running == t)
		e->running = NULL;
	sc_resume(t, PTRACE_SYSCALL);
}

/* Interrupted inside a system library (memset, a compression library):
 * a state that repeats there says little (memset called again and again
 * with the same arguments by a loop whose counter is in memory), and
 * whether the slice expired there at all depends on timing.  A spin is a
 * loop of the program: the probe goes on the return address in its own
 * code.  If that is not reached for CALLER_SLICES slices (a library that
 * spins or computes for long by itself), the probe is taken at the pc
 * after all. */
static bool probe_caller(struct sc_thread *t)
{
	uint64_t caller;

	if (t->probe_in_library || sc_code_is_own(t->proc, t->regs.rip) ||
	    !sc_stack_own_caller(t, &caller) ||
	    sc_preempt_plant_bp(t, caller) < 0)
		return false;
	t->probe = PROBE_HITS;
	t->probe_at_caller = true;
	t->nprobe_hashes = 0;
	t->slice_budget_ns = sc_preempt_cpu_used(t) +
			     (uint64_t)CALLER_SLICES * t->slice_us * 1000u;
	sc_resume(t, PTRACE_CONT);
	return true;
}

/* t stopped for the interrupt of the probe: put the breakpoint on its
 * pc and look at the next hits. */
static void probe_interrupted(struct sc_engine *e, struct sc_thread *t)
{
	sc_regs_fetch(t);
	t->probe = PROBE_NONE;
	if (sc_bp_trap_pending(t)) {
		/* Stopped inside a breakpoint's trap: its stop comes next,
		 * the slice is looked at again later. */
		sc_resume(t, PTRACE_CONT);
		return;
	}
	if (sc_is_restart(&t->regs)) {
		asleep_in_kernel(e, t);
		return;
	}
	/* Inside a sanitizer's runtime: its report (tens of milliseconds
	 * symbolising the stacks before the program dies) or its
	 * allocator, not the program's logic.  A preemption there showed
	 * nothing about the program, and one in the report's parsing
	 * loops, whose states repeat, did not replay.  It goes on to its
	 * next event, checked again at every slice. */
	if (sc_code_is_sanitizer(t->proc, t->regs.rip)) {
		sc_resume(t, PTRACE_CONT);
		return;
	}
	if (probe_caller(t))
		return;
	if (sc_preempt_plant_bp(t, t->regs.rip) < 0) {
		/* Asleep in a system call the filter does not trap, or right
		 * before an event of its own: nothing to preempt. */
		sc_resume(t, PTRACE_CONT);
		return;
	}
	t->probe = PROBE_HITS;
	t->nprobe_hashes = 0;
	sc_resume(t, PTRACE_CONT);   /* the first hit is at once */
}

/* A computation used its budget at a hit of P: wait for it at its
 * function's return address instead (true), with EXIT_SLICES more CPU
 * time (engine.c's slice check calls sc_preempt_exit_expired then). */
static bool probe_exit(struct sc_engine *e, struct sc_thread *t,
		       uint64_t used)
{
	uint64_t ret;

	/* The unwinder reads the thread's registers: rip rewound onto the
	 * breakpoint, not inside the instruction after the int3. */
	if (!t->exit_tried && sc_regs_flush(t) < 0)
		return false;
	if (t->exit_tried || !sc_stack_return_address(t, &ret) ||
	    ret == t->regs.rip || sc_bp_find(t->proc, ret))
		return false;
	t->exit_tried = true;
	sc_preempt_remove_bp(t);
	if (sc_preempt_plant_bp(t, ret) < 0)
		return false;
	t->probe = PROBE_HITS;
	t->probe_at_exit = true;
	t->nprobe_hashes = 0;
	t->slice_budget_ns = used + (uint64_t)EXIT_SLICES * t->slice_us * 1000u;
	t->next_check_us = sc_now_us() + t->slice_us;
	sc_preempt_go_on(e, t);
	return true;
}

static void probe_hit(struct sc_engine *e, struct sc_thread *t)
{
	uint64_t h = sc_preempt_state_hash(t);
	bool full_up = false;

	if (t->probe_at_exit) {
		/* Its function returned: the budget preemption, at an
		 * instruction that ran once. */
		sc_preempt_here(e, t, h, SC_PREEMPT_BUDGET);
		return;
	}

	switch (sc_preempt_spin_check(t, sc_preempt_full_hash(t, h),
				      &full_up)) {
	case SC_SPIN_YES:
		sc_preempt_here(e, t, h, SC_PREEMPT_SPIN);
		return;
	case SC_SPIN_UNSURE:
		if (!full_up) {
			sc_preempt_go_on(e, t);
			return;
		}
		break;
	case SC_SPIN_NO:
		break;
	}
	/* A computation, not a spin (or its state repeats, but it makes
	 * progress in memory meanwhile). */
	uint64_t used = sc_preempt_cpu_used(t);
	uint64_t budget = (uint64_t)BUDGET_SLICES * t->slice_us * 1000u;
	if (used >= budget) {
		if (!probe_exit(e, t, used))
			sc_preempt_here(e, t, h, SC_PREEMPT_BUDGET);
		return;
	}
	sc_preempt_remove_bp(t);
	t->probe = PROBE_NONE;
	t->nprobe_hashes = 0;
	t->probe_at_caller = false;
	t->slice_budget_ns = used * 2 > budget ? budget : used * 2;
	t->next_check_us = sc_now_us() + t->slice_us;
	sc_preempt_go_on(e, t);
}

bool sc_preempt_on_breakpoint(struct sc_engine *e, struct sc_thread *t,
			      uint64_t addr)
{
	if (!t->probe_bp_planted || addr != t->probe_pc)
		return false;
	if (t->probe == PROBE_HITS)
		probe_hit(e, t);
	else if (t->probe == PROBE_REPLAY_SAMPLE ||
		 t->probe == PROBE_REPLAY_SCAN)
		sc_preempt_replay_hit(e, t);
	else
		sc_preempt_go_on(e, t);
	return true;
}

bool sc_preempt_on_interrupt(struct sc_engine *e, struct sc_thread *t)
{
	if (!t->interrupt_pending)
		return false;
	t->interrupt_pending = false;
	if ((t->probe == PROBE_INTERRUPTED || t->probe == PROBE_ASLEEP) &&
	    e->running == t) {
		probe_interrupted(e, t);
		return true;
	}
	if (t->probe == PROBE_LEGACY && e->running == t) {
		sc_regs_fetch(t);
		if (sc_is_restart(&t->regs)) {
			asleep_in_kernel(e, t);
			return true;
		}
		sc_preempt_here(e, t, 0, 0);
		return true;
	}
	if (t->probe == PROBE_REPLAY_FREE && e->running == t) {
		sc_preempt_replay_sample(e, t);
		return true;
	}
	/* An interrupt that arrived after the thread had stopped for an
	 * event of its own: not a step, the thread simply goes on. */
	sc_resume_as_before(t);
	return true;
}
