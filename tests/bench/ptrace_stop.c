/*
 * ptrace_stop: what one seccomp SECCOMP_RET_TRACE stop costs on this
 * machine, the floor under schedctl's cost per scheduling point.
 *
 * A child installs a libseccomp filter that traps getppid, the parent
 * seizes it with PTRACE_O_TRACESECCOMP and resumes it at every stop; the
 * child times ITERATIONS getppid calls with and without the filter.  Done
 * twice: tracer and tracee pinned to the same CPU (what schedctld does),
 * then to two different CPUs (a cross-CPU wake-up per stop).
 *
 * The same again on the same CPU with a breakpoint instead of the
 * filter: the child executes int3, the parent resumes it at each
 * SIGTRAP stop without delivering the signal.  That is the floor under
 * schedctl's scheduling points at libc's synchronisation functions
 * (breakpoints at their entries), the seccomp stop the floor under its
 * futex and thread-creation points.
 *
 * Usage: ptrace_stop [ITERATIONS]   (default 20000)
 * Output, one "key value" per line (values in microseconds):
 *   syscall_us, same_cpu_stop_us, other_cpu_stop_us ("n/a" with one CPU),
 *   same_cpu_int3_stop_us
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <sched.h>
#include <seccomp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

struct child_result {
	double plain_us;	/* per getppid, no filter */
	double traced_us;	/* per getppid, each one a ptrace stop */
	double int3_us;		/* per int3, each one a ptrace stop (int3 mode) */
};

/* What the tracee stops at: its filter's getppid, or int3. */
enum stop_kind { STOP_SECCOMP, STOP_INT3 };

static double now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static int pin_to(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof(set), &set);
}

static double time_getppid(long n)
{
	double start = now_us();
	long i;

	for (i = 0; i < n; i++)
		syscall(SYS_getppid);
	return (now_us() - start) / n;
}

static int install_filter(void)
{
	scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
	int rc;

	if (ctx == NULL)
		return -1;
	/* libseccomp sets PR_SET_NO_NEW_PRIVS itself (SCMP_FLTATR_CTL_NNP). */
	rc = seccomp_rule_add(ctx, SCMP_ACT_TRACE(1), SCMP_SYS(getppid), 0);
	if (rc == 0)
		rc = seccomp_load(ctx);
	seccomp_release(ctx);
	return rc;
}

static double time_int3(long n)
{
	double start = now_us();
	long i;

	for (i = 0; i < n; i++)
		__asm__ volatile("int3");
	return (now_us() - start) / n;
}

/* The tracee.  Never returns. */
static void run_child(enum stop_kind kind, int cpu, long n, int report_fd,
		      int go_fd)
{
	struct child_result res = { 0 };
	char c = 'r';

	if (pin_to(cpu) != 0) {
		perror("ptrace_stop: child: sched_setaffinity");
		_exit(1);
	}
	res.plain_us = time_getppid(n);
	if (kind == STOP_INT3) {
		if (write(report_fd, &c, 1) != 1 || read(go_fd, &c, 1) != 1)
			_exit(1);
		res.int3_us = time_int3(n);
		if (write(report_fd, &res, sizeof(res)) != (ssize_t)sizeof(res))
			_exit(1);
		_exit(0);
	}
	if (install_filter() != 0) {
		fprintf(stderr, "ptrace_stop: cannot install the seccomp filter\n");
		_exit(1);
	}
	/* Tell the parent to seize us, wait until it has. */
	if (write(report_fd, &c, 1) != 1 || read(go_fd, &c, 1) != 1)
		_exit(1);
	res.traced_us = time_getppid(n);
	if (write(report_fd, &res, sizeof(res)) != (ssize_t)sizeof(res))
		_exit(1);
	_exit(0);
}

/* Resume the child at each stop until it exits; return the stops of
 * the kind measured (an int3's SIGTRAP is not delivered). */
