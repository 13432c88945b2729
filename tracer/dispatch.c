/* dispatch.c - turn each waitpid() status into a change of the model.
 *
 * The main loop alternates "classify the next status" and "dispatch it"
 * (strace's next_event/dispatch_event).  A controlled thread that stops
 * before a scheduling event becomes TH_READY and stops being the running
 * thread; everything else (clone/exec/exit notifications, signals, our
 * own entry breakpoint, uncontrolled processes) is handled and resumed
 * here without a scheduling decision.
 */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "internal.h"

#define DEFAULT_SLICE_US 2000
#define QUICK_RETURN_US 300  /* first check; see engine.c */
/* How long the next decision waits for a thread woken by a signal: far
 * more than a wake-up takes on a loaded machine, bounded because a
 * handler may block on something else. */
#define AWAIT_WAKE_US 2000000

/* Replay: is t's next recorded event a preemption?  Then set out to
 * stop it there (preempt_replay.c). */
static bool arm_preemption(struct sc_engine *e, struct sc_thread *t)
{
	const struct sc_policy *pol = e->cfg->policy;
	uint64_t step = e->step ? e->step - 1 : 0;

	if (!pol || !pol->preempt_target ||
	    !pol->preempt_target(pol->ctx, step, t->logical, &t->target))
		return false;
	sc_preempt_replay_arm(e, t);
	return true;
}

void sc_start_running(struct sc_engine *e, struct sc_thread *t, int request)
{
	uint32_t slice = e->cfg->slice_us ? e->cfg->slice_us : DEFAULT_SLICE_US;
	const struct sc_policy *pol = e->cfg->policy;
	uint64_t now = sc_now_us();

	t->state = TH_RUNNING;
	t->slice_us = slice;
	t->resumed_us = now;
	t->next_check_us = now + slice;   /* CPU time cannot pass faster */
	t->cpu_at_resume_ns = 0;          /* read at the first look */
	t->cpu_at_check_ns = 0;
	t->slice_budget_ns = (uint64_t)slice * 1000u;
	t->sliced_as_recorded = false;
	/* Its CPU time counts from here, not from the engine's first look
	 * at it: on a busy machine that look can come tens of milliseconds
	 * late, and a computation ended before its budget was seen used. */
	if (!(pol && pol->no_slices) &&
	    (sc_other_can_run(e, t) || sc_alarm_armed(t->proc)))
		t->cpu_at_resume_ns = sc_process_cpu_ns(t->proc->pid);
	t->probe = PROBE_NONE;
	t->released = request == PTRACE_SYSCALL;
	t->released_quick = t->released;
	t->quick_deadline_us = now + QUICK_RETURN_US;
	t->waking_since_us = 0;
	t->wake_given_up = false;
	t->vfork_child = 0;
	t->timed_return = false;
	t->vt_pending = false;
	t->vt_firing = false;
	if (t->released)
		t->release_step = e->step;
	e->running = t;
	if (pol && t->controlled && !t->released && !arm_preemption(e, t) &&
	    pol->no_slices && pol->slice) {
		uint64_t step = e->step ? e->step - 1 : 0;
		uint32_t legacy = pol->slice(pol->ctx, step, t->logical);
		if (legacy == SC_SLICE_AS_RECORDED)
			t->sliced_as_recorded = true;
		else if (legacy) {   /* a trace without states */
			t->probe = PROBE_LEGACY;
			t->slice_budget_ns = (uint64_t)legacy * 1000u;
		}
	}
	sc_resume(t, request);
}

static void resume_free(struct sc_thread *t)
{
	sc_resume(t, PTRACE_CONT);
}

void sc_become_ready(struct sc_engine *e, struct sc_thread *t)
{
	if (t->probe != PROBE_NONE)
		sc_preempt_cancel(t);   /* it reached an event of its own */
	t->state = TH_READY;
	t->probe_after_spin = false;
	t->next.thread = t->logical;
	if (e->running == t)
		e->running = NULL;
}

static bool is_fatal_signal(int sig)
{
	return sig == SIGSEGV || sig == SIGBUS || sig == SIGILL ||
	       sig == SIGFPE || sig == SIGABRT || sig == SIGSYS ||
	       sig == SIGTRAP;
}

/* A fatal signal is about to be delivered: remember where, while the
 * process still exists to be symbolised, and the thread's stack.
 * A fault inside a system library (libc's strlen, pthread_mutex_lock on a
 * freed mutex) is the program's bug at the call: name the innermost frame
 * of the program's own code as well. */
static void note_fault_caller(struct sc_engine *e, struct sc_thread *t)
{
	struct sc_frame frames[SC_STACK_FRAMES];
	size_t n = sc_stack_unwind(t->proc->pid, t->tid, frames,
				   SC_STACK_FRAMES);
	const struct sc_frame *own = sc_stack_own_frame(frames, n);
	size_t used = strlen(e->fault_where);

	e->fault_stack[0] = '\0';
	sc_stack_format(t->logical, frames, n, e->fault_stack,
			sizeof(e->fault_stack));
	if (!own || own == &frames[0])
		return;
	snprintf(e->fault_where + used, sizeof(e->fault_where) - used,
		 ", called from %s", own->text);
}

