/* syscall_event.c - what a thread stopped at a seccomp stop is about to do.
 *
 * x86-64 syscall arguments: rdi, rsi, rdx, r10, r8, r9; number in
 * orig_rax.  clone(flags, stack, parent_tid, child_tid, tls).
 */
#include <linux/futex.h>
#include <linux/sched.h>
#include <sched.h>
#include <stddef.h>
#include <sys/syscall.h>
#include <time.h>

#include "internal.h"

#ifndef CLONE_THREAD
#define CLONE_THREAD 0x00010000
#endif

/* struct clone_args layout (linux/sched.h, since 5.3): flags at 0,
 * child_tid at 16. */
#define CLONE_ARGS_FLAGS_OFF 0
#define CLONE_ARGS_CHILD_TID_OFF 16

/* Is addr the clear_child_tid word of a thread of t's process?  That is
 * where pthread_join waits, with a shared futex (the kernel's wake at
 * the thread's exit is one), in the thread's struct pthread: memory of
 * its own process, not worth a reading of the maps per join. */
static bool thread_tid_word(const struct sc_engine *e,
			    const struct sc_thread *t, uint64_t addr)
{
	if (!addr)
		return false;
	for (size_t i = 0; i < e->nthreads; i++) {
		const struct sc_thread *o = e->threads[i];
		if (o->proc == t->proc && o->clear_child_tid == addr)
			return true;
	}
	return false;
}

static void futex_event(const struct sc_engine *e, struct sc_thread *t)
{
	int cmd = (int)(t->regs.rsi & FUTEX_CMD_MASK);

	t->next.object = t->regs.rdi;
	/* A process-shared futex (no FUTEX_PRIVATE_FLAG) in memory another
	 * process maps too (a pshared semaphore or mutex in shm): that
	 * process, which we may not trace, can wait or wake there, which
	 * the model cannot see.  The kernel does it all. */
	if (!(t->regs.rsi & FUTEX_PRIVATE_FLAG) &&
	    !thread_tid_word(e, t, t->regs.rdi) &&
	    sc_maps_addr_shared(t->proc->pid, t->regs.rdi)) {
		t->next.kind = SC_EV_FUTEX_OTHER;
		t->next.access = SC_ACC_RMW;
		return;
	}
	switch (cmd) {
	case FUTEX_WAIT:
	case FUTEX_WAIT_BITSET:
		t->next.kind = SC_EV_FUTEX_WAIT;
		t->next.access = SC_ACC_READ;
		break;
	case FUTEX_WAKE:
	case FUTEX_WAKE_BITSET:
		t->next.kind = SC_EV_FUTEX_WAKE;
		t->next.access = SC_ACC_WRITE;
		break;
	case FUTEX_REQUEUE:
	case FUTEX_CMP_REQUEUE:
		t->next.kind = SC_EV_FUTEX_REQUEUE;
		t->next.access = SC_ACC_RMW;
		break;
	case FUTEX_WAKE_OP:
		t->next.kind = SC_EV_FUTEX_WAKE_OP;
		t->next.access = SC_ACC_RMW;
		break;
	default:
		t->next.kind = SC_EV_FUTEX_OTHER;
		t->next.access = SC_ACC_RMW;
		break;
	}
}

static void clone_event(struct sc_engine *e, struct sc_thread *t, bool v3)
{
	uint64_t flags = t->regs.rdi, ctid = t->regs.r10;

	if (v3) {
		uint64_t args[3] = { 0, 0, 0 };
		if (sc_mem_read(t->proc, t->regs.rdi, args, sizeof(args)) == 0) {
			flags = args[CLONE_ARGS_FLAGS_OFF / 8];
			ctid = args[CLONE_ARGS_CHILD_TID_OFF / 8];
		}
	}
	t->next.kind = (flags & CLONE_THREAD) ? SC_EV_THREAD_CREATE : SC_EV_FORK;
	t->next.access = SC_ACC_NONE;
	/* The new thread's clear_child_tid word names it (pthread_join
	 * waits there), so the analyzer can tie create, exit and join. */
	t->next.object = (flags & CLONE_CHILD_CLEARTID) ? ctid : 0;
	/* The kernel clears and wakes child_tid when the thread exits:
	 * pthread_join waits on it. */
	t->clone_child_tid = (flags & CLONE_CHILD_CLEARTID) ? ctid : 0;
	(void)e;
}

