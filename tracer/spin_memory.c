/* spin_memory.c - the memory a spin loop leaves alone, hashed.
 *
 * The probe (preempt.c) calls a thread a spin when its state at the probe
 * breakpoint (registers, vector registers, the stack around rsp) repeats.
 * A loop whose progress lives only in memory repeats such a state too:
 * cc1 looking up the same key in a hash table twice (the table's search
 * counter goes up), a loop calling work() until a global counter reaches
 * a limit.  Preempted there as a "spin", the recording stopped it at the
 * second occurrence of the state, and replay, which stops at the first
 * one (any turn of a spin is as good as another), or runs freely past
 * both, diverged: every replay of a parallel gcc compile did.
 *
 * While a thread is probed no other thread of the process runs, so memory
 * that changed from one occurrence of the state to the next was changed
 * by the thread itself: progress, not a spin.  This hashes the memory
 * such a loop keeps its progress in: the stack from just below rsp up
 * through its callers' frames, the memory around each register's value
 * (a structure the loop updates through a pointer), and the writable data
 * of the module the loop is in (its globals, rip-relative).  Not all of
 * memory: a counter reached only through a chain of pointers goes unseen.
 */
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

#define STACK_BELOW 128
#define STACK_ABOVE 4096
#define AROUND_REGISTER 256
/* Writable data of the module hashed at most (cc1's is 1.7 MB). */
#define DATA_MAX (8u << 20)

/* Hash what can be read of [addr, addr + len): whole chunks that read,
 * none of those that do not (an address that is no pointer). */
static uint64_t hash_range(struct sc_process *p, uint64_t h, uint64_t addr,
			   uint64_t len)
{
	uint8_t buf[4096];

	while (len > 0) {
		size_t n = len < sizeof(buf) ? (size_t)len : sizeof(buf);
		/* Stay within the page: a chunk across the end of a
		 * mapping would not read at all. */
		size_t to_page = 4096 - (size_t)(addr & 4095);

		if (n > to_page)
			n = to_page;
		if (sc_mem_read(p, addr, buf, n) == 0)
			h = sc_state_mix_bytes(sc_state_mix(h, addr), buf, n);
		addr += n;
		len -= n;
	}
	return h;
}

/* The writable mappings of the module whose code holds pc: its data
 * (file-backed, writable) and the anonymous bss right after it. */
static uint64_t hash_module_data(struct sc_process *p, uint64_t h, uint64_t pc)
{
	char path[64], line[PATH_MAX + 128], module[PATH_MAX] = "";
	uint64_t prev_end = 0, hashed = 0;
	bool prev_module_rw = false;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)p->pid);
	f = fopen(path, "re");
	if (!f)
		return h;
	/* First the module's path, from the mapping holding pc. */
	while (fgets(line, sizeof(line), f)) {
		uint64_t start, end;
		int name_at = 0;

		if (sscanf(line, "%" SCNx64 "-%" SCNx64 " %*s %*s %*s %*s %n",
			   &start, &end, &name_at) >= 2 && name_at > 0 &&
		    pc >= start && pc < end && line[name_at] == '/') {
			snprintf(module, sizeof(module), "%s", line + name_at);
			module[strcspn(module, "\n")] = '\0';
			break;
		}
	}
	if (!module[0]) {
		fclose(f);
		return h;
	}
	rewind(f);
	while (fgets(line, sizeof(line), f) && hashed < DATA_MAX) {
		uint64_t start, end;
		char perms[8];
		int name_at = 0;

		if (sscanf(line, "%" SCNx64 "-%" SCNx64 " %7s %*s %*s %*s %n",
			   &start, &end, perms, &name_at) < 3)
			continue;
		char *name = name_at > 0 ? line + name_at : line + strlen(line);
		name[strcspn(name, "\n")] = '\0';
		bool rw = perms[0] == 'r' && perms[1] == 'w';
		bool ours = strcmp(name, module) == 0;
		bool bss = !name[0] && prev_module_rw && start == prev_end;

		if (rw && (ours || bss)) {
			uint64_t len = end - start;

			if (len > DATA_MAX - hashed)
				len = DATA_MAX - hashed;
			h = hash_range(p, h, start, len);
			hashed += len;
		}
		prev_module_rw = rw && ours;
		prev_end = end;
	}
	fclose(f);
	return h;
}

uint64_t sc_spin_memory_hash(struct sc_thread *t)
{
	const struct user_regs_struct *r = &t->regs;
	const uint64_t regs[] = { r->r15, r->r14, r->r13, r->r12, r->rbp,
		r->rbx, r->r11, r->r10, r->r9, r->r8, r->rax, r->rcx, r->rdx,
		r->rsi, r->rdi };
	uint64_t h = 0x5350494e4d454d31ull;

	h = hash_range(t->proc, h, r->rsp - STACK_BELOW,
		       STACK_BELOW + STACK_ABOVE);
	for (size_t i = 0; i < sizeof(regs) / sizeof(regs[0]); i++)
		if (regs[i] >= 65536)
			h = hash_range(t->proc, h, regs[i] - AROUND_REGISTER / 2,
				       AROUND_REGISTER);
	return hash_module_data(t->proc, h, r->rip);
}
