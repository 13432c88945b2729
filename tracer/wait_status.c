/* wait_status.c - classify a waitpid() status of a tracee.
 *
 * Pure function (no ptrace calls) so it can be unit-tested with synthetic
 * statuses.  How each class is resumed is decided in engine.c:
 *   WS_SECCOMP      PTRACE_CONT (or skip the syscall first), PTRACE_SYSCALL
 *                   to release it and get its syscall-exit stop
 *   WS_SYSCALL      PTRACE_CONT
 *   WS_CLONE/FORK/EXEC/EXIT_EVENT/VFORK_DONE   PTRACE_CONT
 *   WS_EVENT_STOP   PTRACE_CONT (a new tracee starts this way, and
 *                   PTRACE_INTERRUPT ends here)
 *   WS_GROUP_STOP   PTRACE_CONT: job control is not simulated
 *   WS_SIGNAL       PTRACE_CONT with the signal to deliver it
 */
#include <signal.h>
#include <sys/ptrace.h>
#include <sys/wait.h>

#include "internal.h"

enum sc_stop_class sc_classify_status(int status)
{
	if (WIFEXITED(status))
		return WS_EXITED;
	if (WIFSIGNALED(status))
		return WS_KILLED;
	if (!WIFSTOPPED(status))
		return WS_UNKNOWN;

	int sig = WSTOPSIG(status);
	int event = (unsigned)status >> 16;

	if (sig == (SIGTRAP | 0x80))
		return WS_SYSCALL;
	switch (event) {
	case 0:
		return WS_SIGNAL;
	case PTRACE_EVENT_SECCOMP:
		return WS_SECCOMP;
	case PTRACE_EVENT_CLONE:
		return WS_CLONE;
	case PTRACE_EVENT_FORK:
	case PTRACE_EVENT_VFORK:
		return WS_FORK;
	case PTRACE_EVENT_VFORK_DONE:
		return WS_VFORK_DONE;
	case PTRACE_EVENT_EXEC:
		return WS_EXEC;
	case PTRACE_EVENT_EXIT:
		return WS_EXIT_EVENT;
	case PTRACE_EVENT_STOP:
		if (sig == SIGSTOP || sig == SIGTSTP || sig == SIGTTIN ||
		    sig == SIGTTOU)
			return WS_GROUP_STOP;
		return WS_EVENT_STOP;
	default:
		return WS_UNKNOWN;
	}
}
