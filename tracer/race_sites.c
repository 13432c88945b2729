/* race_sites.c - the breakpoints of race granularity: a given list of
 * instructions (those a race detection saw racing in earlier runs), not
 * every memory access of a module.
 *
 * The list holds absolute addresses: the target runs without ASLR, so an
 * instruction of the program's own code has the same address in every run
 * of a session (that is how event pcs are recorded too).  Each address is
 * checked before it gets an int3: it must lie in a file mapping of the
 * program's own (never the system's libraries, whose code no pilot run
 * instruments) and decode, with the same decoder as mem granularity, to an
 * instruction that touches non-stack memory, and lie on an instruction
 * boundary (below).  Anything else (an image that is not the one of the
 * pilot runs: another program after exec, a rebuilt binary) is skipped
 * rather than corrupting an instruction.
 *
 * The boundary check matters with --follow-forks: a script's shell and
 * the test it starts are both position-independent executables loaded at
 * the same address, so a racing pc of the test may fall in the middle of
 * one of the shell's instructions, where the bytes happen to decode as a
 * memory access too (inside "mov %fs:0x28,%rax", "mov 0x28,%rax"): an
 * int3 there turned the shell's instruction into another one, and dash
 * crashed in most runs of SCTBench's aget-bug2.  x86 decoding
 * resynchronises within a few instructions, so sweeps started at several
 * points before pc agree on the real boundaries: pc is kept when most of
 * them land on it.
 */
#include <capstone/capstone.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* Longest x86-64 instruction. */
#define INSN_MAX 15

/* Collect the mappings of the program's own code.  Code only: another
 * image's read-only data (its ELF header, its strings) may lie at a racing
 * pc of the pilot's image. */
static int add_own_code(const struct sc_map_entry *m, void *arg)
{
	struct sc_addr_ranges *own = arg;

	if (m->exec && !sc_system_library(m->path) &&
	    sc_addr_ranges_push(own, m->start, m->end) < 0)
		return -1;
	return 0;
}

/* Decode the instruction at pc from p's memory (no int3 of ours may lie
 * there yet); true when it is a memory access, described in *m. */
static bool decode_at(csh cs, cs_insn *in, struct sc_process *p, uint64_t pc,
		      struct sc_mem_insn *m)
{
	uint8_t code[INSN_MAX];
	const uint8_t *c = code;
	size_t size = sizeof(code);
	uint64_t a = pc;

	/* The tail of the read may cross into an unmapped page: retry with
	 * less, an instruction near a mapping's end is shorter anyway. */
	while (size > 0 && sc_mem_read(p, pc, code, size) < 0)
		size--;
	if (size == 0 || !cs_disasm_iter(cs, &c, &size, &a, in))
		return false;
	/* A racing pc was an event in a pilot run, whatever its base: one
	 * based on rsp too, where the stack slot was watched (rules 4,
	 * stack_watch.c); before, no such pc was ever an event. */
	return sc_mem_describe(in, SC_STACK_SHARED, m);
}

/* Bytes before pc where the boundary sweeps start, and how many starts. */
#define SWEEP_BACK 64
#define SWEEP_STARTS 16

bool sc_insn_boundary(size_t cs, struct cs_insn *in, const uint8_t *code,
		      size_t back, size_t ahead, uint64_t pc)
{
	uint64_t from = pc - back;
	int hits = 0;

	if (back < SWEEP_STARTS)
		return true;    /* the mapping starts at or right before pc */
	for (size_t k = 0; k < SWEEP_STARTS; k++) {
		const uint8_t *c = code + k;
		size_t size = back + ahead - k;
		uint64_t a = from + k;
		/* Sweep until the next instruction would start at or past pc;
		 * bytes that do not decode (a sweep that started inside an
		 * instruction) are stepped over one at a time. */
		while (a < pc && size > 0) {
			if (!cs_disasm_iter(cs, &c, &size, &a, in)) {
				size_t skip = sc_undecoded_length(c, size);
				c += skip;
				size -= skip;
				a += skip;
			}
		}
		hits += a == pc;
	}
	return 2 * hits > SWEEP_STARTS;
}

/* The bytes around pc that decide whether it is a site: SWEEP_BACK
 * before it (the boundary sweeps) and INSN_MAX from it (its own
 * instruction), fewer near the start or end of a mapping. */
struct window {
	uint8_t code[SWEEP_BACK + INSN_MAX];
	size_t back, ahead;
};

static void read_window(struct sc_process *p, uint64_t pc, struct window *w)
{
	uint64_t from = pc - SWEEP_BACK;

	w->back = SWEEP_BACK;
	w->ahead = INSN_MAX;
	/* The instruction that starts before pc must decode whole, so read
	 * past pc too; near the end or the start of a mapping, what can be
	 * read. */
	while (w->ahead > 1 && sc_mem_read(p, pc, w->code, w->ahead) < 0)
		w->ahead--;
	while (w->back > 0 &&
	       sc_mem_read(p, from, w->code, w->back + w->ahead) < 0) {
		w->back--;
		from++;
	}
}

bool sc_mem_insn_ending_at(struct sc_process *p, uint64_t end, uint64_t *pc,
			   struct sc_mem_insn *m)
{
	cs_insn *in;
	csh cs;
	bool found = false;

