/*
 * symbol_cache.h - the function or data symbols of ELF files, read once
 * per process and looked up by binary search.
 *
 * A session reports thousands of failing runs' stacks, each frame a
 * lookup in the file of its module: reading the symbol table of libc (or
 * its debug file, some 10000 symbols) for every frame of every run was a
 * fifth of the supervisor's time in a session whose runs fail half the
 * time.  A file is known by path, device, inode, size and mtime, so a
 * rebuilt program is read again.
 *
 * A stripped library names only its exported functions, so a crash in
 * an internal one (glibc's __lll_lock_wait, under pthread_mutex_lock)
 * would be "libc.so.6+0x8610f": when no symbol of the file contains the
 * address, its separate debug file is searched, found by build-id under
 * /usr/lib/debug/.build-id (Debian's *-dbg and -dbgsym packages, e.g.
 * libc6-dbg) when the file is read.
 */
#ifndef SCHEDCTL_SYMBOL_CACHE_H
#define SCHEDCTL_SYMBOL_CACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The symbol of ELF type `type` (STT_FUNC, STT_OBJECT) containing vaddr
 * (file-relative) in the file at path: the innermost (the one that starts
 * last) of nested ones.  Its raw (mangled) name into name, vaddr's offset
 * into *offset; *is_dyn says whether the file is position-independent
 * (also when no symbol contains vaddr).  0, or -1 when none does (nor
 * in the debug file) or the file cannot be read. */
int sc_symbol_cache_lookup(const char *path, uint64_t vaddr, int type,
			   bool *is_dyn, char *name, size_t len,
			   uint64_t *offset);

/* The file-relative address of the symbol called name (raw, as the
 * file spells it) of type `type` in the file at path, or in its debug
 * file; *is_dyn as above.  0, or -1 when there is none. */
int sc_symbol_cache_find(const char *path, const char *name, int type,
			 bool *is_dyn, uint64_t *vaddr);

#endif
