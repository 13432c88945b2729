/*
 * lost_signal.c - threads that wait in the kernel for a signal nothing
 * left can send.
 *
 * A worker that sets "ready" and then calls pause() loses the signal
 * that comes in between: its handler runs before pause(), and pause()
 * waits for good.  Nothing is blocked in our futex model, so this was a
 * "hang" only at the run's time budget (60 s by default, for each such
 * run).  When every controlled thread waits (in the futex model, or
 * asleep in the kernel), and those in the kernel wait only for a signal
 * (pause, sigsuspend, sigwait/sigwaitinfo: sigtimedwait without a
 * timeout), the only senders left are: a timer of the program's
 * (alarm/setitimer, which the engine keeps, or timer_create's, listed in
 * /proc/PID/timers), a child process that may exit (SIGCHLD), or another
 * program.  Without the first two, the run is a deadlock; a signal from
 * outside the program (a user's kill) is not something a test waits for.
 */
#include <ctype.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>

#include "internal.h"

/* In the kernel: released there, or the only live thread, which the
 * engine waits for until it comes back (SC_RELEASE_AWAIT). */
static bool in_kernel(const struct sc_thread *t)
{
	return t->state == TH_IN_KERNEL ||
	       (t->state == TH_RUNNING && t->released);
}

const char *sc_signal_wait_name(const struct sc_thread *t)
{
	if (!in_kernel(t))
		return NULL;
	switch ((long)t->regs.orig_rax) {
	case SYS_pause:
		return "pause";
	case SYS_rt_sigsuspend:
		return "sigsuspend";
	case SYS_rt_sigtimedwait:
		/* sigwait and sigwaitinfo pass no timeout */
		return t->regs.rdx ? NULL : "sigwait";
	default:
		return NULL;
	}
}

bool sc_has_posix_timers(pid_t pid)
{
	char path[64];
	int c;

	snprintf(path, sizeof(path), "/proc/%d/timers", (int)pid);
	FILE *f = fopen(path, "re");
	if (!f)
		return true;    /* cannot tell: as if it had */
	c = fgetc(f);
	fclose(f);
	return c != EOF;
}

static bool is_our_process(const struct sc_engine *e, pid_t pid)
{
	for (size_t i = 0; i < e->nprocs; i++)
		if (e->procs[i]->pid == pid)
			return true;
	return false;
}

/* Is there a process, not one of the run's, whose parent is one of the
 * run's (its exit sends SIGCHLD)?  /proc/PID/task/TID/children needs a
 * kernel option Debian leaves out, so the process table is read.  When
 * /proc cannot be read: yes. */
static bool has_foreign_child(const struct sc_engine *e)
{
	DIR *d = opendir("/proc");
	struct dirent *de;
	bool found = false;

	if (!d)
		return true;
	while (!found && (de = readdir(d))) {
		if (!isdigit((unsigned char)de->d_name[0]))
			continue;
		char path[300], buf[512];
		snprintf(path, sizeof(path), "/proc/%s/stat", de->d_name);
		FILE *f = fopen(path, "re");
		if (!f)
			continue;
		size_t n = fread(buf, 1, sizeof(buf) - 1, f);
		fclose(f);
		buf[n] = '\0';
		/* "pid (comm) state ppid": comm may hold spaces and ')' */
		const char *close = strrchr(buf, ')');
		int ppid;
		if (!close || sscanf(close + 1, " %*c %d", &ppid) != 1)
			continue;
		pid_t pid = (pid_t)atoi(de->d_name);
		found = is_our_process(e, ppid) && !is_our_process(e, pid);
	}
	closedir(d);
	return found;
}

bool sc_signals_lost(const struct sc_engine *e)
{
	size_t waiting = 0;

	for (size_t i = 0; i < e->nthreads; i++) {
		const struct sc_thread *t = e->threads[i];
		if (!t->controlled)
			return false;   /* a free child may do anything */
		if (t->state == TH_EXITING && t->exit_recorded)
			continue;       /* a leader's pthread_exit */
		if (t->state == TH_BLOCKED && !t->wait_timed)
			continue;
		if (!sc_signal_wait_name(t) ||
		    !sc_asleep_for_good(t->proc->pid, t->tid))
			return false;
		waiting++;
	}
	if (!waiting)
		return false;
	for (size_t i = 0; i < e->nprocs; i++) {
		const struct sc_process *p = e->procs[i];
		if (p->exiting)
			return false;   /* its death, and a SIGCHLD, come */
		if (sc_alarm_armed(p) ||
		    (p->controlled && sc_has_posix_timers(p->pid)))
			return false;
	}
	return !has_foreign_child(e);
}
