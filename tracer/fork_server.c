/* fork_server.c - start runs by forking a program stopped at its entry.
 *
 * Most of a short run's fixed cost is getting to the program's first
 * instruction: fork of the supervisor, seccomp install, execve under
 * ptrace and the dynamic loader (about 1.5 ms of a 4 ms run).  A job
 * pays it once: the server is the program run under control up to its
 * entry point and parked there (a ptrace stop, no breakpoint left in its
 * memory but "syscall; int3" at the entry).  Each run then injects
 * clone(CLONE_PARENT | SIGCHLD) into the server (AFL's fork server, done
 * from outside): the copy is the supervisor's child, traced with the
 * same options and filter, with the addresses, environment and stdio of
 * the server.  What glibc's fork() does for its child the clone does too
 * (CLONE_CHILD_SETTID at the thread's tid address: pthread_kill, raise
 * and pthread_getaffinity_np use that cached tid) or an injected call
 * does (set_robust_list), as setsid() and PR_SET_PDEATHSIG, which the
 * exec path's child does: the three by one stub the server keeps after
 * its patched entry (one stop per copy, not three); then the entry's
 * bytes and registers are put back, and the engine carries on as at the
 * entry breakpoint of an exec'd run.
 *
 * The events an exec'd run has before its entry (the execve, the
 * loader's reads) are the same in every run: the server records them as
 * its policy saw them, and each run hands them to its own policy and
 * trace (sc_fork_server_prelude), so that a run's trace, its steps and
 * its strategy's decisions are those of the exec'd run: traces recorded
 * either way replay either way.
 *
 * A program the server cannot stand for (one that drew randomness,
 * started threads or processes or kept a file open before its entry,
 * as a library's constructor may) gets no server: the caller runs it by
 * exec.  A constructor that reads the clock runs once, in the server: its
 * copies all see that time (an exec'd run would see the real one, which
 * no replay gives back either).
 */
#include <dirent.h>
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "internal.h"

/* "syscall; int3" and the longest setup stub (setup_stub). */
#define INJECT_LEN 3
#define PATCH_MAX 64

/* One event of the server's start: as the policy was asked to pick it,
 * and as it was emitted. */
struct prelude_event {
	struct sc_event offered, emitted;
	bool released;
};

struct sc_fork_server {
	/* What glibc's fork() sets up in its child and a raw clone does
	 * not: the thread's cached tid (set_tid_address(2): its address,
	 * which CLONE_CHILD_SETTID fills and CLONE_CHILD_CLEARTID clears)
	 * and its robust futex list (set_robust_list(2)).  0: none. */
	uint64_t tid_address, robust_head, robust_len;
	/* The program's bytes at the entry, which the server has patched:
	 * "syscall; int3" (injections), then, when it fits in the entry's
	 * code mapping, the copies' setup stub (stub_at..stub_end). */
	uint8_t entry_bytes[PATCH_MAX];
	size_t patch_len;
	uint64_t stub_at, stub_end;     /* 0: no stub, one call at a time */
	struct prelude_event *prelude;
	size_t nprelude;
	/* Its process, stopped at the entry: pid, registers, breakpoints
	 * and modules. */
	struct sc_parked parked;
	bool broken;
	char why[256];
};

/* The recording policy of the server's start. */
struct recorder {
	struct prelude_event *ev;
	size_t n, cap;
	bool bad;
	char why[200];
};

static int rec_pick(void *ctx, const struct sc_sched_view *view)
{
	struct recorder *r = ctx;

	if (view->nenabled != 1 && !r->bad) {
		r->bad = true;
		snprintf(r->why, sizeof(r->why),
			 "%zu threads could run before the entry point",
			 view->nenabled);
	}
	if (r->n == r->cap) {
		size_t cap = r->cap ? 2 * r->cap : 16;
		struct prelude_event *ev = realloc(r->ev, cap * sizeof(*ev));
		if (!ev) {
			r->bad = true;
			snprintf(r->why, sizeof(r->why), "out of memory");
			return (int)view->enabled[0];
		}
		r->ev = ev;
		r->cap = cap;
	}
	struct prelude_event *p = &r->ev[r->n++];
	memset(p, 0, sizeof(*p));
	p->offered = view->threads[view->enabled[0]].next;
	p->offered.woken = NULL;
	p->offered.nwoken = 0;
	return (int)view->enabled[0];
}

