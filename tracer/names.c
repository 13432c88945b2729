/* names.c - printable names of event kinds, accesses and verdicts. */
#include <string.h>

#include "tracer.h"

static const char *const kind_names[SC_EV__COUNT] = {
	[SC_EV_NONE] = "none",
	[SC_EV_THREAD_CREATE] = "thread_create",
	[SC_EV_THREAD_START] = "thread_start",
	[SC_EV_THREAD_EXIT] = "thread_exit",
	[SC_EV_LIB_CREATE] = "pthread_create",
	[SC_EV_LIB_JOIN] = "pthread_join",
	[SC_EV_PROCESS_EXIT] = "process_exit",
	[SC_EV_FORK] = "fork",
	[SC_EV_EXEC] = "exec",
	[SC_EV_FUTEX_WAIT] = "futex_wait",
	[SC_EV_FUTEX_WAKE] = "futex_wake",
	[SC_EV_FUTEX_REQUEUE] = "futex_requeue",
	[SC_EV_FUTEX_WAKE_OP] = "futex_wake_op",
	[SC_EV_FUTEX_OTHER] = "futex_other",
	[SC_EV_WAIT_RETURN] = "wait_return",
	[SC_EV_TIMEOUT] = "timeout",
	[SC_EV_YIELD] = "yield",
	[SC_EV_SLEEP] = "sleep",
	[SC_EV_SYSCALL_BLOCKING] = "syscall",
	[SC_EV_SYSCALL_RETURN] = "syscall_return",
	[SC_EV_PREEMPT] = "preempt",
	[SC_EV_MUTEX_LOCK] = "mutex_lock",
	[SC_EV_MUTEX_TRYLOCK] = "mutex_trylock",
	[SC_EV_MUTEX_UNLOCK] = "mutex_unlock",
	[SC_EV_COND_WAIT] = "cond_wait",
	[SC_EV_COND_SIGNAL] = "cond_signal",
	[SC_EV_COND_BROADCAST] = "cond_broadcast",
	[SC_EV_RWLOCK_RDLOCK] = "rwlock_rdlock",
	[SC_EV_RWLOCK_WRLOCK] = "rwlock_wrlock",
	[SC_EV_RWLOCK_UNLOCK] = "rwlock_unlock",
	[SC_EV_SEM_WAIT] = "sem_wait",
	[SC_EV_SEM_POST] = "sem_post",
	[SC_EV_SPIN_LOCK] = "spin_lock",
	[SC_EV_SPIN_UNLOCK] = "spin_unlock",
	[SC_EV_BARRIER_WAIT] = "barrier_wait",
	[SC_EV_ONCE] = "once",
	[SC_EV_MEM_READ] = "read",
	[SC_EV_MEM_WRITE] = "write",
	[SC_EV_MEM_RMW] = "rmw",
	[SC_EV_FREE] = "free",
};

const char *sc_event_kind_name(enum sc_event_kind k)
{
	if ((unsigned)k < SC_EV__COUNT && kind_names[k])
		return kind_names[k];
	return "unknown";
}

int sc_event_kind_parse(const char *name)
{
	for (int k = 0; k < SC_EV__COUNT; k++)
		if (kind_names[k] && strcmp(kind_names[k], name) == 0)
			return k;
	return -1;
}

const char *sc_access_name(enum sc_access a)
{
	switch (a) {
	case SC_ACC_NONE: return "none";
	case SC_ACC_READ: return "read";
	case SC_ACC_WRITE: return "write";
	case SC_ACC_RMW: return "rmw";
	}
	return "unknown";
}

const char *sc_verdict_name(enum sc_verdict v)
{
	switch (v) {
	case SC_VERDICT_UNKNOWN: return "unknown";
	case SC_VERDICT_PASS: return "pass";
	case SC_VERDICT_CRASH: return "crash";
	case SC_VERDICT_ASSERT: return "assert";
	case SC_VERDICT_EXIT: return "exit";
	case SC_VERDICT_DEADLOCK: return "deadlock";
	case SC_VERDICT_HANG: return "hang";
	case SC_VERDICT_ERROR: return "error";
	case SC_VERDICT_DIVERGED: return "diverged";
	}
	return "unknown";
}
