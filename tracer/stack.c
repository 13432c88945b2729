/* stack.c - the call stack of a stopped thread, symbolised.
 *
 * The unwinding is libunwind's (libunwind-ptrace: it reads the stopped
 * thread's registers and memory over ptrace and follows each module's
 * .eh_frame); naming each frame is symbolize.c's (libelf symbols, libdwarf
 * lines).  elfutils' libdw would do both, but it exports dwarf_* functions
 * under the same names as libdwarf, which the tracer links already.
 *
 * Used when a run ends badly: a fault inside libc says little by itself
 * ("libc.so.6+0x167ad8", an IFUNC variant of strlen without a dynamic
 * symbol); the frame of the program that called it says where the bug is,
 * and the whole stack what the thread was doing.  The thread must be in a
 * ptrace stop.
 */
#include <errno.h>
#include <libunwind-ptrace.h>
#include <stdio.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/user.h>

#include "demangle.h"
#include "fnv.h"
#include "internal.h"

/* One libunwind address space for the life of the job process.  Each
 * unwind used to create its own, so every one of them looked up each
 * frame's unwind information again: a read of /proc/PID/maps, an open
 * and mmap of the module, a search of its .eh_frame_hdr and the parsing
 * of the FDE, a thousand word-sized PTRACE_PEEKDATA reads for one failing
 * run's stack.  libunwind caches what it learnt of an instruction address
 * (the rules to find the caller's registers there) in the address space;
 * that is true of whatever process has the same code mapped at the same
 * addresses (every run of a job: the fork server's copies, or exec
 * without address randomisation), so the cache is kept from run to run
 * and flushed when the code mappings differ from those it was filled
 * under. */
static unw_addr_space_t job_space;
static uint64_t job_space_code;         /* code_key() of its cache */

static int hash_code_mapping(const struct sc_map_entry *m, void *arg)
{
	uint64_t *h = arg;
	const uint64_t fields[3] = { m->start, m->end, m->offset };

	if (!m->exec)
		return 0;
	/* The mapping's range, offset and path. */
	*h = sc_fnv_str(sc_fnv_bytes(*h, fields, sizeof(fields)), m->path);
	return 0;
}

/* Which code pid has mapped where, as one number (0: unknown). */
static uint64_t code_key(pid_t pid)
{
	uint64_t h = SC_FNV_OFFSET;

	return sc_maps_foreach(pid, hash_code_mapping, &h) < 0 ? 0 : h;
}

/* The address space to unwind pid's threads in (NULL: out of memory);
 * call with pid's maps held. */
static unw_addr_space_t space_for(pid_t pid)
{
	uint64_t code = code_key(pid);

	if (!job_space) {
		job_space = unw_create_addr_space(&_UPT_accessors, 0);
		if (!job_space)
			return NULL;
		unw_set_caching_policy(job_space, UNW_CACHE_GLOBAL);
	} else if (code == 0 || code != job_space_code) {
		unw_flush_cache(job_space, 0, 0);
	}
	job_space_code = code;
	return job_space;
}

/* A cursor on tid's stack in as, with *upt its ptrace accessor state
 * (for _UPT_destroy); false when it cannot be set up. */
static bool start_cursor(unw_addr_space_t as, pid_t tid, void **upt,
			 unw_cursor_t *cursor)
{
	*upt = as ? _UPT_create(tid) : NULL;
	if (!*upt)
		return false;
	if (unw_init_remote(cursor, as, *upt) == 0)
		return true;
	_UPT_destroy(*upt);
	*upt = NULL;
	return false;
}

/* Fill frames (at most max) for pc: one per level of the calls inlined
 * there, innermost first, as a debugger lists them; returns how many. */
static size_t describe_frame(pid_t pid, uint64_t pc, bool innermost,
			     struct sc_frame *frames, size_t max)
{
	/* A return address points after the call: name the call. */
	uint64_t lookup = innermost ? pc : pc - 1;
	char path[4096];
	char texts[SC_INLINE_DEPTH + 1][512];
	bool systems[SC_INLINE_DEPTH + 1];
	/* [vdso] and anonymous code are not the program's either. */
	bool own = sc_addr_module(pid, lookup, path, sizeof(path)) == 0 &&
		   path[0] == '/' && !sc_system_library(path);
	size_t n = sc_symbolize_frames(pid, lookup, texts,
				       max < SC_INLINE_DEPTH + 1 ? max
				       : SC_INLINE_DEPTH + 1, systems);