static void rec_executed(void *ctx, const struct sc_event *ev)
{
	struct recorder *r = ctx;

	if (!r->n || r->bad)
		return;
	struct prelude_event *p = &r->ev[r->n - 1];
	p->emitted = *ev;
	p->emitted.woken = NULL;
	p->emitted.nwoken = 0;
	if (ev->nwoken || (ev->kind != SC_EV_EXEC &&
			   ev->kind != SC_EV_SYSCALL_BLOCKING)) {
		r->bad = true;
		snprintf(r->why, sizeof(r->why), "the program had a %s event "
			 "before its entry point", sc_event_kind_name(ev->kind));
	}
}

static int rec_release(void *ctx, const struct sc_event *ev)
{
	struct recorder *r = ctx;

	(void)ev;
	if (r->n)
		r->ev[r->n - 1].released = true;
	return SC_RELEASE_AWAIT;
}

/* Kill pid and reap it.  A tracee killed in a stop first reports its
 * PTRACE_EVENT_EXIT stop (TRACEEXIT): continue it until it is gone, or it
 * outlives us as a zombie of init's. */
static void kill_and_reap(pid_t pid)
{
	int status;

	kill(pid, SIGKILL);
	/* Its exit stop (PTRACE_EVENT_EXIT) may have been reported already
	 * (to an injection's wait): waitpid would not see it again, and
	 * SIGKILL does not end that stop.  Continue it; harmless (ESRCH)
	 * when it is not stopped. */
	ptrace(PTRACE_CONT, pid, 0, 0);
	for (;;) {
		pid_t got = waitpid(pid, &status, __WALL);
		if (got < 0 && errno == EINTR)
			continue;
		if (got != pid || WIFEXITED(status) || WIFSIGNALED(status))
			return;
		ptrace(PTRACE_CONT, pid, 0, 0);
	}
}

/* Wait for a stop of pid (only pid); -1 when it died or waitpid failed. */
static int wait_stop(pid_t pid, int *status)
{
	for (;;) {
		pid_t got = waitpid(pid, status, __WALL);
		if (got < 0 && errno == EINTR)
			continue;
		if (got != pid || !WIFSTOPPED(*status))
			return -1;
		return 0;
	}
}

static bool is_seccomp_stop(int status)
{
	return (status >> 8) == (SIGTRAP | (PTRACE_EVENT_SECCOMP << 8));
}

static bool is_trap(int status)
{
	return (status >> 8) == SIGTRAP;
}

/* Run pid from registers *r until the int3 that leaves it at rip
 * expect, passing the filter's stops and a fork's; *r then holds the
 * registers there.  -1 (errno EIO when it stopped elsewhere) otherwise. */
static int run_to_trap(pid_t pid, struct user_regs_struct *r,
		       uint64_t expect, pid_t *forked)
{
	int status;

	if (ptrace(PTRACE_SETREGS, pid, 0, r) < 0 ||
	    ptrace(PTRACE_CONT, pid, 0, 0) < 0)
		return -1;
	for (;;) {
		if (wait_stop(pid, &status) < 0)
			break;
		if (is_seccomp_stop(status)) {
			if (ptrace(PTRACE_CONT, pid, 0, 0) < 0)
				return -1;
			continue;
		}
		if ((status >> 8) == (SIGTRAP | (PTRACE_EVENT_FORK << 8))) {
			unsigned long child = 0;
			ptrace(PTRACE_GETEVENTMSG, pid, 0, &child);
			if (forked)
				*forked = (pid_t)child;
			if (ptrace(PTRACE_CONT, pid, 0, 0) < 0)
				return -1;
			continue;
		}
		if (!is_trap(status))
			break;
		if (ptrace(PTRACE_GETREGS, pid, 0, r) < 0)
			return -1;
		if (r->rip != expect)
			break;
		return 0;
	}
	errno = EIO;
	return -1;
}

/* Run one syscall in pid, stopped with its registers anywhere: from the
 * entry's "syscall; int3" with regs plus the call's number and arguments
 * (a[0..3]: rdi, rsi, rdx, r10).  Returns the syscall's result, or -1
 * with errno EIO when pid did not stop at the int3. */
