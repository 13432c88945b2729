/*
 * test_symbol_cache.c - sc_symbol_cache_lookup() (tracer/symbol_cache.c)
 * names the function containing an address of this very test binary, with
 * the offset into it, as the reports' stacks need; the second lookup of
 * the same file (from the cache) answers the same; an address before any
 * function and a missing file give no symbol.  sc_symbol_cache_find()
 * gives a function's address from its name (a report names main).
 */
#include "config.h"

#include <dlfcn.h>
#include <elf.h>
#include <stdint.h>
#include <string.h>

#include "symbol_cache.h"
#include "tap.h"

/* Not static, not inlined: a symbol of its own with a size. */
__attribute__((noinline)) int symbol_cache_probe(int x);
__attribute__((noinline)) int symbol_cache_probe(int x)
{
	return x * 3 + 1;
}

int main(void)
{
	Dl_info info;
	char name[256];
	uint64_t offset = 99, vaddr;
	bool is_dyn = false;

	if (!dladdr((void *)symbol_cache_probe, &info) || !info.dli_fname) {
		skip(9, "dladdr cannot place this binary");
		return done_testing();
	}
	/* File-relative: a position-independent executable's first segment
	 * is at 0. */
	vaddr = (uint64_t)(uintptr_t)symbol_cache_probe -
		(uint64_t)(uintptr_t)info.dli_fbase;
	is_int(sc_symbol_cache_lookup("/proc/self/exe", vaddr + 3, STT_FUNC,
				      &is_dyn, name, sizeof(name), &offset),
	       0, "an address inside a function has a symbol");
	is_str(name, "symbol_cache_probe", "it is the function's");
	is_int((long)offset, 3, "with the offset into it");
	offset = 99;
	ok(sc_symbol_cache_lookup("/proc/self/exe", vaddr, STT_FUNC, &is_dyn,
				  name, sizeof(name), &offset) == 0 &&
	   strcmp(name, "symbol_cache_probe") == 0 && offset == 0,
	   "again, from the cache: the same at its first byte");
	is_int(sc_symbol_cache_lookup("/proc/self/exe", 0, STT_FUNC, &is_dyn,
				      name, sizeof(name), &offset),
	       -1, "address 0 is in no function");
	is_int(sc_symbol_cache_lookup("/nonexistent/file", vaddr, STT_FUNC,
				      &is_dyn, name, sizeof(name), &offset),
	       -1, "a missing file has no symbols");

	uint64_t found = 0;
	is_int(sc_symbol_cache_find("/proc/self/exe", "symbol_cache_probe",
				    STT_FUNC, &is_dyn, &found),
	       0, "a function is found by its name");
	ok(found == vaddr && is_dyn, "at its file-relative address");
	is_int(sc_symbol_cache_find("/proc/self/exe", "no_such_function_here",
				    STT_FUNC, &is_dyn, &found),
	       -1, "a name the file does not define is not found");
	return done_testing();
}
