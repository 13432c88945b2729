/* stack_watch.c - a thread's stack slot that another thread reached is
 * watched (rules 4, sc_run_config.mem_sites).
 *
 * A thread's own stack operands (rsp-based; rbp-based where rbp is the
 * frame pointer) are no events at mem granularity: they are nearly all
 * private, and each would cost a stop.  But a local whose address
 * escapes is shared:
 *
 *     int n = 0;
 *     std::thread t([&] { n = n + 1; });
 *     n = n + 1;                       // main: [rbp-0x14], no event
 *
 * The worker's access goes through a pointer and is an event; main's is
 * not, so the race detector saw one side only and race granularity never
 * scheduled there (QA: 0 of 500 runs by default).
 *
 * So when a thread's memory event lands in another thread's stack, that
 * slot gets a hardware watchpoint in the owner (debug registers set with
 * PTRACE_POKEUSER; no performance counters involved).  The owner's later
 * accesses to it stop the owner just after the instruction: that
 * instruction, found by decoding backwards (race_sites.c), becomes a
 * memory event like any other.  The detector then sees both sides, and
 * race granularity plants its ordinary before-the-access breakpoint on
 * the owner's instruction (race sites take stack operands).
 *
 * Deterministic: a watch is set at an event and only on a thread stopped
 * under our control, so the same schedule sets the same watches, and a
 * replay (same rules) sees the same events.  At most four slots per
 * thread (x86's debug registers), each for mem_site_cap hits, and none
 * once the memory points are lifted (mem_event_cap).
 */
#include <stddef.h>
#include <signal.h>
#include <sys/ptrace.h>
#include <sys/user.h>

#include "internal.h"

/* Debug register offsets in struct user. */
#define DR_OFFSET(i) offsetof(struct user, u_debugreg[i])

/* DR7: local enable of slot i, and its read/write + length field. */
#define DR7_ENABLE(i) (1ul << (2 * (i)))
#define DR7_RW_ANY 3ul                  /* break on reads and writes */
#define DR7_FIELD_SHIFT(i) (16 + 4 * (i))

/* DR7's length code for a watch of size bytes. */
static unsigned long len_code(uint8_t size)
{
	switch (size) {
	case 1: return 0;
	case 2: return 1;
	case 8: return 2;
	default: return 3;      /* 4 */
	}
}

/* The aligned 1, 2, 4 or 8 bytes a watch covers for an access of size
 * bytes at addr: the access itself when aligned, else the 8 bytes around
 * it (0 when it straddles them). */
static uint64_t watch_span(uint64_t addr, uint8_t size, uint8_t *span)
{
	if ((size == 1 || size == 2 || size == 4 || size == 8) &&
	    addr % size == 0) {
		*span = size;
		return addr;
	}
	*span = 8;
	if ((addr & ~7ull) != ((addr + (size ? size : 1) - 1) & ~7ull))
		return 0;
	return addr & ~7ull;
}

/* u's stack mapping, looked up once: the mapping its rsp is in.  u is
 * stopped, its registers are valid (and maybe changed, to be written back
 * at its resume: not fetched again). */
static bool stack_known(struct sc_thread *u)
{
	if (u->stack_hi)
		return true;
	if (sc_maps_stack_at(u->proc->pid, u->regs.rsp, &u->stack_lo,
			     &u->stack_hi) < 0) {
		u->stack_lo = u->stack_hi = 0;
		return false;
	}
	return true;
}

/* Program u's debug registers with its watches. */
static int arm(struct sc_thread *u)
{
	unsigned long dr7 = 0;

	for (unsigned i = 0; i < u->nwatch; i++) {
		if (ptrace(PTRACE_POKEUSER, u->tid, DR_OFFSET(i),
			   (void *)u->watch_addr[i]) < 0)
			return -1;
		dr7 |= DR7_ENABLE(i) |
		       ((DR7_RW_ANY | len_code(u->watch_size[i]) << 2)
			<< DR7_FIELD_SHIFT(i));
	}
	return ptrace(PTRACE_POKEUSER, u->tid, DR_OFFSET(7), (void *)dr7) < 0
	       ? -1 : 0;
}

