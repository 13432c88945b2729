/* seccomp_filter.c - the filter installed in the target before exec.
 *
 * Every syscall listed here stops the thread (SECCOMP_RET_TRACE) before it
 * runs; everything else runs at full speed.  These are the scheduling
 * points at sync granularity plus the syscalls that may block, which the
 * engine releases to the kernel (see DESIGN.md "Execution model").  The
 * filter is inherited by forked children and survives exec: without a
 * tracer its traced syscalls would fail with ENOSYS, so children stay
 * traced.
 */
#include <errno.h>
#include <seccomp.h>
#include <sys/prctl.h>
#include <sys/syscall.h>

#include "internal.h"

static const int trapped[] = {
	/* thread and process life cycle */
	SYS_clone, SYS_clone3, SYS_fork, SYS_vfork, SYS_execve, SYS_execveat,
	SYS_exit, SYS_exit_group,
	/* synchronisation and time */
	SYS_futex, SYS_sched_yield, SYS_nanosleep, SYS_clock_nanosleep,
	/* a signal to a thread wakes it from a wait in the kernel
	 * (pthread_kill to a thread in sigwait: pbzip2's signal thread) */
	SYS_tgkill, SYS_tkill,
	/* randomness: seeded in controlled runs (random.c) */
	SYS_getrandom,
	/* may block: released to the kernel */
	SYS_read, SYS_readv, SYS_write, SYS_writev, SYS_pread64, SYS_pwrite64,
	SYS_recvfrom, SYS_recvmsg, SYS_recvmmsg, SYS_sendto, SYS_sendmsg,
	SYS_sendmmsg, SYS_accept, SYS_accept4, SYS_connect,
	SYS_poll, SYS_ppoll, SYS_select, SYS_pselect6,
	SYS_epoll_wait, SYS_epoll_pwait, SYS_epoll_pwait2,
	SYS_wait4, SYS_waitid, SYS_pause, SYS_rt_sigsuspend, SYS_rt_sigtimedwait,
	SYS_msgrcv, SYS_msgsnd, SYS_semop, SYS_semtimedop, SYS_flock,
	SYS_io_getevents, SYS_mq_timedreceive, SYS_mq_timedsend,
};

int sc_seccomp_trapped_syscalls(const int **list)
{
	*list = trapped;
	return (int)(sizeof(trapped) / sizeof(trapped[0]));
}

/* Runs in the child between fork and exec.  Returns -errno. */
int sc_install_seccomp_filter(void)
{
	scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
	int rc;

	if (!ctx)
		return -ENOMEM;
	for (size_t i = 0; i < sizeof(trapped) / sizeof(trapped[0]); i++) {
		rc = seccomp_rule_add(ctx, SCMP_ACT_TRACE(0), trapped[i], 0);
		if (rc < 0)
			goto out;
	}
	/* We set NO_NEW_PRIVS ourselves so the error is clear if it fails. */
	rc = seccomp_attr_set(ctx, SCMP_FLTATR_CTL_NNP, 0);
	if (rc < 0)
		goto out;
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0) {
		rc = -errno;
		goto out;
	}
	rc = seccomp_load(ctx);
out:
	seccomp_release(ctx);
	return rc;
}
