/* time.c - clocks used by the engine. */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "internal.h"

uint64_t sc_now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

/* What follows the command name in a /proc/.../stat text read into buf
 * (n bytes): "tid (comm) S ppid ...", where comm may hold spaces and
 * parentheses; NULL when none. */
static const char *after_comm(char *buf, ssize_t n)
{
	if (n <= 0)
		return NULL;
	buf[n] = 0;
	char *close = strrchr(buf, ')');
	return close && close[1] == ' ' && close[2] ? close + 2 : NULL;
}

/* The state letter of such a text. */
static char state_letter(char *buf, ssize_t n)
{
	const char *rest = after_comm(buf, n);

	return rest ? rest[0] : '?';
}

pid_t sc_process_parent(pid_t pid)
{
	char path[64], buf[512];
	int ppid;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	ssize_t n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	const char *rest = after_comm(buf, n);
	return rest && sscanf(rest, "%*c %d", &ppid) == 1 ? (pid_t)ppid : 0;
}

static int open_stat(pid_t pid, pid_t tid)
{
	char path[80];

	snprintf(path, sizeof(path), "/proc/%d/task/%d/stat", (int)pid, (int)tid);
	return open(path, O_RDONLY | O_CLOEXEC);
}

/* Scheduler state letter of a thread ('R' running or runnable, 'S'
 * sleeping, 'D' uninterruptible...), '?' when unknown. */
char sc_thread_state(pid_t pid, pid_t tid)
{
	char buf[512];
	int fd = open_stat(pid, tid);

	if (fd < 0)
		return '?';
	ssize_t n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	return state_letter(buf, n);
}

char sc_thread_state_kept(struct sc_thread *t)
{
	char buf[512];
	ssize_t n = -1;

	if (t->stat_fd >= 0)
		n = pread(t->stat_fd, buf, sizeof(buf) - 1, 0);
	if (n <= 0) {
		/* Not open yet, or the task it names is gone (an execve
		 * gives the thread its leader's tid): open it anew. */
		if (t->stat_fd >= 0)
			close(t->stat_fd);
		t->stat_fd = open_stat(t->proc->pid, t->tid);
		if (t->stat_fd < 0)
			return '?';
		n = pread(t->stat_fd, buf, sizeof(buf) - 1, 0);
	}
	return state_letter(buf, n);
}

int sc_thread_signals(pid_t pid, pid_t tid, uint64_t *pending,
		      uint64_t *blocked)
{
	uint64_t ignored, caught;

	return sc_thread_signal_sets(pid, tid, pending, blocked, &ignored,
				     &caught);
}

int sc_thread_signal_sets(pid_t pid, pid_t tid, uint64_t *pending,
			  uint64_t *blocked, uint64_t *ignored,
			  uint64_t *caught)
{
	char path[80], line[256];
	unsigned long long pnd = 0, blk = 0, ign = 0, cgt = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/status", (int)pid,
		 (int)tid);
	f = fopen(path, "re");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		sscanf(line, "SigPnd: %llx", &pnd);
		sscanf(line, "SigBlk: %llx", &blk);
		sscanf(line, "SigIgn: %llx", &ign);
		sscanf(line, "SigCgt: %llx", &cgt);
	}
	fclose(f);
	*pending = pnd;
	*blocked = blk;
	*ignored = ign;
	*caught = cgt;
	return 0;
}

/* CPU time the traced process has used, in ns (0 when unknown).  One
 * controlled thread runs at a time, so the process's clock is the running
 * thread's.  Linux refuses per-thread CPU clocks of other processes
 * (posix-cpu-timers lookup_task), and the running thread's share moves
 * only at the scheduler's tick (preempt_replay.c copes with that). */
uint64_t sc_process_cpu_ns(pid_t pid)
{
	/* The kernel's encoding of a process CPU clock (CPUCLOCK_SCHED of
	 * pid, as in linux/posix-timers.h).  clock_getcpuclockid computes the
	 * same but first checks it with a clock_getres syscall, one more
	 * syscall at every scheduling point; a gone process makes
	 * clock_gettime fail just as well. */
	clockid_t id = (clockid_t)((~(unsigned)pid << 3) | 2u);
	struct timespec ts;

	if (clock_gettime(id, &ts) != 0)
		return 0;
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}
