/* native.c - the `native` baseline: run the target with no control at all
 * (no ptrace, no pinning: plain stress), only watching how it ends.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "internal.h"

int sc_run_native(const struct sc_run_config *cfg, const char *path,
		  struct sc_run_result *res);

static void native_verdict(int st, int err_pipe, const char *prog,
			   struct sc_run_result *r)
{
	int err = 0;

	if (WIFEXITED(st)) {
		r->exit_status = WEXITSTATUS(st);
		if (r->exit_status == 0) {
			r->verdict = SC_VERDICT_PASS;
		} else if (read(err_pipe, &err, sizeof(err)) == (ssize_t)sizeof(err)) {
			r->verdict = SC_VERDICT_ERROR;
			snprintf(r->message, sizeof(r->message),
				 "%s: cannot execute: %s", prog, strerror(err));
		} else {
			r->verdict = SC_VERDICT_EXIT;
			snprintf(r->message, sizeof(r->message),
				 "exited with status %d", r->exit_status);
		}
		return;
	}
	r->signal = WTERMSIG(st);
	r->verdict = r->signal == SIGABRT ? SC_VERDICT_ASSERT : SC_VERDICT_CRASH;
	snprintf(r->message, sizeof(r->message), "killed by SIG%s (%s)",
		 sigabbrev_np(r->signal), strsignal(r->signal));
}

int sc_run_native(const struct sc_run_config *cfg, const char *path,
		  struct sc_run_result *res)
{
	sigset_t chld, old;
	int err_pipe = -1, st = 0;
	uint64_t start = sc_now_us();
	uint64_t deadline = cfg->timeout_ms ? start + cfg->timeout_ms * 1000ull : 0;

	sigemptyset(&chld);
	sigaddset(&chld, SIGCHLD);
	sigprocmask(SIG_BLOCK, &chld, &old);
	pid_t pid = sc_spawn_native(cfg, path, &err_pipe);
	if (pid < 0) {
		res->verdict = SC_VERDICT_ERROR;
		snprintf(res->message, sizeof(res->message), "cannot start %s: %s",
			 cfg->argv[0], strerror(errno));
		sigprocmask(SIG_SETMASK, &old, NULL);
		return -1;
	}
	for (;;) {
		pid_t r = waitpid(pid, &st, WNOHANG);
		if (r == pid)
			break;
		uint64_t now = sc_now_us();
		bool cancelled = cfg->cancel && *cfg->cancel;
		if (cancelled || (deadline && now >= deadline)) {
			kill(-pid, SIGKILL);
			kill(pid, SIGKILL);
			waitpid(pid, &st, 0);
			res->verdict = cancelled ? SC_VERDICT_ERROR : SC_VERDICT_HANG;
			snprintf(res->message, sizeof(res->message), cancelled ?
				 "interrupted" : "hang: run exceeded its %.3g s time budget",
				 cfg->timeout_ms / 1000.0);
			goto out;
		}
		uint64_t left = deadline ? deadline - now : 100000;
		if (left > 100000)
			left = 100000;
		struct timespec ts = { 0, (long)left * 1000 };
		sigtimedwait(&chld, NULL, &ts);
	}
	native_verdict(st, err_pipe, cfg->argv[0], res);
	/* Anything the target left in its session dies with it. */
	kill(-pid, SIGKILL);
out:
	res->wall_us = sc_now_us() - start;
	close(err_pipe);
	struct timespec zero = { 0, 0 };
	while (sigtimedwait(&chld, NULL, &zero) > 0)
		;
	sigprocmask(SIG_SETMASK, &old, NULL);
	return 0;
}
