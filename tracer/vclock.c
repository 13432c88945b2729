/*
 * vclock.c - a clock that is a function of the schedule.
 *
 * A program that reads the time can take another path in its replay: a
 * GoogleTest binary prints each test's duration, and its pilot runs at
 * memory granularity ("(0 ms)" or "(12 ms)") diverged in replay, run 1
 * included, whose trace every session keeps.  clock_gettime(),
 * gettimeofday() and time() never enter the kernel: they are functions
 * of the vDSO.  With cfg->vclock, each gets a breakpoint at its entry in
 * every controlled process, and a controlled thread's call is answered
 * here: the wall and monotonic clocks read the run's base times (chosen
 * when the session started and recorded in the trace) plus 10 us per
 * scheduling step and 1 us per clock read before it.  Replay gives the
 * same answers.  The CPU-time clocks (and any clock the vDSO itself
 * sends to the kernel) are left to the vDSO; so are threads that are not
 * controlled.
 *
 * The time-stamp counter too: the program is started with
 * PR_SET_TSC(PR_TSC_SIGSEGV) (inherited by its threads and children, kept
 * across exec), so that rdtsc and rdtscp fault; the fault is answered
 * here with the same virtual time at TSC_PER_NS ticks per ns (the real
 * counter for threads that are not controlled).  Go's runtime seeds each
 * thread's random numbers with it, which decide its scheduler's choices.
 */
#include <elf.h>
#include <errno.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/auxv.h>
#include <sys/syscall.h>
#include <signal.h>
#include <time.h>
#include <x86intrin.h>

#include "internal.h"

#define STEP_NS SC_VCLOCK_STEP_NS
#define READ_NS 1000u
/* The virtual counter: a 3 GHz clock that started an hour before. */
#define TSC_PER_NS 3u
#define TSC_BASE (3600ull * 1000000000ull * TSC_PER_NS)

static const char CLOCK_GETTIME[] = "clock_gettime";
static const char GETTIMEOFDAY[] = "gettimeofday";
static const char TIME[] = "time";

static const struct {
	const char *vdso_name;
	const char *name;       /* the breakpoint's: tells the three apart */
} functions[] = {
	{ "__vdso_clock_gettime", CLOCK_GETTIME },
	{ "__vdso_gettimeofday", GETTIMEOFDAY },
	{ "__vdso_time", TIME },
};
#define NFUNCTIONS (sizeof(functions) / sizeof(functions[0]))

/* Offsets of the functions in the vDSO image, from the supervisor's own
 * vDSO (the kernel maps the same image in every process); 0: none. */
static uint64_t offsets[NFUNCTIONS];
static bool offsets_read;

static void read_offsets(void)
{
	const uint8_t *base = (const uint8_t *)getauxval(AT_SYSINFO_EHDR);

	offsets_read = true;
	if (!base)
		return;
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)base;
	if (memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0 ||
	    eh->e_ident[EI_CLASS] != ELFCLASS64 || !eh->e_shoff)
		return;
	const Elf64_Phdr *ph = (const Elf64_Phdr *)(base + eh->e_phoff);
	uint64_t first_vaddr = 0;
	for (int i = 0; i < eh->e_phnum; i++)
		if (ph[i].p_type == PT_LOAD) {
			first_vaddr = ph[i].p_vaddr;
			break;
		}
	const Elf64_Shdr *sh = (const Elf64_Shdr *)(base + eh->e_shoff);
	for (int i = 0; i < eh->e_shnum; i++) {
		if (sh[i].sh_type != SHT_DYNSYM || !sh[i].sh_entsize ||
		    sh[i].sh_link >= eh->e_shnum)
			continue;
		const Elf64_Sym *sym = (const Elf64_Sym *)(base + sh[i].sh_offset);
		const char *str = (const char *)(base + sh[sh[i].sh_link].sh_offset);
		size_t n = sh[i].sh_size / sh[i].sh_entsize;
		for (size_t k = 0; k < n; k++) {
			if (ELF64_ST_TYPE(sym[k].st_info) != STT_FUNC ||
			    !sym[k].st_value)
				continue;
			for (size_t f = 0; f < NFUNCTIONS; f++)
				if (strcmp(str + sym[k].st_name,
					   functions[f].vdso_name) == 0)
					offsets[f] = sym[k].st_value - first_vaddr;
		}
	}
}

int sc_plant_vclock_breakpoints(struct sc_process *p)
{
	uint64_t vdso = sc_auxv_value(p->pid, AT_SYSINFO_EHDR);
	int planted = 0;

	if (!offsets_read)
		read_offsets();
	if (!vdso)
		return 0;
	for (size_t f = 0; f < NFUNCTIONS; f++)
		if (offsets[f] && sc_bp_add(p, vdso + offsets[f], SC_EV_NONE,
					   SC_ACC_NONE, functions[f].name) == 0)
			planted++;
	return planted;
}