static long inject(const struct sc_fork_server *s, pid_t pid, long nr,
		   const uint64_t a[4], pid_t *forked)
{
	struct user_regs_struct r = s->parked.regs;

	r.rax = (unsigned long long)nr;
	r.orig_rax = (unsigned long long)-1;
	r.rdi = a[0];
	r.rsi = a[1];
	r.rdx = a[2];
	r.r10 = a[3];
	r.r8 = r.r9 = 0;
	r.rip = s->parked.entry;
	if (run_to_trap(pid, &r, s->parked.entry + INJECT_LEN, forked) < 0)
		return -1;
	return (long)r.rax;
}

/* Set the copy up as the exec path's child is (its own session, killed
 * with the supervisor) and as glibc's fork() sets its child's robust
 * list: by the stub, or by three injected calls. */
static int copy_setup(const struct sc_fork_server *s, pid_t child)
{
	if (s->stub_at) {
		struct user_regs_struct r = s->parked.regs;

		r.orig_rax = (unsigned long long)-1;
		r.rip = s->stub_at;
		if (run_to_trap(child, &r, s->stub_end, NULL) < 0)
			return -1;
		if ((pid_t)r.r12 != child || r.r13 != 0 || r.rax != 0) {
			errno = EIO;
			return -1;
		}
		return 0;
	}
	uint64_t none[4] = { 0 };
	uint64_t deathsig[4] = { PR_SET_PDEATHSIG, SIGKILL, 0, 0 };
	uint64_t robust[4] = { s->robust_head, s->robust_len, 0, 0 };
	if (inject(s, child, SYS_setsid, none, NULL) != child ||
	    inject(s, child, SYS_prctl, deathsig, NULL) != 0 ||
	    (s->robust_head &&
	     inject(s, child, SYS_set_robust_list, robust, NULL) != 0))
		return -1;
	return 0;
}

/* Copy len bytes between bytes and pid's memory at addr, a word at a
 * time (PTRACE_PEEKDATA and POKEDATA: the text is read-only to
 * process_vm_writev); the server only.  into_pid: write them there,
 * keeping the rest of the last word. */
static int copy_words(pid_t pid, uint64_t addr, uint8_t *bytes, size_t len,
		      bool into_pid)
{
	for (size_t done = 0; done < len; done += 8) {
		uint64_t w;
		size_t n = len - done < 8 ? len - done : 8;

		errno = 0;
		w = (uint64_t)ptrace(PTRACE_PEEKDATA, pid, (void *)(addr + done), 0);
		if (errno)
			return -1;
		if (!into_pid) {
			memcpy(bytes + done, &w, n);
			continue;
		}
		memcpy(&w, bytes + done, n);
		if (ptrace(PTRACE_POKEDATA, pid, (void *)(addr + done), (void *)w) < 0)
			return -1;
	}
	return 0;
}

/* The code a copy runs before the program, as the exec path's child
 * does: setsid(), prctl(PR_SET_PDEATHSIG, SIGKILL) and, as glibc's
 * fork(), set_robust_list(head, len); then int3.  The results stay in
 * r12, r13 and rax.  One stop for the three instead of one each.
 * Returns its length. */
static size_t setup_stub(const struct sc_fork_server *s, uint8_t *code)
{
	size_t n = 0;

#define EMIT(...) do { const uint8_t b_[] = { __VA_ARGS__ }; \
		memcpy(code + n, b_, sizeof(b_)); n += sizeof(b_); } while (0)
#define IMM32(v) (uint8_t)(v), (uint8_t)((v) >> 8), (uint8_t)((v) >> 16), \
		(uint8_t)((v) >> 24)
	EMIT(0xb8, IMM32(SYS_setsid));                  /* mov eax, nr */
	EMIT(0x0f, 0x05);                               /* syscall */
	EMIT(0x49, 0x89, 0xc4);                         /* mov r12, rax */
	EMIT(0xb8, IMM32(SYS_prctl));
	EMIT(0xbf, IMM32(PR_SET_PDEATHSIG));            /* mov edi, imm */
	EMIT(0xbe, IMM32(SIGKILL));                     /* mov esi, imm */
	EMIT(0x0f, 0x05);
	EMIT(0x49, 0x89, 0xc5);                         /* mov r13, rax */
	if (s->robust_head) {
		uint64_t h = s->robust_head;
		EMIT(0xb8, IMM32(SYS_set_robust_list));
		EMIT(0x48, 0xbf, IMM32(h), IMM32(h >> 32)); /* movabs rdi */
		EMIT(0xbe, IMM32(s->robust_len));
		EMIT(0x0f, 0x05);
	} else {
		EMIT(0x31, 0xc0);                       /* xor eax, eax */
	}
	EMIT(0xcc);                                     /* int3 */