/* The duration a nanosleep or a relative clock_nanosleep asks for, in
 * ns; 0 when it cannot be read or is absolute (TIMER_ABSTIME). */
static uint64_t sleep_duration(struct sc_thread *t, long nr)
{
	uint64_t req = t->regs.rdi, ns;

	if (nr == SYS_clock_nanosleep) {
		if (t->regs.rsi & TIMER_ABSTIME)
			return 0;
		req = t->regs.rdx;
	}
	return sc_read_timespec_ns(t->proc, req, &ns) ? ns : 0;
}

/* Is t, at a yield or a sleep, where it was at one of its last ones?
 * A loop that waits for another thread's word yields in the same state
 * each time; one that counts (a retry limit, a fixed number of rounds)
 * does not, and ends by itself (schedule.c: time passes for it step by
 * step instead of at once).  Within one run only: the stack holds stale
 * bytes that differ from run to run. */
static bool waits_in_place(struct sc_thread *t)
{
	uint64_t h = sc_preempt_full_hash(t, sc_preempt_state_hash(t));
	size_t n = sizeof(t->wait_states) / sizeof(*t->wait_states);

	for (size_t i = 0; i < n && i < t->nwait_states; i++)
		if (t->wait_states[i] == h)
			return true;
	t->wait_states[t->nwait_states++ % n] = h;
	return false;
}

static bool fd_syscall(long nr)
{
	switch (nr) {
	case SYS_read: case SYS_readv: case SYS_write: case SYS_writev:
	case SYS_pread64: case SYS_pwrite64: case SYS_recvfrom:
	case SYS_recvmsg: case SYS_recvmmsg: case SYS_sendto:
	case SYS_sendmsg: case SYS_sendmmsg: case SYS_accept:
	case SYS_accept4: case SYS_connect: case SYS_epoll_wait:
	case SYS_epoll_pwait: case SYS_epoll_pwait2: case SYS_flock:
		return true;
	default:
		return false;
	}
}

static bool writes_fd(long nr)
{
	return nr == SYS_write || nr == SYS_writev || nr == SYS_pwrite64 ||
	       nr == SYS_sendto || nr == SYS_sendmsg || nr == SYS_sendmmsg;
}

void sc_syscall_event(struct sc_engine *e, struct sc_thread *t)
{
	long nr = (long)t->regs.orig_rax;

	t->next = (struct sc_event){ .thread = t->logical, .pc = t->regs.rip };
	switch (nr) {
	case SYS_futex:
		futex_event(e, t);
		break;
	case SYS_clone:
		clone_event(e, t, false);
		break;
	case SYS_clone3:
		clone_event(e, t, true);
		break;
	case SYS_fork:
	case SYS_vfork:
		t->next.kind = SC_EV_FORK;
		break;
	case SYS_execve:
	case SYS_execveat:
		t->next.kind = SC_EV_EXEC;
		break;
	case SYS_exit:
		t->next.kind = SC_EV_THREAD_EXIT;
		t->next.object = t->clear_child_tid;
		t->next.access = SC_ACC_WRITE;  /* the kernel clears it */
		break;
	case SYS_exit_group:
		t->next.kind = SC_EV_PROCESS_EXIT;
		break;
	case SYS_sched_yield:
		t->next.kind = SC_EV_YIELD;
		t->next.waits_in_place = waits_in_place(t);
		break;
	case SYS_nanosleep:
	case SYS_clock_nanosleep:
		t->next.kind = SC_EV_SLEEP;
		t->next.sleep_ns = sleep_duration(t, nr);
		t->next.waits_in_place = waits_in_place(t);
		break;
	default:
		t->next.kind = SC_EV_SYSCALL_BLOCKING;
		if (fd_syscall(nr)) {
			t->next.object = t->regs.rdi;
			t->next.access = writes_fd(nr) ? SC_ACC_WRITE : SC_ACC_READ;
		}
		break;
	}
}
