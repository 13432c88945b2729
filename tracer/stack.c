/* stack.c - the call stack of a stopped thread, symbolised.
 *
 * The unwinding is libunwind's (libunwind-ptrace: it reads the stopped
 * thread's registers and memory over ptrace and follows each module's
 * .eh_frame); naming each frame is symbolize.c's (libelf symbols, libdwarf
 * lines).  elfutils' libdw would do both, but it exports dwarf_* functions
 * under the same names as libdwarf, which the tracer links already.
 *
 * Used when a run ends badly (a crash): a fault inside libc says little by
 * itself ("libc.so.6+0x167ad8", an IFUNC variant of strlen without a
 * dynamic symbol); the frame of the program that called it says where the
 * bug is.  The thread must be in a ptrace stop.
 */
#include <libunwind-ptrace.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"

static void describe_frame(pid_t pid, uint64_t pc, bool innermost,
			   struct sc_frame *f)
{
	/* A return address points after the call: name the call. */
	uint64_t lookup = innermost ? pc : pc - 1;
	char path[4096];

	f->pc = pc;
	/* [vdso] and anonymous code are not the program's either. */
	f->own_code = sc_addr_module(pid, lookup, path, sizeof(path)) == 0 &&
		      path[0] == '/' && !sc_system_library(path);
	sc_symbolize(pid, lookup, f->text, sizeof(f->text));
}

size_t sc_stack_unwind(pid_t pid, pid_t tid, struct sc_frame *frames,
		       size_t max)
{
	unw_addr_space_t as = unw_create_addr_space(&_UPT_accessors, 0);
	void *upt;
	unw_cursor_t cursor;
	size_t n = 0;

	if (!as)
		return 0;
	upt = _UPT_create(tid);
	if (!upt) {
		unw_destroy_addr_space(as);
		return 0;
	}
	if (unw_init_remote(&cursor, as, upt) == 0) {
		do {
			unw_word_t ip;
			if (unw_get_reg(&cursor, UNW_REG_IP, &ip) < 0 || !ip)
				break;
			describe_frame(pid, ip, n == 0, &frames[n]);
			n++;
		} while (n < max && unw_step(&cursor) > 0);
	}
	_UPT_destroy(upt);
	unw_destroy_addr_space(as);
	return n;
}

const struct sc_frame *sc_stack_own_frame(const struct sc_frame *frames,
					  size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (frames[i].own_code)
			return &frames[i];
	return NULL;
}