void sc_note_fault(struct sc_engine *e, struct sc_thread *t, int sig)
{
	siginfo_t si;

	if (!t->controlled || e->fault_seen)
		return;
	e->fault_seen = true;
	e->fault_signal = sig;
	e->fault_thread = t->logical;
	e->fault_pc = t->regs.rip;
	e->fault_addr = 0;
	e->fault_no_addr = false;
	e->fault_sent = false;
	bool memory = sig == SIGSEGV || sig == SIGBUS;
	if ((memory || !is_fatal_signal(sig)) &&
	    ptrace(PTRACE_GETSIGINFO, t->tid, 0, &si) == 0) {
		/* Sent by a process (kill, tgkill, sigqueue), or the
		 * kernel's (a fault, a broken pipe)? */
		e->fault_sent = si.si_code <= 0;
		e->fault_sender = e->fault_sent ? si.si_pid : 0;
		if (memory) {
			e->fault_addr = e->fault_sent ? 0 :
					(uint64_t)(uintptr_t)si.si_addr;
			e->fault_no_addr = si.si_code == SI_KERNEL;
		}
	}
	/* The name of the pc and the stack: one reading of the maps. */
	bool held = sc_maps_hold(t->proc->pid) == 0;
	sc_symbolize(t->proc->pid, t->regs.rip, e->fault_where,
		     sizeof(e->fault_where));
	note_fault_caller(e, t);
	if (held)
		sc_maps_release();
}

/* The breakpoints on the program's own instructions: its memory accesses
 * (mem), the racing ones (race), its atomic read-modify-writes. */
static void plant_sites(struct sc_engine *e, struct sc_process *p)
{
	/* The lookups below all read the maps: once will do.  The code
	 * ranges (code_ranges.c) are taken from the same reading: the
	 * run's first breakpoint would otherwise read the maps again. */
	bool held = sc_maps_hold(p->pid) == 0;

	if (held)
		sc_code_refresh(p);
	p->sites_pending = false;
	if (e->cfg->granularity == SC_GRAN_MEM) {
		if (!e->mem_lifted)
			sc_plant_mem_breakpoints(e, p, SC_SITES_MEMORY);
	} else {
		/* Before the atomics: the race sites are decoded from the
		 * process's text, which must hold no int3 of ours there. */
		if (e->cfg->granularity == SC_GRAN_RACE)
			sc_plant_race_breakpoints(e, p);
		if (e->cfg->atomics)
			sc_plant_mem_breakpoints(e, p, SC_SITES_ATOMIC);
	}
	if (held)
		sc_maps_release();
}

void sc_entry_reached(struct sc_engine *e, struct sc_thread *t)
{
	struct sc_process *p = t->proc;

	bool adopted = e->forked && p == e->main_proc &&
		       sc_fork_server_adopt(e, p) == 0;

	sc_bp_remove(p, p->entry_bp);
	p->entry_bp = 0;
	p->images++;
	sc_random_auxv(e, p);
	if (!adopted && sc_plant_libc_breakpoints(p) >= 0)
		p->libc_ready = true;
	if (!adopted && e->cfg->vclock)
		sc_plant_vclock_breakpoints(p);
	sc_note_jvm(e, p);
	/* Per run, adopted or not: a fork server's image serves runs
	 * without it too.  Only in a process of the program's own code:
	 * the frees of cc1 under make, of an interpreter, are no event of
	 * any race the detector can see (their accesses are not
	 * instrumented), and cc1 made 100000 of them per run. */
	if (e->cfg->free_events && !e->mem_lifted && sc_process_is_own(e, p))
		sc_plant_free_breakpoint(p);
	/* While the process has one thread, none of its accesses can race
	 * and no schedule has a choice to make there: rules 2 plant the
	 * sites at its first thread creation.  A test framework's start-up
	 * (Catch2, GoogleTest: the program's own code) had used the whole
	 * memory event budget of race granularity's pilot before the test's
	 * threads existed, so their races were never learnt. */
	if (e->cfg->mem_sites >= 2)
		p->sites_pending = true;
	else
		plant_sites(e, p);
	/* A program a script started (--follow-forks) is where its events
	 * happen: its map is recorded too, after the script's, so that the
	 * offline tools (analyze, minimize, export: the last map of the
	 * trace) name its code and data, not the shell's at the same
	 * addresses. */
	if (e->cfg->trace && !adopted &&
	    (p == e->main_proc || (p->controlled && p->runs_other_program))) {
		struct sc_module *mods;
		size_t n;
		if (sc_module_map(p->pid, &mods, &n) == 0) {
			sc_trace_process_modules(e->cfg->trace,
						 p == e->main_proc ? 0 :
						 p->first_logical,
						 mods, n, e->step);
			sc_module_map_free(mods, n);
		}
	}
}