#undef IMM32
#undef EMIT
	return n;
}

/* Patch the server's entry: "syscall; int3", and the setup stub after
 * it when the entry's code mapping holds it (else copies are set up one
 * injected call at a time).  Its own bytes are kept for the copies. */
static int patch_entry(struct sc_fork_server *s)
{
	uint8_t code[PATCH_MAX] = { 0x0f, 0x05, 0xcc };
	size_t len = INJECT_LEN + setup_stub(s, code + INJECT_LEN);
	uint64_t entry = s->parked.entry;
	bool fits = false;

	for (size_t i = 0; i < s->parked.ncode; i++)
		if (entry >= s->parked.code[i].start &&
		    entry + len <= s->parked.code[i].end)
			fits = true;
	if (!fits || s->robust_len > UINT32_MAX)
		len = INJECT_LEN;
	if (copy_words(s->parked.pid, entry, s->entry_bytes, len, false) < 0 ||
	    copy_words(s->parked.pid, entry, code, len, true) < 0)
		return -1;
	s->patch_len = len;
	if (len > INJECT_LEN) {
		s->stub_at = entry + INJECT_LEN;
		s->stub_end = entry + len;
	}
	return 0;
}

int sc_fork_server_restore(const struct sc_fork_server *s,
			   struct sc_process *p)
{
	return sc_mem_write(p, s->parked.entry, s->entry_bytes, s->patch_len);
}

/* The server's tid address (asked of it: prctl PR_GET_TID_ADDRESS writes
 * it to a word of its stack below the red zone, put back after). */
static int thread_setup(struct sc_fork_server *s)
{
	uint64_t scratch = (s->parked.regs.rsp - 1024) & ~(uint64_t)7, saved, addr;
	uint64_t args[4] = { PR_GET_TID_ADDRESS, scratch, 0, 0 };

	errno = 0;
	saved = (uint64_t)ptrace(PTRACE_PEEKDATA, s->parked.pid, (void *)scratch, 0);
	if (errno || inject(s, s->parked.pid, SYS_prctl, args, NULL) != 0)
		return -1;
	errno = 0;
	addr = (uint64_t)ptrace(PTRACE_PEEKDATA, s->parked.pid, (void *)scratch, 0);
	if (errno || ptrace(PTRACE_POKEDATA, s->parked.pid, (void *)scratch,
			    (void *)saved) < 0)
		return -1;
	s->tid_address = addr;
	return 0;
}

/* The server's robust futex list, asked of the kernel. */
static void robust_list(struct sc_fork_server *s)
{
	size_t len = 0;
	void *head = NULL;

	if (syscall(SYS_get_robust_list, s->parked.pid, &head, &len) == 0) {
		s->robust_head = (uint64_t)(uintptr_t)head;
		s->robust_len = len;
	}
}

/* What a parked process's record holds besides the process. */
static void parked_free(struct sc_parked *p)
{
	free(p->bps);
	free(p->code);
	p->code = NULL;
	p->ncode = 0;
	if (p->mods)
		sc_module_map_free(p->mods, p->nmods);
	p->bps = NULL;
	p->nbps = 0;
	p->mods = NULL;
	p->nmods = 0;
}

struct sc_fork_server *sc_fork_server_start(const struct sc_run_config *cfg,
					    char *why, size_t len)
{
	struct recorder rec = { 0 };
	struct sc_policy pol = { .ctx = &rec, .pick = rec_pick,
				 .executed = rec_executed,
				 .release = rec_release };
	struct sc_run_config c = *cfg;
	struct sc_run_result *res = calloc(1, sizeof(*res));
	struct sc_parked parked = { 0 };
	struct sc_fork_server *s = NULL;

	c.policy = &pol;
	c.trace = NULL;
	c.fork_server = NULL;
	c.hand_over = false;
	c.stop_at_step = 0;
	if (!res) {
		snprintf(why, len, "out of memory");
		return NULL;
	}
	if (sc_engine_park(&c, res, &parked) < 0 || !parked.pid) {
		snprintf(why, len, "%s", res->message[0] ? res->message
			 : "the program ended before its entry point");
		goto out;
	}
	if (rec.bad) {
		snprintf(why, len, "%s", rec.why);
		goto out;
	}
	s = calloc(1, sizeof(*s));
	if (!s) {
		snprintf(why, len, "out of memory");
		goto out;
	}
	s->parked = parked;             /* the server's now */
	parked.bps = NULL;
	parked.nbps = 0;
	parked.mods = NULL;
	parked.nmods = 0;
	robust_list(s);         /* the stub sets the copies' */
	if (patch_entry(s) < 0) {
		snprintf(why, len, "cannot patch the entry point: %s",
			 strerror(errno ? errno : EIO));
		goto out;
	}
	if (thread_setup(s) < 0) {
		snprintf(why, len, "cannot read the main thread's tid address "
			 "or robust list: %s", strerror(errno ? errno : EIO));
		goto out;
	}
	s->prelude = rec.ev;
	s->nprelude = rec.n;
	free(res);
	return s;
out:
	if (s)
		parked_free(&s->parked);
	if (parked.pid)
		kill_and_reap(parked.pid);
	parked_free(&parked);
	free(s);
	free(rec.ev);
	free(res);
	return NULL;
}

