/*
 * virtual_alarm.c - alarm(2) and setitimer(ITIMER_REAL) in the run's
 * virtual time.
 *
 * A test harness's watchdog (alarm(10), then the test) never fires
 * natively, but under control a run takes many times its native time:
 * the kernel's SIGALRM then killed correct programs ("crash: killed by
 * SIGALRM", QA: 7 to 10 of 10 runs of a program that takes 0.16 s
 * natively under a 2 s alarm), at a moment of the machine's choosing, so
 * neither that run nor any run with a firing timer replayed.
 *
 * With cfg->virtual_timeouts (controlled launches, and replays of their
 * traces) the calls never reach the kernel.  Each process's real-time
 * timer is kept here and runs on the virtual clock of vclock.c (10 us a
 * scheduling step, 1 us a clock read): it fires at the first decision
 * after its virtual time came, which is the same step in every run of
 * the schedule, replay included.  When no thread can run and one waits
 * in the kernel (alarm(1); pause()), virtual time stands still: the
 * timer then fires once its real time has passed too, as natively.
 * Its SIGALRM goes to the thread the kernel would give it: the first of
 * the process's threads that does not block it (its leader when none).
 */
#include <errno.h>
#include <signal.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <unistd.h>

#include "internal.h"

#define NS_PER_S 1000000000ull
#define NS_PER_US 1000ull

static uint64_t tv_ns(const struct timeval *tv)
{
	if (tv->tv_sec < 0 || tv->tv_usec < 0)
		return 0;
	return (uint64_t)tv->tv_sec * NS_PER_S +
	       (uint64_t)tv->tv_usec * NS_PER_US;
}

static struct timeval ns_tv(uint64_t ns)
{
	/* Rounded up, as the kernel reports a timer that is still armed. */
	uint64_t us = (ns + NS_PER_US - 1) / NS_PER_US;
	return (struct timeval){ .tv_sec = (time_t)(us / 1000000u),
				 .tv_usec = (suseconds_t)(us % 1000000u) };
}

static uint64_t remaining_ns(const struct sc_engine *e,
			     const struct sc_process *p)
{
	uint64_t now = sc_vclock_now_ns(e);

	if (!p->alarm_due_ns)
		return 0;
	return p->alarm_due_ns > now ? p->alarm_due_ns - now : 1;
}

static void arm(const struct sc_engine *e, struct sc_process *p,
		uint64_t value_ns, uint64_t interval_ns)
{
	p->alarm_due_ns = value_ns ? sc_vclock_now_ns(e) + value_ns : 0;
	p->alarm_real_due_us = value_ns ? sc_now_us() + value_ns / NS_PER_US : 0;
	p->alarm_interval_ns = value_ns ? interval_ns : 0;
}

/* Write the timer's state as an itimerval at addr of t's process. */
static int write_itimer(const struct sc_engine *e, struct sc_thread *t,
			uint64_t addr)
{
	struct itimerval it = {
		.it_interval = ns_tv(t->proc->alarm_interval_ns),
		.it_value = ns_tv(remaining_ns(e, t->proc)),
	};

	return sc_mem_write(t->proc, addr, &it, sizeof(it));
}

static int64_t do_setitimer(struct sc_engine *e, struct sc_thread *t)
{
	uint64_t new_addr = t->regs.rsi, old_addr = t->regs.rdx;
	struct itimerval it = { 0 };

	if (new_addr && sc_mem_read(t->proc, new_addr, &it, sizeof(it)) < 0)
		return -EFAULT;
	if (it.it_value.tv_usec >= 1000000 || it.it_interval.tv_usec >= 1000000 ||
	    it.it_value.tv_sec < 0 || it.it_value.tv_usec < 0 ||
	    it.it_interval.tv_sec < 0 || it.it_interval.tv_usec < 0)
		return -EINVAL;
	if (old_addr && write_itimer(e, t, old_addr) < 0)
		return -EFAULT;
	arm(e, t->proc, tv_ns(&it.it_value), tv_ns(&it.it_interval));
	return 0;
}