	for (size_t i = 0; i < n; i++) {
		frames[i].pc = pc;
		frames[i].own_code = own;
		frames[i].system_source = systems[i];
		memcpy(frames[i].text, texts[i], sizeof(frames[i].text));
	}
	return n;
}

/* The thread stopped where no code is mapped: a call through a null or
 * wild function pointer (a destroyed object's vtable, a freed callback).
 * The call pushed its return address: when [rsp] is code, frame 0 is
 * named by its bare address and the thread's registers are moved to the
 * caller (rip = [rsp], rsp + 8) for libunwind, which reads them from the
 * thread; *saved, to put back (QA: "SIGSEGV at 0x0" had no stack). */
static bool called_nowhere(pid_t pid, pid_t tid, struct sc_frame *frame,
			   struct user_regs_struct *saved)
{
	struct user_regs_struct caller;
	char path[4096];
	long ret;

	if (ptrace(PTRACE_GETREGS, tid, 0, saved) < 0 ||
	    sc_maps_addr_executable(pid, saved->rip))
		return false;
	errno = 0;
	ret = ptrace(PTRACE_PEEKDATA, tid, (void *)saved->rsp, 0);
	if ((ret == -1 && errno) || ret == 0 ||
	    sc_addr_module(pid, (uint64_t)ret, path, sizeof(path)) < 0)
		return false;
	caller = *saved;
	caller.rip = (uint64_t)ret;
	caller.rsp += 8;
	if (ptrace(PTRACE_SETREGS, tid, 0, &caller) < 0)
		return false;
	*frame = (struct sc_frame){ .pc = saved->rip };
	snprintf(frame->text, sizeof(frame->text), "??");
	return true;
}

size_t sc_stack_unwind(pid_t pid, pid_t tid, struct sc_frame *frames,
		       size_t max)
{
	bool held = sc_maps_hold(pid) == 0;
	struct user_regs_struct saved;
	void *upt;
	unw_cursor_t cursor;
	size_t n;

	/* Before the cursor: it reads the registers it starts from. */
	bool moved = max > 1 && called_nowhere(pid, tid, &frames[0], &saved);

	n = moved;
	if (start_cursor(space_for(pid), tid, &upt, &cursor)) {
		unw_word_t last_ip = 0, last_sp = 0;
		do {
			unw_word_t ip, sp = 0;
			if (unw_get_reg(&cursor, UNW_REG_IP, &ip) < 0 || !ip)
				break;
			unw_get_reg(&cursor, UNW_REG_SP, &sp);
			/* A step that goes nowhere (no unwind information for
			 * a fresh thread's stack): the rest would repeat it. */
			if (n > moved && ip == last_ip && sp == last_sp)
				break;
			last_ip = ip;
			last_sp = sp;
			n += describe_frame(pid, ip, n == 0, &frames[n],
					    max - n);
		} while (n < max && unw_step(&cursor) > 0);
		/* Cut at max: the last line says how much is missing, as
		 * gdb's backtrace limit does (QA: a 30-call recursion lost
		 * the thread's start without a word). */
		size_t more = 0;
		while (n >= max && max > 1 && more < 100000 &&
		       unw_step(&cursor) > 0)
			more++;
		if (more) {
			frames[max - 1].pc = 0;
			frames[max - 1].own_code = false;
			frames[max - 1].system_source = false;
			snprintf(frames[max - 1].text,
				 sizeof(frames[max - 1].text),
				 SC_ELLIPSIS " (%zu more frame%s not shown)",
				 more + 1, more ? "s" : "");
		}
		_UPT_destroy(upt);
	}
	if (moved)
		ptrace(PTRACE_SETREGS, tid, 0, &saved);
	if (held)
		sc_maps_release();
	return n;
}

bool sc_stack_return_address(struct sc_thread *t, uint64_t *pc)
{
	bool held = sc_maps_hold(t->proc->pid) == 0;
	void *upt;
	unw_cursor_t cursor;
	unw_word_t ip = 0;

	if (start_cursor(space_for(t->proc->pid), t->tid, &upt, &cursor)) {
		if (unw_step(&cursor) <= 0 ||
		    unw_get_reg(&cursor, UNW_REG_IP, &ip) < 0)
			ip = 0;
		_UPT_destroy(upt);
	}
	if (held)
		sc_maps_release();
	*pc = (uint64_t)ip;
	return ip != 0;
}

