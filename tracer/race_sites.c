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
	/* A racing pc was an event in a pilot run, whatever its base. */
	return sc_mem_describe(in, false, m);
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
				c++;
				size--;
				a++;
			}
		}
		hits += a == pc;
	}
	return 2 * hits > SWEEP_STARTS;
}

/* Is pc the start of an instruction of p's code?  (See the top.) */
static bool on_boundary(csh cs, cs_insn *in, struct sc_process *p,
			uint64_t pc)
{
	uint8_t code[SWEEP_BACK + INSN_MAX];
	uint64_t from = pc - SWEEP_BACK;
	size_t back = SWEEP_BACK, ahead = INSN_MAX;

	/* The instruction that starts before pc must decode whole, so read
	 * past pc too; near the end or the start of a mapping, what can be
	 * read. */
	while (ahead > 1 && sc_mem_read(p, pc, code, ahead) < 0)
		ahead--;
	while (back > 0 && sc_mem_read(p, from, code, back + ahead) < 0) {
		back--;
		from++;
	}
	return sc_insn_boundary(cs, in, code, back, ahead, pc);
}

int sc_plant_race_breakpoints(struct sc_engine *e, struct sc_process *p)
{
	const uint64_t *pcs = e->cfg->race_pcs;
	size_t n = e->cfg->nrace_pcs, k = 0;
	struct sc_mem_insn *table, **nt;
	uint64_t *addrs;
	cs_insn *in;
	csh cs;
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
	if (cs_open(CS_ARCH_X86, CS_MODE_64, &cs) != CS_ERR_OK) {
		sc_addr_ranges_free(&own);
		return -1;
	}
	cs_option(cs, CS_OPT_DETAIL, CS_OPT_ON);
	in = cs_malloc(cs);
	table = malloc(n * sizeof(*table));
	addrs = malloc(n * sizeof(*addrs));
	nt = realloc(e->mem_tables, (e->nmem_tables + 1) * sizeof(*nt));
	if (nt)
		e->mem_tables = nt;
	if (!in || !table || !addrs || !nt) {
		if (in)
			cs_free(in, 1);
		cs_close(&cs);
		free(table);
		free(addrs);
		sc_addr_ranges_free(&own);
		return -1;
	}
	/* All decoded first: a planted int3 would change the bytes of the
	 * next instruction's read when two sites are close. */
	for (size_t i = 0; i < n; i++) {
		if (!sc_addr_ranges_contain(&own, pcs[i]))
			continue;
		if (!on_boundary(cs, in, p, pcs[i]) ||
		    !decode_at(cs, in, p, pcs[i], &table[k]))
			continue;
		addrs[k++] = pcs[i];
	}
	cs_free(in, 1);
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
}