static long trace_child(enum stop_kind kind, pid_t pid)
{
	long stops = 0;
	int status, sig;

	while (waitpid(pid, &status, 0) == pid) {
		if (WIFEXITED(status) || WIFSIGNALED(status))
			return stops;
		if (!WIFSTOPPED(status))
			continue;
		sig = 0;
		if (status >> 8 == (SIGTRAP | (PTRACE_EVENT_SECCOMP << 8)))
			stops++;
		else if (kind == STOP_INT3 && status >> 8 == SIGTRAP)
			stops++;
		else if (status >> 16 == 0)
			sig = WSTOPSIG(status);	/* a real signal: deliver it */
		ptrace(PTRACE_CONT, pid, 0L, (long)sig);
	}
	perror("ptrace_stop: waitpid");
	return -1;
}

/* One measurement; returns 0 and fills *res, or -1 after a message. */
static int measure(enum stop_kind kind, int tracer_cpu, int tracee_cpu, long n,
		   struct child_result *res)
{
	int report[2], go[2];
	long stops;
	pid_t pid;
	char c;

	if (pin_to(tracer_cpu) != 0) {
		perror("ptrace_stop: sched_setaffinity");
		return -1;
	}
	if (pipe(report) != 0 || pipe(go) != 0) {
		perror("ptrace_stop: pipe");
		return -1;
	}
	pid = fork();
	if (pid < 0) {
		perror("ptrace_stop: fork");
		return -1;
	}
	if (pid == 0)
		run_child(kind, tracee_cpu, n, report[1], go[0]);
	close(report[1]);
	close(go[0]);
	if (read(report[0], &c, 1) != 1) {
		fprintf(stderr, "ptrace_stop: the child failed before tracing\n");
		waitpid(pid, NULL, 0);
		return -1;
	}
	if (ptrace(PTRACE_SEIZE, pid, 0L,
		   (long)(PTRACE_O_TRACESECCOMP | PTRACE_O_EXITKILL)) != 0) {
		perror("ptrace_stop: PTRACE_SEIZE");
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		return -1;
	}
	if (write(go[1], "g", 1) != 1)
		perror("ptrace_stop: write");
	stops = trace_child(kind, pid);
	if (read(report[0], res, sizeof(*res)) != (ssize_t)sizeof(*res)) {
		fprintf(stderr, "ptrace_stop: no result from the child\n");
		stops = -1;
	} else if (stops != n) {
		fprintf(stderr, "ptrace_stop: %ld stops for %ld calls\n", stops, n);
		stops = -1;
	}
	close(report[0]);
	close(go[1]);
	return stops < 0 ? -1 : 0;
}

/* The first two CPUs this process may run on; second is -1 if none. */
static void usable_cpus(int *first, int *second)
{
	cpu_set_t set;
	int cpu;

	*first = 0;
	*second = -1;
	if (sched_getaffinity(0, sizeof(set), &set) != 0)
		return;
	for (cpu = 0, *first = -1; cpu < CPU_SETSIZE; cpu++) {
		if (!CPU_ISSET(cpu, &set))
			continue;
		if (*first < 0) {
			*first = cpu;
		} else {
			*second = cpu;
			return;
		}
	}
}

int main(int argc, char **argv)
{
	struct child_result same, other;
	long n = 20000;
	int cpu0, cpu1;

	if (argc > 1) {
		char *end;

		n = strtol(argv[1], &end, 10);
		if (*end != '\0' || n <= 0) {
			fprintf(stderr, "ptrace_stop: bad iteration count '%s'\n", argv[1]);
			return 2;
		}
	}
	usable_cpus(&cpu0, &cpu1);
	struct child_result int3;

	if (measure(STOP_SECCOMP, cpu0, cpu0, n, &same) != 0 ||
	    measure(STOP_INT3, cpu0, cpu0, n, &int3) != 0)
		return 1;
	printf("iterations %ld\n", n);
	printf("syscall_us %.3f\n", same.plain_us);
	printf("same_cpu_stop_us %.2f\n", same.traced_us - same.plain_us);
	printf("same_cpu_int3_stop_us %.2f\n", int3.int3_us);
	if (cpu1 >= 0 && measure(STOP_SECCOMP, cpu0, cpu1, n, &other) == 0)
		printf("other_cpu_stop_us %.2f\n", other.traced_us - other.plain_us);
	else
		printf("other_cpu_stop_us n/a\n");
	return 0;
}