	if (cs_open(CS_ARCH_X86, CS_MODE_64, &cs) != CS_ERR_OK)
		return false;
	cs_option(cs, CS_OPT_DETAIL, CS_OPT_ON);
	in = cs_malloc(cs);
	/* Shortest first: a longer candidate that decodes to end too is
	 * told apart by the boundary sweeps. */
	for (uint64_t len = 1; in && len <= INSN_MAX && len < end; len++) {
		uint64_t start = end - len, a = start;
		struct window w;
		const uint8_t *c;
		size_t size;

		read_window(p, start, &w);
		/* Our int3s on the instructions around it (mem granularity)
		 * would decode as other instructions. */
		sc_bp_original_bytes(p, start - w.back, w.code,
				     w.back + w.ahead);
		if (!sc_insn_boundary(cs, in, w.code, w.back, w.ahead, start))
			continue;
		c = w.code + w.back;
		size = w.ahead;
		if (!cs_disasm_iter(cs, &c, &size, &a, in) || a != end)
			continue;
		found = sc_mem_describe(in, SC_STACK_SHARED, m);
		*pc = start;
		break;
	}
	if (in)
		cs_free(in, 1);
	cs_close(&cs);
	return found;
}

/* What a pc's window decided, kept for the job's later runs: the same
 * race pcs are checked at the start of every run, 16 disassembly sweeps
 * each, and with hundreds of pcs that was a tenth of the supervisor's
 * time at race granularity.  The window's bytes are the key, so another
 * image at the same address (a script's shell, a rebuilt binary) is
 * decided afresh. */
struct site_memo {
	uint64_t pc;
	struct window w;
	bool site;
	struct sc_mem_insn m;
};

static struct site_memo *memo;
static size_t nmemo, capmemo;

static size_t memo_lower_bound(uint64_t pc)
{
	size_t lo = 0, hi = nmemo;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (memo[mid].pc < pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static const struct site_memo *memo_find(uint64_t pc, const struct window *w)
{
	size_t i = memo_lower_bound(pc);

	if (i < nmemo && memo[i].pc == pc && memo[i].w.back == w->back &&
	    memo[i].w.ahead == w->ahead &&
	    memcmp(memo[i].w.code, w->code, w->back + w->ahead) == 0)
		return &memo[i];
	return NULL;
}

/* Keep (or replace) pc's verdict; a failure to grow only costs the next
 * run a decode. */
static void memo_store(uint64_t pc, const struct window *w, bool site,
		       const struct sc_mem_insn *m)
{
	size_t i = memo_lower_bound(pc);

	if (i == nmemo || memo[i].pc != pc) {
		if (nmemo == capmemo) {
			size_t cap = capmemo ? 2 * capmemo : 64;
			struct site_memo *nv = realloc(memo, cap * sizeof(*nv));
			if (!nv)
				return;
			memo = nv;
			capmemo = cap;
		}
		memmove(&memo[i + 1], &memo[i], (nmemo - i) * sizeof(*memo));
		nmemo++;
	}
	memo[i] = (struct site_memo){ .pc = pc, .w = *w, .site = site };
	if (site)
		memo[i].m = *m;
}

int sc_plant_race_breakpoints(struct sc_engine *e, struct sc_process *p)
{
	const uint64_t *pcs = e->cfg->race_pcs;
	size_t n = e->cfg->nrace_pcs, k = 0;
	struct sc_mem_insn *table, **nt;
	uint64_t *addrs;
	cs_insn *in = NULL;
	csh cs = 0;
	bool cs_ready = false;
	int planted = 0;

	struct sc_addr_ranges own = { 0 };

	if (!pcs || n == 0)
		return 0;
	/* One read of the maps for all the pcs: a session's race list
	 * grows to hundreds of pcs. */
	if (sc_maps_foreach(p->pid, add_own_code, &own) < 0) {
		sc_addr_ranges_free(&own);
		return -1;
	}
	table = malloc(n * sizeof(*table));
	addrs = malloc(n * sizeof(*addrs));
	nt = realloc(e->mem_tables, (e->nmem_tables + 1) * sizeof(*nt));
	if (nt)
		e->mem_tables = nt;
	if (!table || !addrs || !nt)
		goto fail;
	/* All decoded first: a planted int3 would change the bytes of the
	 * next instruction's read when two sites are close. */
	for (size_t i = 0; i < n; i++) {
		struct window w;
		const struct site_memo *known;
		bool site;

		if (!sc_addr_ranges_contain(&own, pcs[i]))
			continue;
		read_window(p, pcs[i], &w);
		known = memo_find(pcs[i], &w);
		if (known) {
			if (known->site) {
				table[k] = known->m;
				addrs[k++] = pcs[i];
			}
			continue;
		}
		/* Capstone only when some pc is new to this job. */
		if (!cs_ready) {
			if (cs_open(CS_ARCH_X86, CS_MODE_64, &cs) != CS_ERR_OK)
				goto fail;
			cs_ready = true;
			cs_option(cs, CS_OPT_DETAIL, CS_OPT_ON);
			in = cs_malloc(cs);
			if (!in)
				goto fail;
		}
		site = sc_insn_boundary(cs, in, w.code, w.back, w.ahead,
					pcs[i]) &&
		       decode_at(cs, in, p, pcs[i], &table[k]);
		memo_store(pcs[i], &w, site, &table[k]);
		if (site)
			addrs[k++] = pcs[i];
	}
	if (in)
		cs_free(in, 1);
	if (cs_ready)
		cs_close(&cs);
	sc_addr_ranges_free(&own);
	/* The table lives as long as the run: breakpoints point into it. */
	e->mem_tables[e->nmem_tables++] = table;
	for (size_t i = 0; i < k; i++)
		if (sc_bp_add_mem(p, addrs[i], addrs[i] + 1, 1, &addrs[i],
				  sizeof(addrs[i]), &table[i]) == 0)
			planted++;
	free(addrs);
	return planted;
fail:
	if (in)
		cs_free(in, 1);
	if (cs_ready)
		cs_close(&cs);
	free(table);
	free(addrs);
	sc_addr_ranges_free(&own);
	return -1;
}
