/* elf_symbols.h - the defined symbols of an ELF file (tracer/
 * elf_symbols.c), for the tracer's and the analyzer's readers. */
#ifndef SCHEDCTL_ELF_SYMBOLS_H
#define SCHEDCTL_ELF_SYMBOLS_H

#include <gelf.h>

/* Call fn on each symbol of elf with a value, defined in a section, with
 * its name (NULL when it has none), from .symtab; when fn took none of
 * them (answered > 0), or there is no .symtab (a stripped file), from
 * .dynsym instead.  fn < 0 stops the walk: then -1, else 0. */
int sc_elf_symbols(Elf *elf,
		   int (*fn)(const GElf_Sym *s, const char *name, void *arg),
		   void *arg);

/* The GNU build-id note of elf into out (at most cap bytes); its length,
 * 0 when there is none. */
size_t sc_elf_note_build_id(Elf *elf, uint8_t *out, size_t cap);

#endif