bool sc_alarm_syscall(struct sc_engine *e, struct sc_thread *t)
{
	long nr = (long)t->regs.orig_rax;

	if (nr != SYS_alarm && nr != SYS_setitimer && nr != SYS_getitimer)
		return false;
	/* The other timers (CPU time), and runs that keep real time
	 * (attach, older traces): the kernel's. */
	if (!e->cfg->virtual_timeouts || e->attached ||
	    (nr != SYS_alarm && (int)t->regs.rdi != ITIMER_REAL)) {
		sc_resume(t, PTRACE_CONT);
		return true;
	}
	if (nr == SYS_alarm) {
		/* The seconds left of the previous alarm, rounded up. */
		uint64_t left = remaining_ns(e, t->proc);
		t->skip_ret = (int64_t)((left + NS_PER_S - 1) / NS_PER_S);
		arm(e, t->proc, (uint64_t)(unsigned)t->regs.rdi * NS_PER_S, 0);
	} else if (nr == SYS_setitimer) {
		t->skip_ret = do_setitimer(e, t);
	} else {
		t->skip_ret = write_itimer(e, t, t->regs.rsi) < 0 ? -EFAULT : 0;
	}
	t->skip_syscall = true;
	sc_resume(t, PTRACE_CONT);
	return true;
}

/* The thread of p that the kernel would give a process-directed signal
 * sig: the first, in creation order, that does not block it; else the
 * leader (it stays pending there). */
static struct sc_thread *signal_target(struct sc_engine *e,
				       struct sc_process *p, int sig)
{
	struct sc_thread *leader = NULL;

	for (size_t i = 0; i < e->nthreads; i++) {
		struct sc_thread *t = e->threads[i];
		uint64_t pending, blocked;
		if (t->proc != p || !t->controlled || t->state == TH_EXITING)
			continue;
		if (t->tid == p->pid)
			leader = t;
		if (sc_thread_signals(p->pid, t->tid, &pending, &blocked) == 0 &&
		    !(blocked & (1ull << (sig - 1))))
			return t;
	}
	return leader;
}

bool sc_alarm_armed(const struct sc_process *p)
{
	return p->alarm_due_ns && p->controlled && !p->exiting;
}

static void fire(struct sc_engine *e, struct sc_process *p)
{
	struct sc_thread *target = signal_target(e, p, SIGALRM);

	/* Fired by its real time while nothing could run: the virtual
	 * clock moves on to its due time, or a program that measured its
	 * alarm(1) read a few ms (QA: every run of alarm and of a 20 ms
	 * setitimer checked against the clock failed). */
	sc_vclock_advance_to(e, p->alarm_due_ns);
	if (p->alarm_interval_ns) {
		/* In phase with its first due time, as the kernel's, unless
		 * it fell a whole interval behind. */
		uint64_t now = sc_vclock_now_ns(e);
		p->alarm_due_ns += p->alarm_interval_ns;
		if (p->alarm_due_ns <= now)
			p->alarm_due_ns = now + p->alarm_interval_ns;
		p->alarm_real_due_us = sc_now_us() +
				       p->alarm_interval_ns / NS_PER_US;
	} else {
		p->alarm_due_ns = 0;
		p->alarm_real_due_us = 0;
	}
	if (!target)
		return;
	/* Stopped as it is, the thread takes the signal when it next
	 * runs; one waiting (in our futex model or in the kernel) is
	 * woken as by a tgkill of the program's. */
	if (syscall(SYS_tgkill, p->pid, target->tid, SIGALRM) == 0)
		sc_signal_sent_to(e, target, SIGALRM);
}

bool sc_alarms_fire(struct sc_engine *e, bool idle)
{
	uint64_t now = sc_vclock_now_ns(e), real = 0;
	bool fired = false;

	for (size_t i = 0; i < e->nprocs; i++) {
		struct sc_process *p = e->procs[i];
		if (!sc_alarm_armed(p))
			continue;
		bool due = now >= p->alarm_due_ns;
		if (!due && idle) {
			if (!real)
				real = sc_now_us();
			due = real >= p->alarm_real_due_us;
		}
		if (due) {
			fire(e, p);
			fired = true;
		}
	}
	return fired;
}

bool sc_alarms_fire_by(struct sc_engine *e, uint64_t vns)
{
	bool fired = false;

	if (!vns)
		return false;

	for (size_t i = 0; i < e->nprocs; i++) {
		struct sc_process *p = e->procs[i];
		if (sc_alarm_armed(p) && p->alarm_due_ns <= vns) {
			fire(e, p);
			fired = true;
		}
	}
	return fired;
}

uint64_t sc_alarm_real_wait_us(struct sc_engine *e)
{
	uint64_t now = 0, wait = 0;

	for (size_t i = 0; i < e->nprocs; i++) {
		const struct sc_process *p = e->procs[i];
		if (!sc_alarm_armed(p))
			continue;
		if (!now)
			now = sc_now_us();
		uint64_t left = p->alarm_real_due_us > now
				? p->alarm_real_due_us - now : 1;
		if (!wait || left < wait)
			wait = left;
	}
	return wait;
}
