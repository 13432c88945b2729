/*
 * test_trap_pending.c - sc_bp_trap_pending against the kernel.
 *
 * A thread interrupted (PTRACE_INTERRUPT) while the kernel handles its
 * int3 stops for the interrupt first, one byte past the int3, with the
 * trap's SIGTRAP still queued.  The engine once planted its preemption
 * probe at that rip, inside the instruction the breakpoint had replaced,
 * and a correct program crashed.  Here a child executes an int3 in a
 * loop and counts its passes; it is interrupted again and again, and at
 * each interrupt stop:
 *  - "pending" must mean the very next stop is that int3's trap, before
 *    the child made one more pass;
 *  - "not pending" must mean it runs on: the next trap comes after at
 *    least one more pass.
 * How often an interrupt lands inside the trap depends on timing: when
 * it never does, that check is skipped and says so.
 */
#include "config.h"

#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <unistd.h>

#include "internal.h"
#include "tap.h"

#define INTERRUPTS_MAX 40000
#define PENDING_ENOUGH 10

extern char trap_site[];
static volatile uint64_t passes;

static void __attribute__((noreturn)) loop_over_int3(int go)
{
	char c;

	if (read(go, &c, 1) != 1)
		_exit(1);
	for (;;) {
		for (volatile int k = 0; k < 300; k++)
			;
		__asm__ volatile(".globl trap_site\ntrap_site: int3\n");
		passes++;
	}
}

static uint64_t passes_of(pid_t pid)
{
	errno = 0;
	return (uint64_t)ptrace(PTRACE_PEEKDATA, pid, (void *)&passes, 0);
}

/* Resume pid and wait for its next stop; false if it is not a stop. */
static bool cont_and_wait(pid_t pid, int *status)
{
	return ptrace(PTRACE_CONT, pid, 0, 0) == 0 &&
	       waitpid(pid, status, __WALL) == pid && WIFSTOPPED(*status);
}

int main(void)
{
	int go[2];
	struct sc_thread t;
	long pending = 0, not_pending = 0, false_pending = 0, missed = 0;
	long interrupts = 0;
	int status;

	plan(3);
	if (pipe(go) < 0)
		bail_out("pipe");
	pid_t pid = fork();
	if (pid == 0)
		loop_over_int3(go[0]);
	if (ptrace(PTRACE_SEIZE, pid, 0, PTRACE_O_EXITKILL) < 0)
		bail_out("PTRACE_SEIZE");
	if (write(go[1], "g", 1) != 1)
		bail_out("write");
	memset(&t, 0, sizeof(t));
	t.tid = pid;

	while (interrupts < INTERRUPTS_MAX && pending < PENDING_ENOUGH) {
		if (ptrace(PTRACE_INTERRUPT, pid, 0, 0) < 0)
			break;
		interrupts++;
		/* Traps before the interrupt's stop: the child runs on. */
		for (;;) {
			if (waitpid(pid, &status, __WALL) != pid ||
			    !WIFSTOPPED(status))
				goto out;
			if (status >> 16 == PTRACE_EVENT_STOP)
				break;
			if (ptrace(PTRACE_CONT, pid, 0, 0) < 0)
				goto out;
		}
		if (ptrace(PTRACE_GETREGS, pid, 0, &t.regs) < 0)
			break;
		bool says = sc_bp_trap_pending(&t);
		uint64_t before = passes_of(pid);
		/* The next trap stop (no other interrupt is sent). */
		do {
			if (!cont_and_wait(pid, &status))
				goto out;
		} while (WSTOPSIG(status) != SIGTRAP);
		uint64_t after = passes_of(pid);
		if (says) {
			pending++;
			if (after != before ||
			    t.regs.rip != (uint64_t)trap_site + 1)
				false_pending++;
		} else {
			not_pending++;
			if (after == before &&
			    t.regs.rip == (uint64_t)trap_site + 1)
				missed++;
		}
		if (ptrace(PTRACE_CONT, pid, 0, 0) < 0)
			break;
	}
out:
	kill(pid, SIGKILL);
	waitpid(pid, &status, __WALL);
	diag("%ld interrupts: %ld inside the int3's trap, %ld elsewhere",
	     interrupts, pending, not_pending);
	ok(interrupts > 0 && not_pending > 0,
	   "the looping child was interrupted and ran on");
	ok(missed == 0, "no stop with a trap still queued was called "
	   "not pending (%ld were)", missed);
	if (pending == 0)
		skip(1, "no interrupt landed inside the trap");
	else
		ok(false_pending == 0, "each stop called pending was followed "
		   "by its trap at once (%ld were not)", false_pending);
	return done_testing();
}
