/* test_wait_status.c - the wait status classifier with synthetic statuses,
 * and sc_check_program on good and bad programs.  No tracee needed. */
#include <signal.h>
#include <stdio.h>
#include <sys/ptrace.h>
#include <unistd.h>

#include "internal.h"
#include "tap.h"

/* Build statuses the way the kernel encodes them (see wait(2), ptrace(2)). */
static int exited(int code) { return (code & 0xff) << 8; }
static int killed(int sig) { return sig & 0x7f; }
static int stopped(int sig, int event) { return (event << 16) | (sig << 8) | 0x7f; }

int main(void)
{
	char resolved[256], err[256];

	plan(17);
	ok(sc_classify_status(exited(0)) == WS_EXITED, "exit 0");
	ok(sc_classify_status(exited(3)) == WS_EXITED, "exit 3");
	ok(sc_classify_status(killed(SIGKILL)) == WS_KILLED, "killed");
	ok(sc_classify_status(stopped(SIGTRAP, PTRACE_EVENT_SECCOMP)) == WS_SECCOMP,
	   "seccomp stop");
	ok(sc_classify_status(stopped(SIGTRAP | 0x80, 0)) == WS_SYSCALL,
	   "syscall stop (TRACESYSGOOD)");
	ok(sc_classify_status(stopped(SIGTRAP, PTRACE_EVENT_CLONE)) == WS_CLONE,
	   "clone event");
	ok(sc_classify_status(stopped(SIGTRAP, PTRACE_EVENT_FORK)) == WS_FORK,
	   "fork event");
	ok(sc_classify_status(stopped(SIGTRAP, PTRACE_EVENT_VFORK)) == WS_FORK,
	   "vfork event");
	ok(sc_classify_status(stopped(SIGTRAP, PTRACE_EVENT_EXEC)) == WS_EXEC,
	   "exec event");
	ok(sc_classify_status(stopped(SIGTRAP, PTRACE_EVENT_EXIT)) == WS_EXIT_EVENT,
	   "exit event");
	ok(sc_classify_status(stopped(SIGTRAP, PTRACE_EVENT_STOP)) == WS_EVENT_STOP,
	   "interrupt / initial stop");
	ok(sc_classify_status(stopped(SIGSTOP, PTRACE_EVENT_STOP)) == WS_GROUP_STOP,
	   "group stop");
	ok(sc_classify_status(stopped(SIGSEGV, 0)) == WS_SIGNAL,
	   "signal-delivery stop");
	ok(sc_check_program("/bin/true", resolved, sizeof(resolved), err,
			    sizeof(err)) == 0, "/bin/true runs");
	ok(sc_check_program("true", resolved, sizeof(resolved), err,
			    sizeof(err)) == 0 && resolved[0] == '/',
	   "true found through PATH: %s", resolved);
	ok(sc_check_program("/nonexistent/prog", resolved, sizeof(resolved), err,
			    sizeof(err)) < 0, "missing program: %s", err);
	ok(sc_check_program("/etc/passwd", resolved, sizeof(resolved), err,
			    sizeof(err)) < 0, "not executable: %s", err);
	return done_testing();
}
