/* spawn.c - start the target, traced or native.
 *
 * The child gets the rr/strace defensive set-up: PR_SET_PDEATHSIG so it
 * never outlives the supervisor by accident, its own session (so we can
 * kill the whole group), no core dumps, ASLR off (addresses, and so object
 * identities, are equal across runs), and a pipe reporting a pre-exec
 * failure to the parent.  For a traced run the parent PTRACE_SEIZEs the
 * child while it waits on a pipe, and only then does the child install the
 * seccomp filter and exec: the execve itself is the first trapped syscall.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/personality.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/close_range.h>

#include "internal.h"

extern char **environ;

#define SEIZE_OPTIONS (PTRACE_O_TRACESYSGOOD | PTRACE_O_TRACECLONE | \
		       PTRACE_O_TRACEFORK | PTRACE_O_TRACEVFORK | \
		       PTRACE_O_TRACEEXEC | PTRACE_O_TRACEEXIT | \
		       PTRACE_O_TRACESECCOMP | PTRACE_O_EXITKILL)

static void child_fail(int err_fd, int err)
{
	/* errno travels as 4 raw bytes; the parent formats the message. */
	if (write(err_fd, &err, sizeof(err)) < 0) {
		/* nothing left to report to */
	}
	_exit(127);
}

static int redirect(int fd, int target)
{
	if (fd < 0) {
		fd = open("/dev/null", O_RDWR);
		if (fd < 0)
			return -1;
		int rc = dup2(fd, target);
		close(fd);
		return rc < 0 ? -1 : 0;
	}
	if (fd == target)
		return 0;
	return dup2(fd, target) < 0 ? -1 : 0;
}

/* Common pre-exec set-up of both spawn kinds; exits on failure. */
void sc_child_setup_common(const struct sc_run_config *cfg)
{
	struct rlimit nocore = { 0, 0 };

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	setsid();
	setrlimit(RLIMIT_CORE, &nocore);
	/* A clean signal state: the supervisor blocks SIGCHLD, and ignores
	 * SIGPIPE and SIGHUP, which exec would keep ignored (a program that
	 * raises SIGHUP to end itself lived on).  Every disposition back to
	 * the default, as in a fresh shell. */
	sigset_t none;
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	for (int sig = 1; sig < NSIG; sig++)
		if (sig != SIGKILL && sig != SIGSTOP)
			signal(sig, SIG_DFL);
	int in = cfg->stdin_fd, out = cfg->stdout_fd, err = cfg->stderr_fd;
	if (redirect(in, 0) < 0 || redirect(out, 1) < 0 || redirect(err, 2) < 0)
		_exit(126);
	if (cfg->cwd && chdir(cfg->cwd) < 0)
		_exit(126);
	/* Nothing but stdio reaches the program: a descriptor inherited from
	 * whoever started the daemon (make's jobserver pipes, a shell's
	 * redirections) would shift the numbers of the program's own files,
	 * and a run would not replay under another daemon.  CLOEXEC rather
	 * than close: the error pipe must live until the exec. */
	syscall(SYS_close_range, 3u, ~0u, CLOSE_RANGE_CLOEXEC);
}

pid_t sc_spawn_traced(struct sc_engine *e, const char *path)
{
	const struct sc_run_config *cfg = e->cfg;
	int go[2], errp[2];
	char byte = 0;

	int rc = sc_seccomp_prepare();
	if (rc < 0) {
		errno = -rc;
		return -1;
	}
	if (pipe2(go, O_CLOEXEC) < 0)
		return -1;
	if (pipe2(errp, O_CLOEXEC) < 0) {
		close(go[0]);
		close(go[1]);
		return -1;
	}
	pid_t parent = getpid();
	pid_t pid = fork();
	if (pid < 0) {
		close(go[0]); close(go[1]); close(errp[0]); close(errp[1]);
		return -1;
	}
	if (pid == 0) {
		close(go[1]);
		close(errp[0]);
		sc_child_setup_common(cfg);
		if (getppid() != parent)
			_exit(126);
		personality((unsigned long)personality(0xffffffff) |
			    ADDR_NO_RANDOMIZE);
		/* rdtsc faults, for vclock.c to answer (kept across exec). */
		if (cfg->vclock)
			prctl(PR_SET_TSC, PR_TSC_SIGSEGV);
		/* Wait until the parent has seized us. */
		if (read(go[0], &byte, 1) != 1)
			_exit(126);
		rc = sc_install_seccomp_filter();
		if (rc < 0)
			child_fail(errp[1], -rc);
		execve(path, cfg->argv, cfg->envp ? cfg->envp : environ);
		child_fail(errp[1], errno);
	}
	close(go[0]);
	close(errp[1]);
	if (ptrace(PTRACE_SEIZE, pid, 0, (void *)(long)SEIZE_OPTIONS) < 0) {
		int saved = errno;
		kill(pid, SIGKILL);
		close(go[1]);
		close(errp[0]);
		errno = saved;
		return -1;
	}
	if (write(go[1], &byte, 1) != 1) {
		/* the child died; its exit arrives through waitpid */
	}
	close(go[1]);
	e->err_pipe = errp[0];
	return pid;
}

pid_t sc_spawn_native(const struct sc_run_config *cfg, const char *path,
		      int *err_pipe)
{
	int errp[2];

	if (pipe2(errp, O_CLOEXEC) < 0)
		return -1;
	pid_t parent = getpid();
	pid_t pid = fork();
	if (pid < 0) {
		close(errp[0]);
		close(errp[1]);
		return -1;
	}
	if (pid == 0) {
		close(errp[0]);
		sc_child_setup_common(cfg);
		if (getppid() != parent)
			_exit(126);
		execve(path, cfg->argv, cfg->envp ? cfg->envp : environ);
		child_fail(errp[1], errno);
	}
	close(errp[1]);
	*err_pipe = errp[0];
	return pid;
}