void sc_fork_server_stop(struct sc_fork_server *s)
{
	if (!s)
		return;
	if (s->parked.pid > 0)
		kill_and_reap(s->parked.pid);
	free(s->prelude);
	parked_free(&s->parked);
	free(s);
}

const char *sc_fork_server_broken(const struct sc_fork_server *s)
{
	return s && s->broken ? s->why : NULL;
}

static void server_broke(struct sc_fork_server *s, const char *what)
{
	s->broken = true;
	snprintf(s->why, sizeof(s->why), "the fork server failed (%s: %s); "
		 "runs start by exec", what, strerror(errno ? errno : EIO));
	/* End the server now, not when the job ends: a server left stopped
	 * (a signal from outside, `pkill PROG`, stopped it) is a child the
	 * exec'd runs' final reaping (waitpid(-1)) would wait for forever. */
	if (s->parked.pid > 0) {
		kill_and_reap(s->parked.pid);
		s->parked.pid = 0;
	}
}

pid_t sc_fork_server_fork(struct sc_fork_server *s,
			  struct user_regs_struct *regs)
{
	pid_t child = 0;
	int status;

	if (!s || s->broken)
		return -1;
	/* As glibc's fork: the child's tid cached in its thread, cleared
	 * (and woken) when it ends. */
	uint64_t flags = CLONE_PARENT | SIGCHLD;
	if (s->tid_address)
		flags |= CLONE_CHILD_SETTID | CLONE_CHILD_CLEARTID;
	uint64_t clone_args[4] = { flags, 0, 0, s->tid_address };
	errno = 0;
	long rc = inject(s, s->parked.pid, SYS_clone, clone_args, &child);
	if (rc <= 0 || child <= 0 || rc != child) {
		if (rc < 0 && rc > -4096)
			errno = (int)-rc;
		server_broke(s, "clone");
		if (child > 0)
			kill_and_reap(child);
		return -1;
	}
	/* The copy's first stop (PTRACE_EVENT_STOP: auto-attached). */
	if (wait_stop(child, &status) < 0) {
		server_broke(s, "the copy's first stop");
		return -1;
	}
	/* As the exec path's child: its own session (the engine ends a
	 * run by its process group), and dies with the supervisor.  The
	 * program's bytes at the entry are put back by the engine
	 * (sc_fork_server_restore), in one write to the copy's memory. */
	if (copy_setup(s, child) < 0 ||
	    ptrace(PTRACE_SETREGS, child, 0, &s->parked.regs) < 0) {
		server_broke(s, "setting up the copy");
		kill_and_reap(child);
		return -1;
	}
	*regs = s->parked.regs;
	return child;
}

int sc_fork_server_prelude(struct sc_engine *e, struct sc_thread *t0)
{
	const struct sc_fork_server *s = e->cfg->fork_server;
	const struct sc_policy *pol = e->cfg->policy;
	struct sc_thread_view v;
	uint32_t only = 0;

	for (size_t i = 0; i < s->nprelude; i++) {
		const struct prelude_event *p = &s->prelude[i];
		memset(&v, 0, sizeof(v));
		v.thread = t0->logical;
		v.state = SC_TS_READY;
		v.enabled = true;
		v.next = p->offered;
		struct sc_sched_view view = { .step = e->step, .nthreads = 1,
			.threads = &v, .nenabled = 1, .enabled = &only };
		if (pol->pick(pol->ctx, &view) != 0) {
			sc_engine_abort(e, NULL);
			return -1;
		}
		struct sc_event ev = p->emitted;
		ev.step = e->step++;
		e->nwoken = 0;
		t0->next = ev;
		sc_emit_event(e, &ev);
		if (p->released) {
			if (pol->release)
				pol->release(pol->ctx, &ev);
			t0->release_step = e->step;
		}
	}
	return 0;
}