uint64_t sc_vclock_now_ns(const struct sc_engine *e)
{
	return e->step * STEP_NS + e->clock_reads * READ_NS +
	       e->vclock_skip_ns;
}

/* The virtual time of this read, in ns since the run's base; *reads
 * counts the reads of its kind (clock functions, time-stamp counter). */
static uint64_t elapsed_ns(const struct sc_engine *e, uint64_t *reads)
{
	return e->step * STEP_NS + ++*reads * READ_NS + e->vclock_skip_ns;
}

/* Sleeps and timed waits end when the schedule says (virtual time), and
 * a step is 10 us: a program that measured its usleep(50000) read 10 us
 * and failed its own assertion that it slept (QA).  Time that a wait
 * slept through is added when it ends by its timeout, where the
 * schedule puts that: the same in a replay. */
void sc_vclock_advance_to(struct sc_engine *e, uint64_t due_vns)
{
	uint64_t now = sc_vclock_now_ns(e);

	if (due_vns > now)
		e->vclock_skip_ns += due_vns - now;
}

/* The run's base time of a clock the virtual clock answers for: the
 * wall clocks start at clock_realtime_ns, the monotonic ones (raw and
 * coarse too) at clock_monotonic_ns.  False for CPU-time clocks. */
static bool clock_base(const struct sc_run_config *cfg, long clock,
		       uint64_t *base)
{
	switch (clock) {
	case CLOCK_REALTIME: case CLOCK_REALTIME_COARSE: case CLOCK_TAI:
		*base = cfg->clock_realtime_ns;
		return true;
	case CLOCK_MONOTONIC: case CLOCK_MONOTONIC_RAW:
	case CLOCK_MONOTONIC_COARSE: case CLOCK_BOOTTIME:
		*base = cfg->clock_monotonic_ns;
		return true;
	default:
		return false;
	}
}

bool sc_vclock_clock_now_ns(const struct sc_engine *e, clockid_t clock,
			    uint64_t *ns)
{
	uint64_t base;

	if (!clock_base(e->cfg, clock, &base))
		return false;
	*ns = base + sc_vclock_now_ns(e);
	return true;
}

uint64_t sc_vclock_abs_vns(const struct sc_engine *e, clockid_t clock,
			   uint64_t at_ns)
{
	uint64_t base;

	if (!clock_base(e->cfg, clock, &base) || at_ns >= SC_TIMESPEC_MAX_NS)
		return 0;
	return at_ns > base ? at_ns - base : 0;
}

uint64_t sc_vclock_sleep_end_vns(const struct sc_engine *e,
				 struct sc_thread *t)
{
	uint64_t now = sc_vclock_now_ns(e), at;

	if (t->regs.orig_rax == SYS_clock_nanosleep &&
	    (t->regs.rsi & TIMER_ABSTIME)) {
		if (!sc_read_timespec_ns(t->proc, t->regs.rdx, &at))
			return now;
		return sc_vclock_abs_vns(e, (clockid_t)t->regs.rdi, at);
	}
	return now + t->next.sleep_ns;
}

static bool write_pair(struct sc_thread *t, uint64_t addr, uint64_t a,
		       uint64_t b)
{
	uint64_t pair[2] = { a, b };

	return sc_mem_write(t->proc, addr, pair, sizeof(pair)) == 0;
}

/* Return from the function at t's breakpoint with value ret. */
static void return_from(struct sc_thread *t, uint64_t ret)
{
	uint64_t to = 0;

	sc_mem_read(t->proc, t->regs.rsp, &to, sizeof(to));
	t->regs.rax = ret;
	t->regs.rip = to;
	t->regs.rsp += 8;
	t->regs_dirty = true;
}

/* Answer t's call of the clock function fn (one of the three names; for
 * clock_gettime, a clock that clock_base knows: sc_vclock_breakpoint
 * left the CPU-time clocks to the vDSO). */
