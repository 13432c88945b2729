/*
 * frame_functions.c - which functions of a module keep a frame pointer.
 *
 * mem granularity leaves accesses to the thread's own stack alone, and
 * took every rbp-based operand for one.  That holds in code that keeps a
 * frame pointer (-O0, -fno-omit-frame-pointer), but optimised x86-64 code
 * uses rbp as one more general register: in a GoogleTest test built with
 * -O1, the racing "hits = h + 1" of a lambda was "mov %ebx,0x0(%rbp)",
 * and neither mem granularity nor race granularity's pilot ever saw it.
 * A function keeps a frame pointer when its code starts (after an
 * endbr64) with push %rbp; mov %rsp,%rbp.  Functions come from the
 * symbol table; without one, every function is taken to keep it (the
 * old rule).
 */
#include <gelf.h>
#include <libelf.h>
#include <string.h>

#include "elf_symbols.h"
#include "internal.h"

static const uint8_t ENDBR64[] = { 0xf3, 0x0f, 0x1e, 0xfa };
static const uint8_t PUSH_RBP = 0x55;
static const uint8_t MOV_RSP_RBP[][3] = { { 0x48, 0x89, 0xe5 },
					  { 0x48, 0x8b, 0xec } };

static bool sets_frame_pointer(const uint8_t *code, size_t len)
{
	if (len >= sizeof(ENDBR64) && !memcmp(code, ENDBR64, sizeof(ENDBR64))) {
		code += sizeof(ENDBR64);
		len -= sizeof(ENDBR64);
	}
	if (len < 4 || code[0] != PUSH_RBP)
		return false;
	for (size_t i = 0; i < sizeof(MOV_RSP_RBP) / sizeof(MOV_RSP_RBP[0]); i++)
		if (!memcmp(code + 1, MOV_RSP_RBP[i], 3))
			return true;
	return false;
}

/* The bytes of [addr, addr + len) from the executable section holding
 * them; NULL when none does. */
static const uint8_t *code_at(Elf *elf, uint64_t addr, size_t *len)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS ||
		    !(sh.sh_flags & SHF_EXECINSTR) || addr < sh.sh_addr ||
		    addr >= sh.sh_addr + sh.sh_size)
			continue;
		Elf_Data *d = elf_getdata(scn, NULL);
		if (!d || !d->d_buf || addr - sh.sh_addr >= d->d_size)
			return NULL;
		*len = d->d_size - (addr - sh.sh_addr);
		return (const uint8_t *)d->d_buf + (addr - sh.sh_addr);
	}
	return NULL;
}

struct frame_walk {
	Elf *elf;
	struct sc_addr_ranges *fp;
	bool *known;
};

/* sc_elf_symbols: a function, and whether it keeps a frame pointer. */
static int note_function(const GElf_Sym *s, const char *name, void *arg)
{
	struct frame_walk *w = arg;
	const uint8_t *code;
	size_t len;

	(void)name;
	if (GELF_ST_TYPE(s->st_info) != STT_FUNC || !s->st_size)
		return 0;
	*w->known = true;
	code = code_at(w->elf, s->st_value, &len);
	if (code && sets_frame_pointer(code, len) &&
	    sc_addr_ranges_push(w->fp, s->st_value,
				s->st_value + s->st_size) < 0)
		return -1;
	return 1;
}

int sc_frame_functions(Elf *elf, struct sc_addr_ranges *fp, bool *known)
{
	struct frame_walk w = { elf, fp, known };

	memset(fp, 0, sizeof(*fp));
	*known = false;
	if (sc_elf_symbols(elf, note_function, &w) < 0) {
		sc_addr_ranges_free(fp);
		*known = false;
		return -1;
	}
	sc_addr_ranges_normalize(fp);
	return 0;
}
