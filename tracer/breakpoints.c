/* breakpoints.c - int3 breakpoints and stepping over them.
 *
 * One thread runs at a time, so the classic step-over (restore the byte,
 * single-step, re-insert) cannot let another thread slip past the
 * breakpoint: the others are all stopped or inside the kernel.
 */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <linux/ptrace.h>  /* struct ptrace_peeksiginfo_args */
#include <sys/wait.h>

#include "internal.h"

static const uint8_t INT3 = 0xcc;
/* Queued signals looked at for a breakpoint's trap: a thread has a
 * handful at most. */
#define TRAP_PEEK_MAX 8

static size_t bp_lower_bound(const struct sc_process *p, uint64_t addr)
{
	size_t lo = 0, hi = p->nbps;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (p->bps[mid].addr < addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

struct sc_breakpoint *sc_bp_find(struct sc_process *p, uint64_t addr)
{
	size_t i = bp_lower_bound(p, addr);

	if (i < p->nbps && p->bps[i].addr == addr)
		return &p->bps[i];
	return NULL;
}

void sc_bp_original_bytes(const struct sc_process *p, uint64_t addr,
			  uint8_t *buf, size_t len)
{
	for (size_t i = bp_lower_bound(p, addr);
	     i < p->nbps && p->bps[i].addr < addr + len; i++)
		if (p->bps[i].inserted)
			buf[p->bps[i].addr - addr] = p->bps[i].orig;
}

int sc_bp_add(struct sc_process *p, uint64_t addr, uint16_t kind,
	      uint8_t access, const char *name)
{
	if (sc_bp_find(p, addr))
		return 0;       /* an alias of a function already planted */
	uint8_t orig;
	if (sc_mem_read(p, addr, &orig, 1) < 0)
		return -1;
	if (sc_mem_write(p, addr, &INT3, 1) < 0)
		return -1;
	size_t i = bp_lower_bound(p, addr);
	struct sc_breakpoint *nb = realloc(p->bps, (p->nbps + 1) * sizeof(*nb));
	if (!nb) {
		sc_mem_write(p, addr, &orig, 1);
		return -1;
	}
	p->bps = nb;
	memmove(&p->bps[i + 1], &p->bps[i], (p->nbps - i) * sizeof(*nb));
	p->bps[i] = (struct sc_breakpoint){ .addr = addr, .orig = orig,
		.kind = kind, .access = access, .inserted = true, .name = name };
	p->nbps++;
	return 0;
}

#define REMOVED_KEPT (sizeof(((struct sc_process *)0)->removed_bps) / \
		      sizeof(uint64_t))

int sc_bp_remove(struct sc_process *p, uint64_t addr)
{
	size_t i = bp_lower_bound(p, addr);

	if (i >= p->nbps || p->bps[i].addr != addr)
		return -1;
	if (p->bps[i].inserted)
		sc_mem_write(p, addr, &p->bps[i].orig, 1);
	memmove(&p->bps[i], &p->bps[i + 1], (p->nbps - i - 1) * sizeof(*p->bps));
	p->nbps--;
	p->removed_bps[p->nremoved++ % REMOVED_KEPT] = addr;
	return 0;
}

/* t stopped with a SIGTRAP that no breakpoint explains: did it execute
 * the int3 of one removed since (a probe given up while its thread ran,
 * the trap reported after the removal)?  Then it is put back on that
 * instruction, which now holds its own byte again, to run it: the
 * trap was ours, never the program's signal.  An int3 of the program
 * itself is still in memory, and a SIGTRAP sent by kill() has another
 * si_code. */
bool sc_bp_stale_trap(struct sc_thread *t)
{
	struct sc_process *p = t->proc;
	uint64_t addr = t->regs.rip - 1;
	siginfo_t si;
	uint8_t byte;

	if (ptrace(PTRACE_GETSIGINFO, t->tid, 0, &si) < 0 ||
	    si.si_code != SI_KERNEL ||
	    sc_mem_read(p, addr, &byte, 1) < 0 || byte == INT3)
		return false;
	for (size_t i = 0; i < REMOVED_KEPT && i < p->nremoved; i++)
		if (p->removed_bps[i] == addr) {
			t->regs.rip = addr;
			t->regs_dirty = true;
			return true;
		}
	return false;
}

/* Has t executed an int3 whose SIGTRAP is still queued?  An interrupt
 * (PTRACE_INTERRUPT) that comes while the thread is in the kernel for
 * the trap is reported first: the thread stops for it one byte past the
 * int3, inside the instruction the breakpoint replaced, with the trap
 * still to come.  Nothing may be planted at that rip (a probe's int3
 * there corrupts the instruction: the program crashed at free+4) nor
 * recorded as the thread's place; resumed, it stops for the trap. */
bool sc_bp_trap_pending(const struct sc_thread *t)
{
	siginfo_t queued[TRAP_PEEK_MAX];
	struct ptrace_peeksiginfo_args args = { .off = 0, .flags = 0,
						.nr = TRAP_PEEK_MAX };
	long n = ptrace(PTRACE_PEEKSIGINFO, t->tid, &args, queued);

	for (long i = 0; i < n; i++)
		if (queued[i].si_signo == SIGTRAP &&
		    queued[i].si_code == SI_KERNEL)
			return true;
	return false;
}

void sc_bp_remove_mem(struct sc_process *p)
{
	size_t kept = 0;

	for (size_t i = 0; i < p->nbps; i++) {
		struct sc_breakpoint *bp = &p->bps[i];
		if (!bp->mem) {
			p->bps[kept++] = *bp;
			continue;
		}
		if (bp->inserted)
			sc_mem_write(p, bp->addr, &bp->orig, 1);
	}
	p->nbps = kept;
}

/* Forget all breakpoints without touching memory (the image is gone). */
void sc_bp_clear(struct sc_process *p)
{
	free(p->bps);
	p->bps = NULL;
	p->nbps = 0;
	p->entry_bp = 0;
	p->free_bp = 0;
	p->libc_ready = false;
	sc_code_forget(p);
}

static bool fault_of_instruction(int sig)
{
	return sig == SIGSEGV || sig == SIGBUS || sig == SIGILL ||
	       sig == SIGFPE;
}

/* Execute the original instruction under the breakpoint at t's rip.
 * Signals that arrive meanwhile are kept for the next resume.  Returns 0
 * when t is stopped after the instruction, 1 when t is dying (its status
 * was deferred to the main loop), -1 on error. */
int sc_bp_step_over(struct sc_engine *e, struct sc_thread *t)
{
	struct sc_breakpoint *bp = sc_bp_find(t->proc, t->regs.rip);
	int status;

	if (!bp)
		return 0;
	if (!e->no_emulation && sc_emulate_at_breakpoint(t, bp)) {
		t->stop = STOP_EVENT;
		return 0;
	}
	if (sc_regs_flush(t) < 0)
		return -1;
	if (sc_mem_write(t->proc, bp->addr, &bp->orig, 1) < 0)
		return -1;
	for (;;) {
		if (ptrace(PTRACE_SINGLESTEP, t->tid, 0, 0) < 0) {
			if (errno == ESRCH)
				return 0;  /* killed: the exit shows up later */
			return -1;
		}
		pid_t r = waitpid(t->tid, &status, __WALL);
		if (r < 0)
			return -1;
		enum sc_stop_class c = sc_classify_status(status);
		if (c == WS_SIGNAL && WSTOPSIG(status) == SIGTRAP)
			break;      /* the single-step trap: done */
		if (c == WS_SIGNAL && fault_of_instruction(WSTOPSIG(status))) {
			/* The instruction itself faults (a use after free):
			 * stepping again would fault forever.  Deliver the
			 * signal as the thread's own at that instruction. */
			sc_mem_write(t->proc, bp->addr, &INT3, 1);
			sc_regs_fetch(t);
			sc_note_fault(e, t, WSTOPSIG(status));
			t->stop = STOP_EVENT;
			/* replay --gdb: kept here, before the instruction. */
			if (!sc_hand_over_at_fault(e, t))
				t->pending_signal = WSTOPSIG(status);
			return 0;
		}
		if (c == WS_SIGNAL) {
			/* Another thread's signal, delivered when the thread
			 * goes on: if it ends the process, the report names
			 * the thread, where and the sender, as on_signal's
			 * do (QA: a pthread_kill before the handler was set
			 * said only "killed by SIGUSR1"). */
			sc_note_if_ends_process(e, t, WSTOPSIG(status));
			t->pending_signal = WSTOPSIG(status);
			continue;   /* not executed yet: step again */
		}
		if (c == WS_EVENT_STOP || c == WS_GROUP_STOP) {
			/* An interrupt sent before this stop: absorbed. */
			t->interrupt_pending = false;
			continue;
		}
		/* Death or an exit stop (exit_group, SIGKILL): re-insert and
		 * hand the status back to the main loop. */
		sc_mem_write(t->proc, bp->addr, &INT3, 1);
		sc_engine_defer_status(e, t->tid, status);
		return 1;
	}
	sc_mem_write(t->proc, bp->addr, &INT3, 1);
	t->stop = STOP_EVENT;
	return sc_regs_fetch(t);
}

uint16_t sc_mem_event_kind(uint8_t access)
{
	return access == SC_ACC_READ ? SC_EV_MEM_READ :
	       access == SC_ACC_WRITE ? SC_EV_MEM_WRITE : SC_EV_MEM_RMW;
}

/* Plant n memory-event breakpoints whose addresses (sorted, inside
 * [lo, hi)) are read with a stride from addrs, described by table[i].
 * One read and one write of the whole range instead of two syscalls per
 * breakpoint.  Addresses that already have a breakpoint keep it. */
int sc_bp_add_mem(struct sc_process *p, uint64_t lo, uint64_t hi, size_t n,
		  const uint64_t *addrs, size_t stride,
		  struct sc_mem_insn *table)
{
	size_t len = (size_t)(hi - lo);
	uint8_t *text = malloc(len);
	struct sc_breakpoint *merged = malloc((p->nbps + n) * sizeof(*merged));
	size_t i = 0, j = 0, k = 0;

	if (!text || !merged || sc_mem_read(p, lo, text, len) < 0) {
		free(text);
		free(merged);
		return -1;
	}
#define ADDR(idx) (*(const uint64_t *)((const char *)addrs + (idx) * stride))
	while (i < p->nbps || j < n) {
		if (j >= n || (i < p->nbps && p->bps[i].addr <= ADDR(j))) {
			if (j < n && p->bps[i].addr == ADDR(j))
				j++;    /* already planted: keep the old one */
			merged[k++] = p->bps[i++];
			continue;
		}
		uint64_t a = ADDR(j);
		merged[k++] = (struct sc_breakpoint){ .addr = a,
			.orig = text[a - lo], .kind = sc_mem_event_kind(table[j].access),
			.access = table[j].access, .inserted = true,
			.name = NULL, .mem = &table[j] };
		text[a - lo] = INT3;
		j++;
	}
#undef ADDR
	int rc = sc_mem_write(p, lo, text, len);
	free(text);
	if (rc < 0) {
		free(merged);
		return -1;
	}
	free(p->bps);
	p->bps = merged;
	p->nbps = k;
	return 0;
}
