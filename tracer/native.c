/* native.c - the `native` baseline: run the target with no control at all
 * (no ptrace, no pinning: plain stress), only watching how it ends.
 */
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
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

/* Kill what the target left outside its process group (a child that
 * called setsid() and ignores SIGTERM, a double-forked daemon): the run
 * is their subreaper, so they are its children once their parents are
 * gone (QA: such a child outlived -s native sessions; a controlled run
 * traces every process and kills them all).  Each round kills the
 * children found and waits for them, whose own children then come back
 * to us in turn.  waitid says cheaply whether there are any. */
static void kill_leftovers(void)
{
	pid_t self = getpid();

	for (int round = 0; round < 64; round++) {
		siginfo_t si = { 0 };
		if (waitid(P_ALL, 0, &si, WEXITED | WNOHANG) < 0)
			return;         /* ECHILD: none left */
		if (si.si_pid)
			continue;       /* one that had died: reaped */
		DIR *d = opendir("/proc");
		if (!d)
			return;
		pid_t killed[64];
		size_t nkilled = 0;
		struct dirent *de;
		while ((de = readdir(d)) && nkilled < 64) {
			pid_t child = (pid_t)atoi(de->d_name);
			if (child <= 0 || sc_process_parent(child) != self)
				continue;
			if (kill(child, SIGKILL) == 0)
				killed[nkilled++] = child;
		}
		closedir(d);
		if (!nkilled)
			return;         /* gone meanwhile, or not ours */
		for (size_t i = 0; i < nkilled; i++)
			waitpid(killed[i], NULL, 0);
	}
}

int sc_run_native(const struct sc_run_config *cfg, const char *path,
		  struct sc_run_result *res)
{
	sigset_t chld, old;
	int was_subreaper = 0;
	int err_pipe = -1, st = 0;
	uint64_t start = sc_now_us();
	uint64_t deadline = cfg->timeout_ms ? start + cfg->timeout_ms * 1000ull : 0;

	sigemptyset(&chld);
	sigaddset(&chld, SIGCHLD);
	sigprocmask(SIG_BLOCK, &chld, &old);
	prctl(PR_GET_CHILD_SUBREAPER, &was_subreaper);
	prctl(PR_SET_CHILD_SUBREAPER, 1);
	pid_t pid = sc_spawn_native(cfg, path, &err_pipe);
	if (pid < 0) {
		res->verdict = SC_VERDICT_ERROR;
		snprintf(res->message, sizeof(res->message), "cannot start %s: %s",
			 cfg->argv[0], strerror(errno));
		prctl(PR_SET_CHILD_SUBREAPER, was_subreaper);
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
	kill_leftovers();
	prctl(PR_SET_CHILD_SUBREAPER, was_subreaper);
	res->wall_us = sc_now_us() - start;
	close(err_pipe);
	struct timespec zero = { 0, 0 };
	while (sigtimedwait(&chld, NULL, &zero) > 0)
		;
	sigprocmask(SIG_SETMASK, &old, NULL);
	return 0;
}
