/* elf_symbols.c - the defined symbols of an ELF file: .symtab, else
 * .dynsym (include/elf_symbols.h). */
#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#include "elf_symbols.h"

int sc_elf_symbols(Elf *elf,
		   int (*fn)(const GElf_Sym *s, const char *name, void *arg),
		   void *arg)
{
	bool took = false;

	for (int pass = 0; pass < 2 && !took; pass++) {
		Elf_Scn *scn = NULL;
		Elf32_Word want = pass ? SHT_DYNSYM : SHT_SYMTAB;
		while ((scn = elf_nextscn(elf, scn))) {
			GElf_Shdr sh;
			if (!gelf_getshdr(scn, &sh) || sh.sh_type != want ||
			    !sh.sh_entsize)
				continue;
			Elf_Data *d = elf_getdata(scn, NULL);
			size_t n = d ? sh.sh_size / sh.sh_entsize : 0;
			for (size_t i = 0; i < n; i++) {
				GElf_Sym s;
				if (!gelf_getsym(d, (int)i, &s) || !s.st_value ||
				    s.st_shndx == SHN_UNDEF)
					continue;
				int rc = fn(&s, elf_strptr(elf, sh.sh_link,
							  s.st_name), arg);
				if (rc < 0)
					return -1;
				took |= rc > 0;
			}
		}
	}
	return 0;
}

size_t sc_elf_note_build_id(Elf *elf, uint8_t *out, size_t cap)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE)
			continue;
		Elf_Data *data = elf_getdata(scn, NULL);
		size_t off = 0, name_off, desc_off;
		GElf_Nhdr nh;
		while (data && (off = gelf_getnote(data, off, &nh, &name_off,
						   &desc_off)) > 0)
			if (nh.n_type == NT_GNU_BUILD_ID && nh.n_descsz <= cap) {
				memcpy(out, (uint8_t *)data->d_buf + desc_off,
				       nh.n_descsz);
				return nh.n_descsz;
			}
	}
	return 0;
}
