/*
 * affinity.c - the CPUs a controlled program sees.
 *
 * A run is pinned to one CPU with its supervisor (a ptrace stop costs far
 * less when both share it), and the pinning is inherited: nproc printed
 * 1, OpenMP ran its parallel regions on one thread and thread pools sized
 * by sched_getaffinity(2) shrank, so the program under test was not the
 * one that runs natively.  With cfg->all_cpus, sched_getaffinity on a
 * thread of the program returns the CPUs the supervisor had before it
 * pinned itself, and sched_setaffinity (a pool pinning its workers)
 * succeeds without moving the thread off the run's CPU; one thread runs
 * at a time anyway.  Both are completed at their seccomp stop: not
 * scheduling points.  The kernel still answers calls on other processes
 * and calls whose size it would refuse.
 */
#include <errno.h>
#include <sched.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "internal.h"

/* The kernel's cpumask size in bytes, what a successful
 * sched_getaffinity returns. */
static long kernel_mask_bytes(void)
{
	static long bytes;
	cpu_set_t set;

	if (!bytes) {
		long r = syscall(SYS_sched_getaffinity, 0, sizeof(set), &set);
		bytes = r > 0 ? r : -1;
	}
	return bytes;
}

/* Is pid (the call's first argument) a thread of t's own process? */
static bool own_thread(struct sc_engine *e, struct sc_thread *t, pid_t pid)
{
	if (pid == 0)
		return true;
	struct sc_thread *o = sc_thread_by_tid(e, pid);
	return o && o->proc == t->proc;
}

bool sc_affinity_syscall(struct sc_engine *e, struct sc_thread *t)
{
	long nr = (long)t->regs.orig_rax;
	uint64_t len = t->regs.rsi, addr = t->regs.rdx;
	long bytes = kernel_mask_bytes();

	if ((nr != SYS_sched_getaffinity && nr != SYS_sched_setaffinity) ||
	    !e->cfg->all_cpus || !e->pinned || bytes <= 0 ||
	    !own_thread(e, t, (pid_t)t->regs.rdi))
		return false;
	if (nr == SYS_sched_setaffinity) {
		t->skip_ret = 0;
	} else if (len < (uint64_t)bytes || (len & (sizeof(long) - 1))) {
		t->skip_ret = -EINVAL;   /* as the kernel says */
	} else {
		uint8_t mask[sizeof(cpu_set_t)] = { 0 };
		size_t n = (size_t)bytes < sizeof(mask) ? (size_t)bytes
						       : sizeof(mask);
		memcpy(mask, &e->unpinned_cpus, n);
		t->skip_ret = sc_mem_write(t->proc, addr, mask, n) < 0
			      ? -EFAULT : bytes;
	}
	t->skip_syscall = true;
	sc_resume(t, PTRACE_CONT);
	return true;
}