/* The largest block a free event describes: the race detector forgets
 * the accesses to each of its words. */
#define FREE_SIZE_MAX (1u << 20)

/* free(3) at its entry (sc_run_config.free_events): an event with the
 * block and its usable size, from glibc's chunk header (the size word
 * before the block; bit 1 marks an mmap'ed chunk, whose header is two
 * words).  Not free(NULL), not glibc freeing for itself (stdio buffers:
 * the program never touched them, and every event costs a stop). */
static void on_free(struct sc_engine *e, struct sc_thread *t,
		    struct sc_breakpoint *bp, uint64_t ret)
{
	uint64_t block = t->regs.rdi, head = 0, size, header;

	if (!block || !ret || sc_code_is_glibc(t->proc, ret - 1) ||
	    sc_mem_read(t->proc, block - 8, &head, sizeof(head)) < 0) {
		if (sc_bp_step_over(e, t) == 0)
			resume_free(t);
		return;
	}
	size = head & ~(uint64_t)7;
	header = (head & 2) ? 16 : 8;
	size = size > header ? size - header : 0;
	t->next = (struct sc_event){ .thread = t->logical, .kind = SC_EV_FREE,
		.access = SC_ACC_WRITE, .object = block, .pc = bp->addr,
		.call_site = ret,
		.size = size < FREE_SIZE_MAX ? (uint32_t)size : FREE_SIZE_MAX };
	sc_become_ready(e, t);
}

/* A call of a libc function with hidden static state (strtok, localtime,
 * getenv: libc_syms.c) from the program: a memory event on that state,
 * located at the call (the instruction before the return address), so
 * that two threads' unordered calls are a race on the lines that made
 * them, and a scheduling point between a thread's strtok(s) and its
 * strtok(NULL) (QA: two threads parsing with strtok failed natively in 7
 * of 500 runs and never under any configuration).  Rules 5. */
static void on_hidden_state(struct sc_engine *e, struct sc_thread *t,
			    struct sc_breakpoint *bp, uint64_t ret)
{
	struct sc_process *p = t->proc;

	/* An interpreter's calls (python3 reading its PYTHON* variables) are
	 * not the program's, as its memory accesses are not. */
	if (!p->own_image)
		p->own_image = sc_process_is_own(e, p) ? 1 : 2;
	if (e->cfg->mem_sites < 5 || !ret || p->own_image != 1) {
		if (sc_bp_step_over(e, t) == 0)
			resume_free(t);
		return;
	}
	t->next = (struct sc_event){ .thread = t->logical, .kind = bp->kind,
		.access = bp->access, .size = 1, .object = bp->hidden_state,
		.pc = ret - 1, .call_site = ret };
	sc_become_ready(e, t);
}

static void on_breakpoint(struct sc_engine *e, struct sc_thread *t,
			  struct sc_breakpoint *bp)
{
	t->regs.rip = bp->addr;
	t->regs_dirty = true;
	if (t->controlled && sc_preempt_on_breakpoint(e, t, bp->addr))
		return;
	if (bp->addr == t->proc->entry_bp && t->controlled) {
		if (e->park_at_entry && t->proc == e->main_proc) {
			sc_park_at_entry(e, t);
			return;
		}
		sc_entry_reached(e, t);
		resume_free(t);
		return;
	}
	if (t->controlled && sc_vclock_breakpoint(e, t, bp))
		return;
	if (!t->controlled || bp->kind == SC_EV_NONE) {
		if (sc_bp_step_over(e, t) == 0)
			resume_free(t);
		return;
	}
	t->stop = STOP_BREAKPOINT;
	if (bp->mem) {
		t->next = (struct sc_event){ .thread = t->logical,
			.kind = bp->kind, .access = bp->access,
			.size = bp->mem->size, .pc = bp->addr,
			.object = sc_mem_effective_address(bp->mem, &t->regs,
							   bp->addr) };
		sc_watch_escape(e, t, t->next.object, bp->mem->size);
		sc_mem_spin_mark(t);
		sc_become_ready(e, t);
		return;
	}
	/* At the entry, [rsp] is the caller's return address. */
	uint64_t ret = 0;
	sc_mem_read(t->proc, t->regs.rsp, &ret, sizeof(ret));
	if (bp->kind == SC_EV_FREE) {
		on_free(e, t, bp, ret);
		return;
	}
	/* glibc locking for itself (the dynamic loader's lock taken in
	 * pthread_create, the locale lock of printf): not the program's
	 * synchronisation, and each such event would be one more point
	 * where another thread may run, diluting the ones that matter.
	 * Contention still ends in a futex wait, which is modelled.  Thread
	 * creation and joins stay events wherever they are called from. */
	if (e->cfg->skip_glibc_sync && bp->kind != SC_EV_LIB_CREATE &&
	    bp->kind != SC_EV_LIB_JOIN && ret &&
	    sc_code_is_glibc(t->proc, ret - 1)) {
		if (sc_bp_step_over(e, t) == 0)
			resume_free(t);
		return;
	}
	if (bp->hidden_state) {
		on_hidden_state(e, t, bp, ret);
		return;
	}
	t->next = (struct sc_event){ .thread = t->logical, .kind = bp->kind,
		.access = bp->access, .object = t->regs.rdi, .pc = bp->addr,
		.call_site = ret };
	t->last_call_kind = bp->kind;
	t->last_call_object = t->regs.rdi;
	t->last_call_site = ret;
	sc_become_ready(e, t);
}

