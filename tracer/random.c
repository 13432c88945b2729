/*
 * random.c - seeded randomness: getrandom(2) and reads of /dev/urandom and
 * /dev/random return bytes drawn from the run's seed.
 *
 * A program that draws random numbers takes different branches in every
 * run of the same schedule (Python's and Rust's hash seeds decide the
 * order of dictionary walks, and so which locks are taken; a randomised
 * test picks its work): a replay would then diverge and a session would
 * not be a function of its seed.  So in controlled runs the kernel's
 * bytes are replaced by a stream drawn from the run's seed, in the order
 * the calls are made, which the schedule fixes (one thread runs at a
 * time).  Each run still gets its own random bytes; replay, which knows
 * the run's seed, gives the same ones again.
 *
 * The call is completed at its seccomp stop (skipped, with the count as
 * its return value): it is not a scheduling point.
 *
 * What the program draws before its entry point (shared libraries'
 * constructors: libstdc++'s allocates, and glibc's malloc takes its tcache
 * key from getrandom) comes from a stream of its own, the same in every
 * run: a fork server's image is taken at the entry point and serves runs
 * of every seed (C++ programs ran without one).
 *
 * The kernel's 16 AT_RANDOM bytes are replaced too, at each image's entry
 * point: glibc has taken its stack canary and pointer guard from them by
 * then (never a branch), but Go's runtime seeds its random numbers from
 * them (select and map iteration order, the scheduler's choices), and
 * fork-server copies all share the server's.  Drawn from the seed apart
 * from the stream, so that getrandom's bytes stay what they were.
 * Not covered: the rdrand and rdseed instructions, and readv/pread of the
 * random devices.
 */
#include <elf.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>

#include "internal.h"

/* getrandom(2) and the random devices return at most this per call. */
#define RANDOM_MAX_CALL 33554431u
#define RANDOM_CHUNK 65536u
/* The key of the stream drawn before the program's entry point. */
#define EARLY_KEY 0x4541524c59524e44ull

/* splitmix64: a well-mixed 64-bit output for each counter value. */
static uint64_t mix(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ull;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

/* Is fd of t's process /dev/urandom or /dev/random (char 1:9, 1:8)? */
static bool random_device(const struct sc_thread *t, uint64_t fd)
{
	char path[64];
	struct stat st;

	if (fd > 1u << 30)
		return false;
	snprintf(path, sizeof(path), "/proc/%d/fd/%u", (int)t->proc->pid,
		 (unsigned)fd);
	if (stat(path, &st) < 0 || !S_ISCHR(st.st_mode))
		return false;
	return major(st.st_rdev) == 1 &&
	       (minor(st.st_rdev) == 8 || minor(st.st_rdev) == 9);
}

/* Fill [addr, addr + len) of t's process from the engine's stream.
 * Returns what the call returns: len, or -EFAULT. */
static int64_t fill(struct sc_engine *e, struct sc_thread *t, uint64_t addr,
		    uint64_t len)
{
	uint8_t buf[RANDOM_CHUNK];
	/* Before the program's entry point (libstdc++'s constructors
	 * malloc, and glibc's malloc draws its tcache key): the same bytes
	 * in every run, so that a fork server's image, taken at the entry,
	 * is what an exec'd run of any seed would be. */
	bool early = t->proc == e->main_proc && t->proc->images == 0;

	if (len > RANDOM_MAX_CALL)
		len = RANDOM_MAX_CALL;
	for (uint64_t done = 0; done < len;) {
		size_t n = len - done < RANDOM_CHUNK ? (size_t)(len - done)
						     : RANDOM_CHUNK;
		for (size_t i = 0; i < n; i += 8) {
			uint64_t w = early
				? mix(EARLY_KEY ^ mix(e->early_random_drawn++))
				: mix(e->cfg->random_seed ^
				      mix(e->random_drawn++));
			size_t k = n - i < 8 ? n - i : 8;
			memcpy(buf + i, &w, k);
		}
		if (sc_mem_write(t->proc, addr + done, buf, n) < 0)
			return done ? (int64_t)done : -EFAULT;
		done += n;
	}
	return (int64_t)len;
}

bool sc_random_syscall(struct sc_engine *e, struct sc_thread *t)
{
	long nr = (long)t->regs.orig_rax;
	uint64_t addr, len;

	if (nr == SYS_getrandom) {
		addr = t->regs.rdi;
		len = t->regs.rsi;
	} else if (nr == SYS_read && e->cfg->seeded_random &&
		   random_device(t, t->regs.rdi)) {
		addr = t->regs.rsi;
		len = t->regs.rdx;
	} else {
		return false;
	}
	if (e->cfg->seeded_random) {
		t->skip_ret = fill(e, t, addr, len);
		t->skip_syscall = true;
	}
	/* Not seeded (attach, an older trace): the kernel's bytes.  (An
	 * attached thread is resumed to its syscall stops by sc_resume.) */
	sc_resume(t, PTRACE_CONT);
	return true;
}

void sc_random_auxv(struct sc_engine *e, struct sc_process *p)
{
	/* "AT_RANDOM", to keep these words apart from the stream's. */
	const uint64_t salt = 0x41545f52414e444full;
	uint64_t addr, words[2];

	if (!e->cfg->seeded_random)
		return;
	addr = sc_auxv_value(p->pid, AT_RANDOM);
	if (!addr)
		return;
	for (int i = 0; i < 2; i++)
		words[i] = mix(e->cfg->random_seed ^ salt ^
			       mix((uint64_t)p->images * 2 + (uint64_t)i));
	sc_mem_write(p, addr, words, sizeof(words));
}