bool sc_stack_own_caller(struct sc_thread *t, uint64_t *pc)
{
	bool held = sc_maps_hold(t->proc->pid) == 0;
	void *upt;
	unw_cursor_t cursor;
	bool found = false;

	if (start_cursor(space_for(t->proc->pid), t->tid, &upt, &cursor)) {
		for (int n = 0; n < SC_STACK_FRAMES && unw_step(&cursor) > 0; n++) {
			unw_word_t ip;
			if (unw_get_reg(&cursor, UNW_REG_IP, &ip) < 0 || !ip)
				break;
			/* A return address: the call is just before it. */
			if (sc_code_is_own(t->proc, (uint64_t)ip - 1)) {
				*pc = (uint64_t)ip;
				found = true;
				break;
			}
		}
		_UPT_destroy(upt);
	}
	if (held)
		sc_maps_release();
	return found;
}

const struct sc_frame *sc_stack_own_frame(const struct sc_frame *frames,
					  size_t n)
{
	/* Not a library template instantiated in the program at -O0
	 * (std::vector's iterator at stl_iterator.h): its caller's line. */
	for (size_t i = 0; i < n; i++)
		if (frames[i].own_code && !frames[i].system_source)
			return &frames[i];
	for (size_t i = 0; i < n; i++)
		if (frames[i].own_code)
			return &frames[i];
	return NULL;
}

/* The program's entry stub (crt1's _start): its own code, but no place
 * of the program's to name. */
static bool entry_stub(const struct sc_frame *f)
{
	return strncmp(f->text, "_start+", 7) == 0 ||
	       strncmp(f->text, "_start ", 7) == 0;
}

/* Is the stack inside exit's handlers (atexit functions, static
 * objects' destructors)? */
static bool in_exit_handlers(const struct sc_frame *frames, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (strncmp(frames[i].text, "__run_exit_handlers", 19) == 0 ||
		    strncmp(frames[i].text, "__cxa_finalize", 14) == 0)
			return true;
	return false;
}

bool sc_stack_own_text(pid_t pid, pid_t tid, char *buf, size_t len)
{
	struct sc_frame frames[SC_STACK_FRAMES];
	size_t n = sc_stack_unwind(pid, tid, frames, SC_STACK_FRAMES);
	const struct sc_frame *own = sc_stack_own_frame(frames, n);

	/* Only the entry stub of the program's own: a thread blocked in a
	 * static object's destructor at exit (glibc's
	 * pthread_cond_destroy waits for the condition variable's
	 * waiters) was said to wait "in _start+0x20" (QA).  Its innermost
	 * frame, and when, say more. */
	if (own && entry_stub(own) && n > 0 && in_exit_handlers(frames, n)) {
		snprintf(buf, len, "%s during exit (in an atexit handler or a "
			 "static object's destructor)", frames[0].text);
		return true;
	}
	if (own && !entry_stub(own)) {
		snprintf(buf, len, "%s", own->text);
		return true;
	}
	return false;
}

size_t sc_stack_format(uint32_t thread, const struct sc_frame *frames,
		       size_t n, char *buf, size_t len)
{
	size_t used = strnlen(buf, len);
	size_t lines = 0;

	for (size_t i = 0; i < n; i++) {
		char line[600];
		int w = snprintf(line, sizeof(line), "T%u 0x%llx %s\n", thread,
				 (unsigned long long)frames[i].pc,
				 frames[i].text);
		/* Whole lines only: a reader splits on them. */
		if (w < 0 || (size_t)w >= sizeof(line) || used + (size_t)w >= len)
			break;
		memcpy(buf + used, line, (size_t)w + 1);
		used += (size_t)w;
		lines++;
	}
	return lines;
}

size_t sc_stack_append(const struct sc_thread *t, char *buf, size_t len)
{
	struct sc_frame frames[SC_STACK_FRAMES];
	/* A thread that has not run yet is still inside the clone of its
	 * creator: its stack is a fresh one with nothing to unwind. */
	bool unstarted = t->state == TH_READY &&
			 t->next.kind == SC_EV_THREAD_START;
	size_t n = sc_stack_unwind(t->proc->pid, t->tid, frames,
				   unstarted ? 1 : SC_STACK_FRAMES);

	if (unstarted && n == 1) {
		size_t used = strnlen(frames[0].text, sizeof(frames[0].text));
		snprintf(frames[0].text + used, sizeof(frames[0].text) - used,
			 " (not started yet)");
	}
	return sc_stack_format(t->logical, frames, n, buf, len);
}
