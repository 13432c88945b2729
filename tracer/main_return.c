/*
 * main_return.c - where a process that exited non-zero decided to.
 *
 * exit(3) called by the program names its caller's line.  When main
 * returns the status, exit is called by libc's start code, and the only
 * frame of the program's own code left is its entry point: the report
 * said "at _start+0x20", which no user wrote.  main itself is the place
 * to look: the line of its opening (the return statement is gone with
 * its frame).
 */
#include <gelf.h>
#include <stdio.h>

#include "internal.h"
#include "symbol_cache.h"

/* How far into the entry point its call of __libc_start_main returns:
 * glibc's x86-64 _start is 0x26 bytes, returning at +0x20. */
#define ENTRY_CALL_SPAN 0x40

bool sc_main_returned(pid_t pid, const struct sc_frame *own, char *where,
		      size_t len)
{
	uint64_t entry = sc_auxv_entry(pid);
	uint64_t base, vaddr;
	char path[4096];
	bool is_dyn;

	/* A return address: the call is just before it. */
	if (!entry || own->pc - 1 < entry || own->pc - 1 >= entry + ENTRY_CALL_SPAN)
		return false;
	if (sc_addr_module_base(pid, own->pc, path, sizeof(path), &base) < 0 ||
	    sc_symbol_cache_find(path, "main", STT_FUNC, &is_dyn, &vaddr) < 0) {
		/* Stripped: no line to give, but not the entry's either. */
		snprintf(where, len, "main");
		return true;
	}
	sc_symbolize(pid, is_dyn ? base + vaddr : vaddr, where, len);
	return true;
}