static void answer(struct sc_engine *e, struct sc_thread *t, const char *fn)
{
	const struct sc_run_config *cfg = e->cfg;
	uint64_t ns, base = 0;

	if (fn == CLOCK_GETTIME) {
		clock_base(cfg, (long)t->regs.rdi, &base);
		ns = base + elapsed_ns(e, &e->clock_reads);
		return_from(t, write_pair(t, t->regs.rsi, ns / 1000000000u,
					  ns % 1000000000u)
			       ? 0 : (uint64_t)-EFAULT);
	} else if (fn == GETTIMEOFDAY) {
		ns = cfg->clock_realtime_ns + elapsed_ns(e, &e->clock_reads);
		bool ok = !t->regs.rdi ||
			  write_pair(t, t->regs.rdi, ns / 1000000000u,
				     ns % 1000000000u / 1000u);
		if (ok && t->regs.rsi)
			ok = sc_mem_write(t->proc, t->regs.rsi, &(uint64_t){ 0 },
					  sizeof(uint64_t)) == 0;
		return_from(t, ok ? 0 : (uint64_t)-EFAULT);
	} else {
		uint64_t sec = (cfg->clock_realtime_ns + elapsed_ns(e, &e->clock_reads)) /
			       1000000000u;
		if (t->regs.rdi)
			sc_mem_write(t->proc, t->regs.rdi, &sec, sizeof(sec));
		return_from(t, sec);
	}
}

/* Is this read of t the cfg->clock_wait_reads-th with no step since the
 * first?  Then t busy-waits on the clock (a loop until a deadline, or
 * until a flag that another thread's timeout sets): natively time passes
 * meanwhile and other threads' timeouts fire, but here virtual time
 * moves 1 us a read and a timeout is offered only at a decision (QA: a
 * thread's 100 ms poll while main read the clock until it was done: 3 of
 * 4 runs hung, 22 s for a 5 s budget).  The read becomes a yield that
 * waits in place, a decision where the others' timeouts can come.  A
 * function of the schedule: the replay yields at the same read. */
static bool clock_wait(struct sc_engine *e, const struct sc_thread *t)
{
	uint32_t limit = e->cfg->clock_wait_reads;

	if (!limit)
		return false;
	if (e->clock_streak_step != e->step ||
	    e->clock_streak_thread != t->logical) {
		e->clock_streak_step = e->step;
		e->clock_streak_thread = t->logical;
		e->clock_streak = 0;
	}
	return ++e->clock_streak >= limit;
}

bool sc_vclock_breakpoint(struct sc_engine *e, struct sc_thread *t,
			  const struct sc_breakpoint *bp)
{
	const struct sc_run_config *cfg = e->cfg;
	uint64_t base;

	if (!cfg->vclock || (bp->name != CLOCK_GETTIME &&
			     bp->name != GETTIMEOFDAY && bp->name != TIME))
		return false;
	if (bp->name == CLOCK_GETTIME &&
	    !clock_base(cfg, (long)t->regs.rdi, &base))
		return false;   /* CPU time: the vDSO's own answer */
	/* The streak starts anew at the yield's own step. */
	if (clock_wait(e, t)) {
		t->clock_wait_fn = bp->name;
		t->stop = STOP_BREAKPOINT;
		t->next = (struct sc_event){ .thread = t->logical,
			.kind = SC_EV_YIELD, .pc = bp->addr,
			.waits_in_place = true };
		sc_become_ready(e, t);
		return true;
	}
	answer(e, t, bp->name);
	sc_resume(t, PTRACE_CONT);
	return true;
}

bool sc_vclock_answer_wait(struct sc_engine *e, struct sc_thread *t)
{
	const char *fn = t->clock_wait_fn;

	if (!fn)
		return false;
	t->clock_wait_fn = NULL;
	answer(e, t, fn);
	return true;
}

bool sc_vclock_tsc(struct sc_engine *e, struct sc_thread *t)
{
	siginfo_t si;
	uint8_t insn[3];
	unsigned len;

	if (!e->cfg->vclock || ptrace(PTRACE_GETSIGINFO, t->tid, 0, &si) < 0 ||
	    si.si_code != SI_KERNEL || sc_regs_fetch(t) < 0 ||
	    sc_mem_read(t->proc, t->regs.rip, insn, sizeof(insn)) < 0)
		return false;
	if (insn[0] == 0x0f && insn[1] == 0x31)
		len = 2;                                /* rdtsc */
	else if (insn[0] == 0x0f && insn[1] == 0x01 && insn[2] == 0xf9)
		len = 3;                                /* rdtscp */
	else
		return false;
	/* Its own count of reads: the loader reads the counter before the
	 * entry point, where a fork server's copy starts (it takes the
	 * server's count), and no clock read may happen there. */
	uint64_t tsc = t->controlled
		? TSC_BASE + elapsed_ns(e, &e->tsc_reads) * TSC_PER_NS
		: __rdtsc();
	t->regs.rax = tsc & 0xffffffffu;
	t->regs.rdx = tsc >> 32;
	if (len == 3)
		t->regs.rcx = 0;                        /* IA32_TSC_AUX */
	t->regs.rip += len;
	t->regs_dirty = true;
	sc_resume_as_before(t);
	return true;
}
