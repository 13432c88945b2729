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
#include <fcntl.h>
#include <seccomp.h>
#include <unistd.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
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
	/* the real-time timer: virtual time in controlled runs
	 * (virtual_alarm.c) */
	SYS_alarm, SYS_setitimer, SYS_getitimer,
	/* the CPUs a program sees, not the one its run is pinned to
	 * (affinity.c) */
	SYS_sched_getaffinity, SYS_sched_setaffinity,
	/* change what other threads' calls mean: the working directory,
	 * the descriptor table, names in the file system (not close(): the
	 * loader's and stdio's would add points to every run).  Not blocking,
	 * but a point before them lets another thread's open(), read() or
	 * stat() come first (QA: a thread opening a relative path while
	 * main called chdir() failed in 44 of 50 native runs and in none
	 * under control; chess said it had tried every schedule). */
	SYS_chdir, SYS_fchdir, SYS_dup2, SYS_dup3,
	SYS_unlink, SYS_unlinkat, SYS_rename, SYS_renameat, SYS_renameat2,
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

/* The filter as BPF, built once per process by libseccomp: compiling it
 * in every run's child (between fork and exec, on the run's clock) cost
 * more than loading it. */
static struct sock_filter filter_code[BPF_MAXINSNS];
static unsigned short filter_len;

/* libseccomp 2.5 exports BPF to a descriptor only: a pipe (the filter is
 * far smaller than a pipe's buffer). */
static int compile_filter(void)
{
	scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
	int fds[2] = { -1, -1 }, rc;
	size_t got = 0;

	if (!ctx)
		return -ENOMEM;
	for (size_t i = 0; i < sizeof(trapped) / sizeof(trapped[0]); i++) {
		rc = seccomp_rule_add(ctx, SCMP_ACT_TRACE(0), trapped[i], 0);
		if (rc < 0)
			goto out;
	}
	if (pipe2(fds, O_CLOEXEC | O_NONBLOCK) < 0) {
		rc = -errno;
		goto out;
	}
	rc = seccomp_export_bpf(ctx, fds[1]);
	if (rc < 0)
		goto out;
	close(fds[1]);
	fds[1] = -1;
	for (;;) {
		ssize_t n = read(fds[0], (char *)filter_code + got,
				 sizeof(filter_code) - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	if (!got || got % sizeof(struct sock_filter) || got == sizeof(filter_code))
		rc = -EINVAL;
	else
		filter_len = (unsigned short)(got / sizeof(struct sock_filter));
out:
	if (fds[0] >= 0)
		close(fds[0]);
	if (fds[1] >= 0)
		close(fds[1]);
	seccomp_release(ctx);
	return rc;
}

int sc_seccomp_prepare(void)
{
	return filter_len ? 0 : compile_filter();
}

/* Runs in the child between fork and exec (async-signal-safe: two
 * prctl calls on the filter sc_seccomp_prepare() built before the fork).
 * Returns -errno. */
int sc_install_seccomp_filter(void)
{
	struct sock_fprog prog = { .len = filter_len, .filter = filter_code };

	if (!filter_len)
		return -EINVAL;
	/* NO_NEW_PRIVS ourselves, so that the error is clear if it fails. */
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		return -errno;
	if (prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) < 0)
		return -errno;
	return 0;
}