void sc_watch_escape(struct sc_engine *e, struct sc_thread *t, uint64_t addr,
		     uint8_t size)
{
	uint8_t span;
	uint64_t at;

	if (e->cfg->granularity != SC_GRAN_MEM || e->cfg->mem_sites < 4 ||
	    e->mem_lifted)
		return;
	for (size_t i = 0; i < e->nthreads; i++) {
		struct sc_thread *u = e->threads[i];

		/* Stopped under our control: its registers can be set, at
		 * a point every replay of this schedule reaches too. */
		if (u == t || u->proc != t->proc || !u->controlled ||
		    (u->state != TH_READY && u->state != TH_BLOCKED) ||
		    !stack_known(u) || addr < u->stack_lo ||
		    addr >= u->stack_hi)
			continue;
		at = watch_span(addr, size, &span);
		if (!at || u->nwatch == SC_WATCH_SLOTS)
			return;
		for (unsigned k = 0; k < u->nwatch; k++)
			if (u->watch_addr[k] == at)
				return;
		u->watch_addr[u->nwatch] = at;
		u->watch_size[u->nwatch] = span;
		u->watch_hits[u->nwatch] = 0;
		u->nwatch++;
		if (arm(u) < 0)
			u->nwatch--;
		return;
	}
}

/* Stop watching: slot k of u, or all of them. */
static void drop_watch(struct sc_thread *u, unsigned k)
{
	u->nwatch--;
	for (unsigned i = k; i < u->nwatch; i++) {
		u->watch_addr[i] = u->watch_addr[i + 1];
		u->watch_size[i] = u->watch_size[i + 1];
		u->watch_hits[i] = u->watch_hits[i + 1];
	}
	arm(u);
}

bool sc_watch_hit(struct sc_engine *e, struct sc_thread *t)
{
	siginfo_t si;
	struct sc_mem_insn m;
	uint64_t pc, ea;
	char module[4096];
	unsigned k;

	if (!t->nwatch || ptrace(PTRACE_GETSIGINFO, t->tid, 0, &si) < 0 ||
	    si.si_code != TRAP_HWBKPT)
		return false;
	ptrace(PTRACE_POKEUSER, t->tid, DR_OFFSET(6), (void *)0);
	if (e->mem_lifted) {
		t->nwatch = 0;
		arm(t);
		sc_resume(t, PTRACE_CONT);
		return true;
	}
	/* The instruction that touched the slot, and which slot: only an
	 * access of the program's own code is an event (the slot's memory
	 * is reused by the frames of libc's functions too).  t's registers
	 * are those of this stop (on_signal fetched them). */
	if (!sc_mem_insn_ending_at(t->proc, t->regs.rip, &pc, &m) ||
	    sc_addr_module(t->proc->pid, pc, module, sizeof(module)) < 0 ||
	    sc_system_library(module)) {
		sc_resume(t, PTRACE_CONT);
		return true;
	}
	ea = sc_mem_effective_address(&m, &t->regs, pc);
	for (k = 0; k < t->nwatch; k++)
		if (ea < t->watch_addr[k] + t->watch_size[k] &&
		    ea + (m.size ? m.size : 1) > t->watch_addr[k])
			break;
	if (k == t->nwatch) {
		/* Its base register changed with the access (mov (%rax),
		 * %rax): not one we can name. */
		sc_resume(t, PTRACE_CONT);
		return true;
	}
	if (e->cfg->mem_site_cap && ++t->watch_hits[k] >= e->cfg->mem_site_cap)
		drop_watch(t, k);
	t->stop = STOP_EVENT;
	t->next = (struct sc_event){ .thread = t->logical,
		.kind = sc_mem_event_kind(m.access), .access = m.access,
		.size = m.size, .pc = pc, .object = ea };
	sc_become_ready(e, t);
	return true;
}

void sc_watch_forget(struct sc_thread *t)
{
	/* exec cleared its debug registers and replaced its stack. */
	t->nwatch = 0;
	t->stack_lo = t->stack_hi = 0;
}