/* Will sig, about to be delivered to t, end its process by its default
 * action (neither handled nor ignored)?  Then the run's report names the
 * thread it came to and where, as for a fault (QA: a worker killed by a
 * SIGUSR1 it did not block said only "killed by SIGUSR1"). */
static bool ends_process(const struct sc_thread *t, int sig)
{
	uint64_t pending, blocked, ignored, caught, bit;

	switch (sig) {
	case SIGCHLD: case SIGCONT: case SIGURG: case SIGWINCH:
	case SIGSTOP: case SIGTSTP: case SIGTTIN: case SIGTTOU:
		return false;   /* ignored or stopping by default */
	default:
		break;
	}
	if (sig < 1 || sig > 64 || !t->controlled || !t->proc ||
	    sc_thread_signal_sets(t->proc->pid, t->tid, &pending, &blocked,
				  &ignored, &caught) < 0)
		return false;
	bit = 1ull << (sig - 1);
	return !(ignored & bit) && !(caught & bit);
}

bool sc_note_if_ends_process(struct sc_engine *e, struct sc_thread *t,
			     int sig)
{
	if (!is_fatal_signal(sig) && !ends_process(t, sig))
		return false;
	sc_regs_fetch(t);
	sc_note_fault(e, t, sig);
	return true;
}

static void on_signal(struct sc_engine *e, struct sc_thread *t, int sig)
{
	if (sig == SIGTRAP && sc_regs_fetch(t) == 0) {
		struct sc_breakpoint *bp = sc_bp_find(t->proc, t->regs.rip - 1);
		if (bp) {
			on_breakpoint(e, t, bp);
			return;
		}
		if (sc_bp_stale_trap(t)) {
			resume_free(t);
			return;
		}
		if (t->controlled && sc_watch_hit(e, t))
			return;
	}
	if (sig == SIGSEGV && sc_vclock_tsc(e, t))
		return;
	if (sc_note_if_ends_process(e, t, sig) && sc_hand_over_at_fault(e, t))
		return;         /* left stopped for the debugger */
	if (sig == SIGTRAP && sc_deliver_own_sigtrap(e, t))
		return;
	t->pending_signal = sig;
	/* A thread released into a syscall (pause, sigsuspend, a read) runs
	 * the handler and comes back from the syscall: its return must stop
	 * (the handler's rt_sigreturn brings the syscall's result back), or
	 * it would run on unseen while the engine waits for it. */
	sc_resume_as_before(t);
}

static void on_new_thread(struct sc_engine *e, struct sc_thread *parent,
			  pid_t tid)
{
	struct sc_thread *c = sc_thread_new(e, tid, parent->proc);
	int status;
	pid_t got;

	parent->spawn_pc = 0;

	if (!c)
		return;
	/* The parent is stopped at its clone; the child has not run. */
	if (parent->proc->sites_pending && parent->controlled)
		plant_sites(e, parent->proc);
	c->clear_child_tid = parent->clone_child_tid;
	/* Wait for the child's initial stop now, so the next scheduling
	 * decision always sees it: the same schedule gives the same view. */
	if (sc_take_deferred(e, tid, &got, &status)) {
		sc_dispatch(e, tid, status);
		return;
	}
	if (c->controlled && waitpid(tid, &status, __WALL) == tid)
		sc_dispatch(e, tid, status);
}

static void on_new_process(struct sc_engine *e, struct sc_thread *parent,
			   pid_t pid)
{
	/* With follow_forks the child's threads are scheduled like the
	 * parent's; otherwise it runs free (but stays traced: the seccomp
	 * filter it inherited would make its traced syscalls fail with ENOSYS
	 * without a tracer). */
	bool follow = e->cfg->follow_forks && parent->controlled;
	struct sc_process *p = sc_process_new(e, pid, follow);
	int status;
	pid_t got;

	parent->spawn_pc = 0;
	/* Its timing is the machine's: same-seed runs and replays of a
	 * program whose threads wait for it (popen) can differ. */
	if (!follow && parent->controlled && !e->attached &&
	    !e->res->notice[0])
		snprintf(e->res->notice, sizeof(e->res->notice),
			 "notice: the program started a child process, which "
			 "ran uncontrolled (its timing is the machine's, so "
			 "runs of one seed and replays may differ); "
			 "--follow-forks schedules it too");

	if (!p)
		return;
	p->syscall_stops = follow && parent->proc->syscall_stops;
	p->parent_pid = parent->proc->pid;
	p->sites_pending = parent->proc->sites_pending;
	/* The child inherited our int3 bytes: keep their original bytes so
	 * that it can step over them. */
	if (parent->proc->nbps) {
		p->bps = malloc(parent->proc->nbps * sizeof(*p->bps));
		if (p->bps) {
			memcpy(p->bps, parent->proc->bps,
			       parent->proc->nbps * sizeof(*p->bps));
			p->nbps = parent->proc->nbps;
			p->free_bp = parent->proc->free_bp;
		}
	}
	if (!sc_thread_new(e, pid, p))
		return;
	if (sc_take_deferred(e, pid, &got, &status))
		sc_dispatch(e, pid, status);
	else if (follow && waitpid(pid, &status, __WALL) == pid)
		sc_dispatch(e, pid, status);   /* same view for the same schedule */
}