/* Has pid a descriptor above stderr open?  Copies would share its open
 * file (and offset), where each exec'd run opens its own. */
static bool has_own_files(pid_t pid)
{
	char path[64];
	struct dirent *d;
	bool found = false;

	snprintf(path, sizeof(path), "/proc/%d/fd", (int)pid);
	DIR *dir = opendir(path);
	if (!dir)
		return true;
	while (!found && (d = readdir(dir)))
		found = d->d_name[0] != '.' && atoi(d->d_name) > 2;
	closedir(dir);
	return found;
}

void sc_park_at_entry(struct sc_engine *e, struct sc_thread *t)
{
	struct sc_process *p = t->proc;

	e->finished = true;
	e->res->verdict = SC_VERDICT_ERROR;     /* unless parked below */
	/* Randomness drawn before the entry point is the same in every
	 * run (random.c); after it, it is the run's. */
	if (e->nthreads != 1 || e->nprocs != 1 || e->random_drawn ||
	    e->clock_reads) {
		snprintf(e->res->message, sizeof(e->res->message),
			 "the program %s before its entry point",
			 e->nthreads != 1 ? "started threads"
			 : e->nprocs != 1 ? "started processes"
			 : e->clock_reads ? "read the clock"
			 : "drew randomness");
		return;
	}
	/* A preloaded or shared library's constructor (they run before
	 * the entry point) that opened a file. */
	if (has_own_files(p->pid)) {
		snprintf(e->res->message, sizeof(e->res->message),
			 "the program had files open at its entry point");
		return;
	}
	e->parked.entry = p->entry_bp;
	sc_bp_remove(p, p->entry_bp);
	p->entry_bp = 0;
	if (sc_regs_flush(t) < 0) {
		snprintf(e->res->message, sizeof(e->res->message),
			 "cannot rewind to the entry point: %s",
			 strerror(errno));
		return;
	}
	e->parked.regs = t->regs;
	/* Planted here once, inherited by every copy. */
	e->parked.libc_ready = sc_plant_libc_breakpoints(p) >= 0;
	e->parked.vclock = e->cfg->vclock;
	e->parked.tsc_reads = e->tsc_reads;
	if (e->parked.vclock)
		sc_plant_vclock_breakpoints(p);
	if (p->nbps) {
		e->parked.bps = malloc(p->nbps * sizeof(*p->bps));
		if (!e->parked.bps) {
			snprintf(e->res->message, sizeof(e->res->message),
				 "out of memory");
			return;
		}
		memcpy(e->parked.bps, p->bps, p->nbps * sizeof(*p->bps));
		e->parked.nbps = p->nbps;
	}
	if (sc_module_map(p->pid, &e->parked.mods, &e->parked.nmods) < 0) {
		e->parked.mods = NULL;
		e->parked.nmods = 0;
	}
	if (sc_code_refresh(p) == 0 &&
	    (e->parked.code = sc_code_dup(p->code, p->ncode)))
		e->parked.ncode = p->ncode;
	e->parked.pid = p->pid;
	e->res->verdict = SC_VERDICT_UNKNOWN;
}

int sc_fork_server_adopt(struct sc_engine *e, struct sc_process *p)
{
	const struct sc_fork_server *s = e->cfg->fork_server;
	const struct sc_parked *a = &s->parked;

	if (a->vclock != e->cfg->vclock || p->nbps)
		return -1;
	if (a->nbps) {
		p->bps = malloc(a->nbps * sizeof(*p->bps));
		if (!p->bps)
			return -1;
		memcpy(p->bps, a->bps, a->nbps * sizeof(*p->bps));
		p->nbps = a->nbps;
	}
	if (!p->code && (p->code = sc_code_dup(a->code, a->ncode)))
		p->ncode = a->ncode;
	p->libc_ready = a->libc_ready;
	e->tsc_reads = a->tsc_reads;    /* as an exec'd run has at its entry */
	if (e->cfg->trace && a->mods)
		sc_trace_modules(e->cfg->trace, a->mods, a->nmods, e->step);
	return 0;
}