/* Do processes a and b run the same executable file?  (A GoogleTest
 * death test re-executes its own binary, whose deaths are expected.) */
static bool same_executable(pid_t a, pid_t b)
{
	char pa[64], pb[64];
	struct stat sa, sb;

	snprintf(pa, sizeof(pa), "/proc/%d/exe", (int)a);
	snprintf(pb, sizeof(pb), "/proc/%d/exe", (int)b);
	if (stat(pa, &sa) < 0 || stat(pb, &sb) < 0)
		return false;
	return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

static void on_exec(struct sc_engine *e, struct sc_thread *t)
{
	struct sc_process *p = t->proc;
	unsigned long former = 0;

	/* A non-leader thread that execs takes over the leader's tid; every
	 * other thread of the process is gone without a death report. */
	ptrace(PTRACE_GETEVENTMSG, t->tid, 0, &former);
	if ((pid_t)former != t->tid) {
		struct sc_thread *execer = sc_thread_by_tid(e, (pid_t)former);
		if (execer) {
			execer->tid = t->tid;
			sc_thread_remove(e, t);
			t = execer;
		}
	}
	/* Its vfork parent wakes now (schedule.c waits for it). */
	p->vfork_pending = false;
	for (size_t i = 0; i < e->nthreads;) {
		struct sc_thread *o = e->threads[i];
		if (o->proc == p && o != t)
			sc_thread_remove(e, o);
		else
			i++;
	}
	/* The kernel killed the other threads for the exec, and their exit
	 * events took the process for exiting (WS_EXIT_EVENT): it goes on,
	 * with the new program, whose threads are to be scheduled. */
	if (p->exiting) {
		p->exiting = false;
		p->reap_wait_since_us = 0;
		if (p == e->main_proc)
			e->exiting = false;
		if (t->state == TH_EXITING)
			t->state = e->running == t ? TH_RUNNING : TH_IN_KERNEL;
	}
	sc_watch_forget(t);
	p->own_image = 0;
	sc_bp_clear(p);
	sc_mem_open(p);
	if (p != e->main_proc)
		p->runs_other_program = !same_executable(p->pid, e->main_pid);
	if (p->controlled) {
		uint64_t entry = sc_auxv_entry(p->pid);
		if (entry && sc_bp_add(p, entry, SC_EV_NONE, SC_ACC_NONE,
				       "entry") == 0)
			p->entry_bp = entry;
	}
	resume_free(t);
}

/* The THREAD_EXIT event of a thread that called exit, with the waiter its
 * clear_child_tid wake releases. */
static void emit_thread_exit(struct sc_engine *e, struct sc_thread *t)
{
	struct sc_event ev = t->next;

	ev.step = t->exit_step;
	e->nwoken = 0;
	if (!t->proc->exiting)
		sc_futex_wake_clear_tid(e, t);
	sc_emit_event(e, &ev);
	t->exit_record_pending = false;
	t->exit_recorded = true;
}

/* Does thread o, asleep in wait4 or waitid, wait for the child pid?
 * (Any child, its process group, or that pid; not a WNOHANG poll, which
 * is back by itself.) */
static bool waits_for_child(const struct sc_thread *o, pid_t pid)
{
	long nr = (long)o->regs.orig_rax;

	if (nr == SYS_wait4) {
		pid_t want = (pid_t)o->regs.rdi;
		return !((int)o->regs.rdx & WNOHANG) &&
		       (want <= 0 || want == pid);
	}
	if (nr == SYS_waitid) {
		int idtype = (int)o->regs.rdi;
		pid_t id = (pid_t)o->regs.rsi;
		return !((int)o->regs.r10 & WNOHANG) &&
		       (idtype == P_ALL || idtype == P_PGID ||
			(idtype == P_PID && id == pid));
	}
	return false;
}

/* A child process of ours is reaped (its death just seen): the kernel
 * tells its parent only now, so a parent asleep in wait4 for it wakes
 * now, and the next decision waits for it to be back, as for a thread a
 * signal woke.  Looking at its state was not enough: woken, it was seen
 * 'R' and then 'S' again in wait4 before it returned, and the decision
 * went ahead without it (QA: same-seed runs of make -j2 differed just
 * after an assembler's exit, 2 of 8 sessions under load). */
static void await_waiting_parent(struct sc_engine *e, pid_t parent, pid_t pid)
{
	for (size_t i = 0; parent > 0 && i < e->nthreads; i++) {
		struct sc_thread *o = e->threads[i];
		if (o->proc->pid != parent || !o->controlled ||
		    o->state != TH_IN_KERNEL || !waits_for_child(o, pid))
			continue;
		e->await_tid = o->tid;
		e->await_deadline_us = sc_now_us() + AWAIT_WAKE_US;
		return;
	}
}

static void on_death(struct sc_engine *e, struct sc_thread *t, int status)
{
	struct sc_process *p = t->proc;

	if (t->probe_bp_planted && !p->exiting)
		sc_preempt_cancel(t);
	if (t->controlled && t->exit_record_pending) {
		emit_thread_exit(e, t);
	} else if (t->controlled && !p->exiting && !t->exit_recorded) {
		sc_futex_wake_clear_tid(e, t);
	}
	bool leader = t->tid == p->pid;
	if (leader && p->controlled && p != e->main_proc)
		await_waiting_parent(e, p->parent_pid, p->pid);
	sc_thread_remove(e, t);
	if (leader && p == e->main_proc) {
		e->main_done = true;
		e->main_status = status;
	}
	/* A test binary that a script started crashed: that is the bug,
	 * whatever the script makes of it (`./test; echo $?`).  A child
	 * of the program's own (fork without exec, a death test) may be
	 * meant to die. */
	if (leader && p != e->main_proc && p->controlled &&
	    p->runs_other_program && WIFSIGNALED(status) &&
	    is_fatal_signal(WTERMSIG(status)) && !e->child_crash_status)
		e->child_crash_status = status;
	if (leader && p != e->main_proc && !sc_process_has_threads(e, p))
		sc_process_remove(e, p);
}

/* The entry stop of a restarted syscall, or the exit of one the kernel
 * will restart (a stale interrupt broke its sleep): not its return. */
static bool not_a_return(struct sc_thread *t)
{
	struct __ptrace_syscall_info info;

	if (ptrace(PTRACE_GET_SYSCALL_INFO, t->tid, sizeof(info), &info) <= 0)
		return false;
	if (info.op == PTRACE_SYSCALL_INFO_ENTRY)
		return true;
	return info.op == PTRACE_SYSCALL_INFO_EXIT && info.exit.is_error &&
	       info.exit.rval <= -512 && info.exit.rval >= -516;
}

/* Does thread target, in the kernel since its release, wake up for sig?
 * Unless the signal is blocked and it is not waiting for signals, it
 * does: a delivery stop, or its syscall returns. */
static bool signal_wakes(const struct sc_thread *target, int sig)
{
	long nr = (long)target->regs.orig_rax;
	uint64_t pending, blocked;

	if (sig <= 0 || sig > 64)
		return false;
	if (nr == SYS_rt_sigtimedwait || nr == SYS_rt_sigsuspend ||
	    nr == SYS_pause)
		return true;
	if (sc_thread_signals(target->proc->pid, target->tid, &pending,
			      &blocked) < 0)
		return false;
	return !(blocked & (1ULL << (sig - 1)));
}

bool sc_sends_signal(const struct sc_thread *t, pid_t *tid, int *sig)
{
	long nr = (long)t->regs.orig_rax;

	if (nr == SYS_tgkill) {
		*tid = (pid_t)t->regs.rsi;
		*sig = (int)t->regs.rdx;
	} else if (nr == SYS_tkill) {
		*tid = (pid_t)t->regs.rdi;
		*sig = (int)t->regs.rsi;
	} else {
		return false;
	}
	return true;
}

/* t's tgkill/tkill is done: when it woke a thread of ours that waits in
 * the kernel, have the next decision wait for that thread's return (the
 * same view for the same schedule, whatever the load). */
static void note_signal_sent(struct sc_engine *e, const struct sc_thread *t)
{
	pid_t tid;
	int sig;

	if (!sc_sends_signal(t, &tid, &sig))
		return;
	sc_signal_sent_to(e, sc_thread_by_tid(e, tid), sig);
}

void sc_signal_sent_to(struct sc_engine *e, struct sc_thread *target, int sig)
{
	if (!target || !target->controlled || !signal_wakes(target, sig))
		return;
	if (target->state == TH_BLOCKED) {
		sc_futex_interrupt(target);
		return;
	}
	if (target->state != TH_IN_KERNEL) {
		target->signal_sent = true;
		return;
	}
	e->await_tid = target->tid;
	e->await_deadline_us = sc_now_us() + AWAIT_WAKE_US;
}

static void on_syscall_exit(struct sc_engine *e, struct sc_thread *t)
{
	t->stop = STOP_SYSCALL_EXIT;
	sc_kernel_deadline_restore(t);
	if (!t->controlled || !t->released) {
		/* attached: the exit of a syscall that was not released */
		resume_free(t);
		return;
	}
	if (t->vt_firing) {
		/* Interrupted for its virtual timeout (a TIMEOUT event):
		 * it returns what the timeout returns, and runs on. */
		sc_regs_fetch(t);
		sc_syscall_time_out(t);
		t->vt_firing = false;
		t->vt_pending = false;
		t->released = false;
		t->released_quick = false;
		resume_free(t);
		return;
	}
	if (not_a_return(t)) {
		sc_resume(t, PTRACE_SYSCALL);
		return;
	}
	t->released = false;
	t->vt_pending = false;
	/* t->regs still hold the entry's registers: not fetched since. */
	note_signal_sent(e, t);
	bool timed = t->release_timed;
	t->release_timed = false;
	if (timed) {
		/* Slept out its timeout: an event whenever it came back (a
		 * busy machine may look only after the end of a short one).
		 * The registers fetched here serve the event below too. */
		sc_regs_fetch(t);
		if (sc_syscall_timed_out(&t->regs)) {
			/* It returns when its time came (virtual time).
			 * Kept timed only when it is the only live thread
			 * (or attached, without a virtual clock): no other
			 * thread's event can fall in between. */
			sc_vclock_advance_to(e, t->vt_due_vns);
			t->released_quick = false;
			t->next = (struct sc_event){ .thread = t->logical,
				.kind = SC_EV_SYSCALL_RETURN,
				.pc = t->regs.rip };
			t->timed_return = true;
			sc_become_ready(e, t);
			return;
		}
	}
	if (e->running == t && t->released_quick) {
		/* Came back within the window: not a scheduling point.  It
		 * runs on as from the event that released it, which armed no
		 * preemption then (QA: a computation right after a quick
		 * syscall was never stopped at its recorded preemption, and
		 * the replay hung there). */
		t->released_quick = false;
		if (t->controlled)
			arm_preemption(e, t);
		resume_free(t);
		return;
	}
	if (!timed)
		sc_regs_fetch(t);
	t->next = (struct sc_event){ .thread = t->logical,
		.kind = SC_EV_SYSCALL_RETURN, .pc = t->regs.rip };
	sc_become_ready(e, t);
}

static void on_event_stop(struct sc_engine *e, struct sc_thread *t)
{
	if (!t->controlled) {
		resume_free(t);
		return;
	}
	if (t->state == TH_NEW) {
		t->stop = STOP_EVENT;
		sc_regs_fetch(t);
		t->next = (struct sc_event){ .thread = t->logical,
			.kind = SC_EV_THREAD_START, .pc = t->regs.rip };
		sc_become_ready(e, t);
		return;
	}
	if (sc_preempt_on_interrupt(e, t))
		return;
	sc_resume_as_before(t);
}

/* A clone or fork the kernel restarts (sc_thread.spawn_pc). */
static bool restarted_spawn(const struct sc_thread *t)
{
	long nr = (long)t->regs.orig_rax;

	return t->spawn_pc && t->regs.rip == t->spawn_pc &&
	       (nr == SYS_clone || nr == SYS_clone3 || nr == SYS_fork ||
		nr == SYS_vfork);
}

static void on_seccomp(struct sc_engine *e, struct sc_thread *t)
{
	if (!t->controlled || t->proc->exiting) {
		resume_free(t);
		return;
	}
	if (t->released) {
		/* The kernel restarts a released syscall that an interrupt
		 * broke: still the same call, not a new event. */
		sc_resume(t, PTRACE_SYSCALL);
		return;
	}
	sc_regs_fetch(t);
	if (restarted_spawn(t)) {
		sc_resume(t, PTRACE_CONT);      /* still the event it ran */
		return;
	}
	if (sc_random_syscall(e, t) || sc_affinity_syscall(e, t) ||
	    sc_alarm_syscall(e, t))
		return;   /* completed here: not a scheduling point */
	t->stop = STOP_SECCOMP;
	sc_syscall_event(e, t);
	sc_become_ready(e, t);
}

static bool trapped_syscall(long nr)
{
	const int *list;
	int n = sc_seccomp_trapped_syscalls(&list);

	for (int i = 0; i < n; i++)
		if (list[i] == nr)
			return true;
	return false;
}

/* Attached processes: a syscall stop is an entry (a scheduling point when
 * the syscall is one the seccomp filter would trap) or an exit. */
static void on_syscall_stop(struct sc_engine *e, struct sc_thread *t)
{
	struct __ptrace_syscall_info info;

	if (!t->proc->syscall_stops || !t->controlled ||
	    ptrace(PTRACE_GET_SYSCALL_INFO, t->tid, sizeof(info), &info) <= 0 ||
	    info.op != PTRACE_SYSCALL_INFO_ENTRY) {
		on_syscall_exit(e, t);
		return;
	}
	if (!trapped_syscall((long)info.entry.nr) || t->proc->exiting) {
		resume_free(t);
		return;
	}
	on_seccomp(e, t);
}

void sc_dispatch(struct sc_engine *e, pid_t tid, int status)
{
	struct sc_thread *t = sc_thread_by_tid(e, tid);
	unsigned long msg = 0;

	if (!t) {
		/* A new tracee whose parent's clone/fork event has not been
		 * seen yet: keep the status until it is registered. */
		sc_engine_defer_status(e, tid, status);
		return;
	}
	t->own_syscall_until_us = 0;
	switch (sc_classify_status(status)) {
	case WS_EXITED:
	case WS_KILLED:
		on_death(e, t, status);
		break;
	case WS_SECCOMP:
		on_seccomp(e, t);
		break;
	case WS_SYSCALL:
		on_syscall_stop(e, t);
		break;
	case WS_CLONE:
		ptrace(PTRACE_GETEVENTMSG, tid, 0, &msg);
		on_new_thread(e, t, (pid_t)msg);
		resume_free(t);
		break;
	case WS_FORK:
		ptrace(PTRACE_GETEVENTMSG, tid, 0, &msg);
		on_new_process(e, t, (pid_t)msg);
		if (((unsigned)status >> 16) == PTRACE_EVENT_VFORK &&
		    e->cfg->follow_forks && e->running == t) {
			/* The parent sleeps until its vfork child execs or
			 * exits, and the child is ours to schedule: the parent
			 * is in the kernel until its syscall-exit stop. */
			sc_start_running(e, t, PTRACE_SYSCALL);
			t->released_quick = false;
			t->state = TH_IN_KERNEL;
			t->vfork_child = (pid_t)msg;
			struct sc_process *child = sc_process_of_pid(e, (pid_t)msg);
			if (child)
				child->vfork_pending = true;
			e->running = NULL;
			break;
		}
		resume_free(t);
		break;
	case WS_EXEC:
		on_exec(e, t);
		break;
	case WS_EXIT_EVENT:
		/* About to die.  Unless it is a planned thread exit, the whole
		 * process is going (exit_group, fatal signal, SIGKILL): stop
		 * scheduling its threads. */
		if (t->controlled && !t->exit_record_pending)
			sc_process_exiting(e, t->proc);
		/* A vfork child's exit wakes its parent as its exec would. */
		t->proc->vfork_pending = false;
		if (t->controlled && t->exit_record_pending &&
		    t->tid == t->proc->pid && sc_process_has_other_threads(e, t)) {
			/* main's pthread_exit: a leader is reaped only with
			 * its whole process, so it is done now (its exit
			 * already woke its joiners); the others run on. */
			emit_thread_exit(e, t);
			t->state = TH_EXITING;
			if (e->running == t)
				e->running = NULL;
		}
		if (t->state != TH_RUNNING && t->controlled)
			t->state = TH_EXITING;
		resume_free(t);
		break;
	case WS_EVENT_STOP:
		on_event_stop(e, t);
		break;
	case WS_SIGNAL:
		on_signal(e, t, WSTOPSIG(status));
		break;
	case WS_GROUP_STOP:
	case WS_VFORK_DONE:
	case WS_UNKNOWN:
		resume_free(t);
		break;
	}
}

bool sc_other_can_run(struct sc_engine *e, const struct sc_thread *t)
{
	for (size_t i = 0; i < e->nthreads; i++) {
		const struct sc_thread *o = e->threads[i];
		if (o == t || !o->controlled || o->proc->exiting)
			continue;
		/* A timed wait, or a poll whose timeout is virtual, can
		 * time out once the running thread stops: it must be
		 * looked at (QA: main spinning until a poll(100 ms) of
		 * another thread returned ran forever). */
		if ((o->state == TH_READY && !o->spin_wait) ||
		    (o->state == TH_BLOCKED && o->wait_timed) ||
		    (o->state == TH_IN_KERNEL && o->vt_pending &&
		     !o->vt_firing))
			return true;
	}
	return false;
}

int sc_wait_any(struct sc_engine *e, uint64_t timeout_us)
{
	pid_t tid;
	int status;

	if (sc_take_deferred(e, 0, &tid, &status)) {
		sc_dispatch(e, tid, status);
		return 1;
	}
	for (;;) {
		tid = waitpid(-1, &status, __WALL | WNOHANG);
		if (tid > 0) {
			sc_dispatch(e, tid, status);
			return 1;
		}
		if (tid < 0 && errno == ECHILD) {
			e->main_done = true;   /* nothing left to wait for */
			return 1;
		}
		if (timeout_us == 0)
			return 0;
		sigset_t chld;
		sigemptyset(&chld);
		sigaddset(&chld, SIGCHLD);
		struct timespec ts = { (time_t)(timeout_us / 1000000),
				       (long)(timeout_us % 1000000) * 1000 };
		if (sigtimedwait(&chld, NULL, &ts) < 0 && errno == EAGAIN)
			return 0;
		/* SIGCHLD (or EINTR): poll waitpid again, once more only if
		 * the timeout has not passed; keep it simple: loop. */
		timeout_us = timeout_us > 50 ? timeout_us / 2 : 0;
	}
}
