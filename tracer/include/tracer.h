/*
 * tracer.h - the public interface of libtracer, the ptrace engine.
 *
 * This is the only tracer header that daemon/, cli/ and tests may include.
 * The engine is mechanism only: it runs one thread of the target at a time,
 * stops every thread before its next scheduling event, and asks a policy
 * (struct sc_policy, implemented by daemon/strategy/) which thread goes
 * next.  It knows nothing about PCT, POS or random walks.
 */
#ifndef SCHEDCTL_TRACER_H
#define SCHEDCTL_TRACER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* Event kinds.  Values are written to trace files: never renumber, only add.
 * Mirrors enum sctrace.EventKind in proto/trace.proto. */
enum sc_event_kind {
	SC_EV_NONE = 0,
	SC_EV_THREAD_CREATE = 1,    /* clone/clone3 creating a thread */
	SC_EV_THREAD_START = 2,     /* first stop of a new thread */
	SC_EV_THREAD_EXIT = 3,      /* exit(2) of one thread */
	SC_EV_LIB_CREATE = 4,       /* pthread_create / thrd_create entry */
	SC_EV_LIB_JOIN = 5,         /* pthread_join / thrd_join entry */
	SC_EV_PROCESS_EXIT = 6,     /* exit_group(2) */
	SC_EV_FORK = 7,             /* fork/vfork/clone of a new process */
	SC_EV_EXEC = 8,             /* execve/execveat */
	SC_EV_FUTEX_WAIT = 9,
	SC_EV_FUTEX_WAKE = 10,
	SC_EV_FUTEX_REQUEUE = 11,
	SC_EV_FUTEX_WAKE_OP = 12,
	SC_EV_FUTEX_OTHER = 13,     /* PI etc.: released to the kernel */
	SC_EV_WAIT_RETURN = 14,     /* a woken modelled waiter resumes */
	SC_EV_TIMEOUT = 15,         /* a timed modelled waiter times out */
	SC_EV_YIELD = 16,           /* sched_yield */
	SC_EV_SLEEP = 17,           /* nanosleep family: virtual time, returns at once */
	SC_EV_SYSCALL_BLOCKING = 18,/* possibly blocking syscall, released */
	SC_EV_SYSCALL_RETURN = 19,  /* a released syscall came back */
	SC_EV_PREEMPT = 20,         /* slice expired: thread interrupted */
	SC_EV_MUTEX_LOCK = 21,
	SC_EV_MUTEX_TRYLOCK = 22,
	SC_EV_MUTEX_UNLOCK = 23,
	SC_EV_COND_WAIT = 24,
	SC_EV_COND_SIGNAL = 25,
	SC_EV_COND_BROADCAST = 26,
	SC_EV_RWLOCK_RDLOCK = 27,
	SC_EV_RWLOCK_WRLOCK = 28,
	SC_EV_RWLOCK_UNLOCK = 29,
	SC_EV_SEM_WAIT = 30,
	SC_EV_SEM_POST = 31,
	SC_EV_SPIN_LOCK = 32,
	SC_EV_SPIN_UNLOCK = 33,
	SC_EV_BARRIER_WAIT = 34,
	SC_EV_ONCE = 35,
	SC_EV_MEM_READ = 36,
	SC_EV_MEM_WRITE = 37,
	SC_EV_MEM_RMW = 38,
	SC_EV_FREE = 39,            /* free(3) of a heap block: object, size */
	SC_EV__COUNT
};

/* A memory event that reads (a plain load, or a read-modify-write). */
static inline bool sc_event_is_load(uint32_t kind)
{
	return kind == SC_EV_MEM_READ || kind == SC_EV_MEM_RMW;
}

/* How an event touches its object (POS: two events race when they share an
 * object and at least one is not a read). */
enum sc_access {
	SC_ACC_NONE = 0,
	SC_ACC_READ = 1,
	SC_ACC_WRITE = 2,
	SC_ACC_RMW = 3,
};

enum sc_verdict {
	SC_VERDICT_UNKNOWN = 0,
	SC_VERDICT_PASS = 1,
	SC_VERDICT_CRASH = 2,
	SC_VERDICT_ASSERT = 3,
	SC_VERDICT_EXIT = 4,
	SC_VERDICT_DEADLOCK = 5,
	SC_VERDICT_HANG = 6,
	SC_VERDICT_ERROR = 7,
	SC_VERDICT_DIVERGED = 8,    /* replay could not follow the schedule */
};

/* "pass", "crash", ...; never NULL. */
const char *sc_verdict_name(enum sc_verdict v);
/* "mutex_lock", "futex_wait", ...; never NULL. */
const char *sc_event_kind_name(enum sc_event_kind k);
/* Parse sc_event_kind_name() output back; -1 when unknown. */
int sc_event_kind_parse(const char *name);
const char *sc_access_name(enum sc_access a);

/* A scheduling event: what a thread is about to do (pending) or did. */
struct sc_event {
	uint64_t step;          /* index of the event in the run (executed only) */
	uint32_t thread;        /* logical id: T0 main, T1.. in creation order */
	uint16_t kind;          /* enum sc_event_kind */
	uint8_t access;         /* enum sc_access */
	uint32_t size;          /* bytes: a mem event's access, a free's
				 * block (usable size, at most 1 MiB); else 0 */
	uint64_t object;        /* lock/futex/variable address, fd, or 0 */
	uint64_t pc;            /* where the thread is stopped */
	/* Library-call events (mutex_lock...): the caller's return address,
	 * so that reports name the program's line, not libc's; else 0. */
	uint64_t call_site;
	uint32_t enabled;       /* size of the enabled set when it was chosen */
	uint32_t nwoken;        /* wake events: threads released, see woken */
	const uint32_t *woken;  /* logical ids; valid during the callback only */
	/* Preempt events: where exactly the thread was stopped, so that
	 * replay stops it at the same instruction (preempt.c). */
	uint64_t state;         /* sc_preempt_state_hash(); 0: not recorded */
	uint64_t cpu_ns;        /* CPU time run since its last resume */
	uint8_t preempt_flags;  /* SC_PREEMPT_* */
	/* SC_PREEMPT_BUDGET: the SC_PREEMPT_REGS values hashed into state
	 * (in that order); NULL otherwise.  Valid during the callback. */
	const uint64_t *regs;
	/* Sleep events: the duration the thread asked for (a relative
	 * nanosleep or clock_nanosleep), 0 when unknown.  Not in traces:
	 * the strategies' wrapper uses it (sleep_hold.h). */
	uint64_t sleep_ns;
	/* Yield and sleep events: the thread is where it was at one of its
	 * last such calls, registers, top of stack and vector registers
	 * alike (a loop that waits for something without counting), as
	 * opposed to one that counts its way through (syscall_event.c).
	 * Not in traces. */
	bool waits_in_place;
};

/* The registers hashed into a preemption's state, in this order: r15 r14
 * r13 r12 rbp rbx r11 r10 r9 r8 rax rcx rdx rsi rdi rip eflags rsp
 * fs_base (eflags masked to the arithmetic flags). */
#define SC_PREEMPT_REGS 19

/* Where replay must stop a thread (sc_policy.preempt_target). */
struct sc_preempt_target {
	uint64_t pc;
	uint64_t state;
	uint64_t cpu_ns;
	uint8_t preempt_flags;
	bool has_regs;
	uint64_t regs[SC_PREEMPT_REGS];
};

/* How a preemption point was chosen (sc_event.preempt_flags). */
#define SC_PREEMPT_SPIN 1       /* the thread's state repeated: a spin loop */
#define SC_PREEMPT_BUDGET 2     /* a computation ran out of its CPU budget */

enum sc_thread_state {
	SC_TS_READY,            /* stopped before an enabled event */
	SC_TS_BLOCKED,          /* modelled futex wait, not woken yet */
	SC_TS_IN_KERNEL,        /* inside a released blocking syscall */
};

struct sc_thread_view {
	uint32_t thread;                /* logical id */
	enum sc_thread_state state;
	bool enabled;                   /* may be picked now */
	bool timed;                     /* blocked with a timeout */
	struct sc_event next;           /* pending event (READY/BLOCKED) */
};

/* What a policy sees at a scheduling point.  threads[] lists every live
 * controlled thread; enabled[] holds indexes into threads[] of those that
 * may be picked.  Arrays are valid during the callback only. */
struct sc_sched_view {
	uint64_t step;                  /* index the chosen event will get */
	size_t nthreads;
	const struct sc_thread_view *threads;
	size_t nenabled;
	const uint32_t *enabled;
};

/* A scheduling policy (daemon/strategy/).  Callbacks other than pick may be
 * NULL. */
struct sc_policy {
	void *ctx;
	/* Return the index into view->threads of an enabled thread;
	 * SC_PICK_ABORT to abort the run (it ends with SC_VERDICT_DIVERGED and
	 * the policy's error() text); or SC_PICK_WAIT to have the engine wait
	 * until a thread that is in the kernel (SC_TS_IN_KERNEL) comes back,
	 * then ask again (replay uses it when the recorded thread is still in
	 * a released syscall). */
	int (*pick)(void *ctx, const struct sc_sched_view *view);
	/* A wake of up to nwake threads among nwaiters waiters (logical ids,
	 * oldest first).  Write the indexes into waiters[] of the chosen ones
	 * to out[] and return how many (<= nwake; at least one when nwake and
	 * nwaiters are non-zero).  Default when NULL: the oldest first.
	 * Return SIZE_MAX to abort like pick(). */
	size_t (*pick_wake)(void *ctx, const struct sc_event *waker,
			    const uint32_t *waiters, size_t nwaiters,
			    size_t nwake, uint32_t *out);
	/* Called after each event has executed (POS re-draws priorities). */
	void (*executed)(void *ctx, const struct sc_event *ev);
	/* A possibly blocking syscall (ev, kind syscall or futex_other) is
	 * being released to the kernel.  Return SC_RELEASE_AUTO to wait about
	 * a millisecond for it (a quick call is then one plain step; a slow
	 * one lets the others run and its return becomes a syscall_return
	 * event), SC_RELEASE_AWAIT to wait for it however long it takes (no
	 * syscall_return event), or SC_RELEASE_NOW to let the others run at
	 * once (a syscall_return event follows).  Replay answers from the
	 * trace so that timing cannot change the schedule.  NULL: AUTO. */
	int (*release)(void *ctx, const struct sc_event *ev);
	/* Thread `thread` is resumed after the event of step `step`: return
	 * a slice in microseconds of CPU time for it (0: the configured
	 * one).  Replay asks for a short one when the recording shows the
	 * thread was preempted before its next event, so that a spinning
	 * thread is preempted again instead of running into another event,
	 * and for SC_SLICE_AS_RECORDED when the thread has no event left
	 * but others have.
	 * May be NULL. */
	uint32_t (*slice)(void *ctx, uint64_t step, uint32_t thread);
#define SC_SLICE_AS_RECORDED UINT32_MAX   /* slices and preemptions as
					   * when recording */
	/* Replay: thread `thread` is resumed after the event of step `step`;
	 * when its next recorded event is a preemption with a recorded
	 * state, fill *target and return true: the engine stops the thread
	 * at the first point with that pc and state.  May be NULL. */
	bool (*preempt_target)(void *ctx, uint64_t step, uint32_t thread,
			       struct sc_preempt_target *target);
	/* Replay: no time slices; threads run until their next event or
	 * their preempt_target. */
	bool no_slices;
	/* Why pick() or pick_wake() aborted; may be NULL. */
	const char *(*error)(void *ctx);
};

#define SC_PICK_ABORT (-1)
#define SC_PICK_WAIT (-2)
/* pick() may return SC_PICK_GO_ON(i): thread i's pending event is a
 * preempt or syscall_return that the recording does not hold; the thread
 * simply goes on (no step) and the policy is asked again when it stops. */
#define SC_PICK_GO_ON_BASE (-1000)
#define SC_PICK_GO_ON(i) (SC_PICK_GO_ON_BASE - (int)(i))

#define SC_RELEASE_AUTO 0
#define SC_RELEASE_AWAIT 1
#define SC_RELEASE_NOW 2

struct sc_trace_writer;

enum sc_granularity {
	SC_GRAN_SYNC = 0,
	SC_GRAN_MEM = 1,
	/* The sync points plus breakpoints at a given list of instructions
	 * (race_pcs): those a race detection found in earlier runs. */
	SC_GRAN_RACE = 2,
};

struct sc_fork_server;

/* sc_run_config.clock_wait_reads of controlled launches: a loop that
 * reads the clock until a deadline makes thousands of reads; code that
 * timestamps its work reads it a few times between two steps. */
#define SC_CLOCK_WAIT_READS 64u

struct sc_run_config {
	char *const *argv;              /* argv[0] is the program path */
	char *const *envp;              /* NULL: the caller's environ */
	const char *cwd;                /* NULL: unchanged */
	int cpu;                        /* pin tracer and target; -1: none */
	uint64_t max_steps;             /* 0: no limit */
	uint32_t timeout_ms;            /* wall clock per run; 0: no limit */
	uint32_t slice_us;              /* run time before PTRACE_INTERRUPT; 0: 2000 */
	bool eager_timeouts;            /* timed waits may time out any time */
	enum sc_granularity granularity;
	/* mem granularity: shared objects to instrument besides the main
	 * executable (file name prefixes, e.g. "libfoo"), and source files
	 * to limit instrumentation to (DWARF line tables).  NULL-terminated,
	 * may be NULL. */
	const char *const *instrument_modules;
	const char *const *instrument_sources;
	/* mem granularity: also every shared object of the program's own
	 * (outside the system's library directories), as the pilot runs of
	 * race granularity need: a race in the program's library is the
	 * program's race. */
	bool own_libraries;
	/* mem granularity: after this many memory events (0: no limit) the
	 * memory breakpoints are lifted and the run goes on at sync
	 * granularity.  The pilot runs of race granularity only need to see
	 * the program's races, not every access of a long computation
	 * (sort's comparisons), which would take minutes and end as a false
	 * hang. */
	uint32_t mem_event_cap;
	/* mem granularity: a memory access instruction is lifted once it
	 * has been an event this many times (0: never).  Hot loops then do
	 * not use up mem_event_cap before the code that runs after them (a
	 * garbage collector after the set-up) has been seen: races hide in
	 * cold code (LiteRace, Marino et al., PLDI 2009). */
	uint32_t mem_site_cap;
	/* mem granularity: free(3) called by the program (not by glibc
	 * itself) is an event (SC_EV_FREE) with the block and its usable
	 * size, until the memory points are lifted.  The race detector needs
	 * it: a block freed by one thread and returned by malloc to another
	 * is a new object, ordered by the allocator's lock that no event
	 * shows, and its accesses were reported as races (the state of a
	 * std::thread deleted by the first thread, constructed again by main
	 * for the next). */
	bool free_events;
	/* A poll, select, epoll_wait or sigtimedwait with a timeout above
	 * zero is released without one; its timeout is a timed wait of the
	 * schedule (TIMEOUT event), offered when no other thread can go on
	 * and its time has passed, or after as many steps of the others as
	 * it lasts in virtual time (schedule.c).  Off: the kernel's timer ends it (traces recorded
	 * before). */
	bool virtual_timeouts;
	/* With vclock: a thread that reads a virtual clock this many times
	 * with no step in between waits for time to pass (a busy-wait on the
	 * clock): that read is a yield event, so that another thread's
	 * timeout can come first (vclock.c).  0: never (traces recorded
	 * before). */
	uint32_t clock_wait_reads;
	/* race granularity: the instructions (absolute addresses, sorted)
	 * that are memory scheduling points.  An address that is not the
	 * start of a memory-accessing instruction of a module of the
	 * program's own is skipped. */
	const uint64_t *race_pcs;
	size_t nrace_pcs;
	/* sync granularity: the atomic read-modify-write instructions (lock
	 * prefix, xchg with memory) of the program's own code are scheduling
	 * points too: the locks of runtimes that never call pthread (Rust's
	 * std::sync, hand-written spinlocks) are made of them. */
	bool atomics;
	/* Schedule the threads of forked child processes too (a test run by
	 * a shell script, a server that forks workers).  Otherwise children
	 * run uncontrolled until they exit. */
	bool follow_forks;
	/* getrandom(2) and reads of /dev/urandom and /dev/random return
	 * bytes drawn from random_seed instead of the kernel's (tracer/
	 * random.c): a program that draws random numbers (Python's and
	 * Rust's hash seeds, a randomised test) then runs as a function of
	 * the seed, and its replay takes the same branches. */
	bool seeded_random;
	uint64_t random_seed;
	/* A thread about to call pthread_spin_lock on a held spinlock is
	 * not a choice of the schedule (tracer/spin_model.c): it waits as if
	 * blocked until the holder unlocks, instead of spinning through
	 * slices until it is preempted. */
	bool spin_model;
	/* Calls of the synchronisation functions made by glibc itself
	 * (libc.so.6 or the dynamic loader calling pthread_mutex_lock on its
	 * own locks) are not events: the thread goes on through them. */
	bool skip_glibc_sync;
	/* sched_getaffinity() tells the program the CPUs the daemon may
	 * use, not the one its run is pinned to; sched_setaffinity()
	 * succeeds without moving it (affinity.c). */
	bool all_cpus;
	/* Rules of memory sites (mem_instrument.c): 0 leaves every
	 * rbp-based operand alone, 1 only in functions that keep a frame
	 * pointer (frame_functions.c), 2 also plants a process's memory,
	 * race and atomic sites at its first thread creation, not at its
	 * entry point (dispatch.c), 3 also leaves out the plain accesses of
	 * Rust's standard library linked into a module (its atomics stay),
	 * 4 also watches a thread's stack slot once another thread's access
	 * reached it (stack_watch.c), 5 also makes the program's calls of
	 * libc functions with hidden static state (strtok, localtime,
	 * getenv/setenv) memory events on that state (libc_syms.c), 6 also
	 * keeps the lines of Rust's standard library in the program's own
	 * compilation units (inlined there: an atomic's load and store) and
	 * counts the crates rustup builds the library with (/rust/deps/:
	 * gimli, addr2line) as the library. */
	uint32_t mem_sites;
	/* The clock functions of the vDSO answer with clock_*_ns plus the
	 * run's progress (vclock.c), so that time is part of the schedule. */
	bool vclock;
	uint64_t clock_realtime_ns, clock_monotonic_ns;
	/* Target's stdio; -1 means /dev/null.  The engine dup2()s them. */
	int stdin_fd, stdout_fd, stderr_fd;
	const struct sc_policy *policy; /* NULL: run natively, no control */
	/* NULL: no trace.  The caller creates the writer (which writes the
	 * header) and finishes it after sc_run(); the engine appends events
	 * and module maps. */
	struct sc_trace_writer *trace;
	/* Checked between steps; when it becomes non-zero the run is killed
	 * with SC_VERDICT_ERROR "interrupted". May be NULL. */
	volatile int *cancel;
	/* Hand the process over to a debugger instead of ending it: at a
	 * fatal signal (before it is delivered), at a deadlock, or before
	 * step stop_at_step (0: no such step) every thread is detached where
	 * it stands, breakpoints removed, and the process left stopped
	 * (SIGSTOP); sc_run_result.stopped_pid says which.  The caller must
	 * kill it when the debugger is done (hand_over.c). */
	bool hand_over;
	uint64_t stop_at_step;
	/* Replay of a run that ended as a hang (its step or time budget
	 * ran out) after this many events: the replay ends there too, with
	 * a hang verdict, instead of running on until its own budget (a
	 * spinning thread would spin for the whole --timeout).  0: none. */
	uint64_t recorded_hang_steps;
	/* Start the run as a copy of this server's process, stopped at its
	 * entry point, instead of by exec (fork_server.c).  The server was
	 * started with this run's argv, envp, cwd, stdio and cpu.  NULL, or
	 * a server that failed: exec. */
	struct sc_fork_server *fork_server;
};

/* A fork server for runs of cfg's program (its argv, envp, cwd, stdio,
 * cpu and timeout); NULL with why[] when the program cannot be served
 * (then runs start by exec). */
struct sc_fork_server *sc_fork_server_start(const struct sc_run_config *cfg,
					    char *why, size_t len);
/* Kill the server's process and free it.  NULL is fine. */
void sc_fork_server_stop(struct sc_fork_server *s);
/* Why the server stopped serving (a run then started by exec), or NULL. */
const char *sc_fork_server_broken(const struct sc_fork_server *s);

/* Room for the stacks of a report (sc_run_result.stacks). */
#define SC_STACKS_LEN 32768

struct sc_run_result {
	enum sc_verdict verdict;
	int exit_status;                /* with SC_VERDICT_PASS/EXIT */
	int signal;                     /* fatal signal, or 0 */
	uint64_t steps;                 /* events executed */
	uint32_t threads;               /* threads created, main included */
	/* Most threads one controlled process created (its main included):
	 * a script's processes are many threads of one thread each. */
	uint32_t process_threads;
	/* Steps of threads other than T0 that were synchronisation (futex,
	 * lock, wait, yield, atomic), not thread start, exit, syscalls or
	 * preemptions: too few of them means schedctl could not see how the
	 * threads synchronise.  (T0's are left out: creating and joining
	 * threads takes the loader's lock and waits on a futex.) */
	uint64_t sync_steps;
	uint64_t wall_us;
	uint32_t fault_thread;          /* logical id of the crashing thread */
	uint64_t fault_pc;
	char message[2048];             /* one paragraph: what went wrong */
	char location[1024];            /* symbol+offset (or file:line) */
	/* The stacks of the threads the failure is about, innermost frame
	 * first, one frame per line: "T<n> 0x<pc> <frame>" where frame is
	 * "function at file:line (module)", "function+0xoff (module)" or
	 * "module+0xoff".  Crash and assert: the faulting thread; deadlock:
	 * every blocked thread; hang: the running thread and every stopped
	 * one; exit: the thread that called exit_group; "" otherwise. */
	char stacks[SC_STACKS_LEN];
	/* With cfg->hand_over: the stopped process left for a debugger (its
	 * own process group), or 0 when the run ended before that point. */
	int stopped_pid;
	/* ... and the thread that failed there (a fault, an assert, a
	 * failing exit), or 0 (a deadlock, a chosen step). */
	int stopped_tid;
	/* One line for the user about how the run was controlled (a
	 * runtime whose code was left out), or "". */
	char notice[256];
};

/* Run the program once under control (or natively when policy is NULL).
 * Returns 0 when the run happened (whatever its verdict), -1 when the
 * target could not be started at all; result->message says why in both
 * cases. */
int sc_run(const struct sc_run_config *cfg, struct sc_run_result *result);

/* Take control of a running process: seize every thread (rescanning
 * /proc/PID/task until no new one appears), plant the libc breakpoints and
 * schedule its threads with cfg->policy, using syscall stops instead of a
 * seccomp filter (a filter could not be removed at detach).  cfg->argv,
 * envp, cwd and the stdio fds are ignored.  Runs until the process exits,
 * cfg->cancel becomes non-zero or duration_ms passes (0: no limit), then
 * removes every breakpoint, completes or restarts any modelled futex wait
 * and detaches, leaving the process running as before.  Returns 0 when
 * control was taken (result->verdict says how it ended: pass when still
 * running or exited 0), -1 with a one-line reason in result->message when
 * the process could not be attached (no such process, EPERM, already
 * traced). */
int sc_attach(int pid, const struct sc_run_config *cfg, uint32_t duration_ms,
	      struct sc_run_result *result);

/* Check that PROGRAM can be run: resolves it through PATH like execvp and
 * checks that it is an executable 64-bit ELF file, or a "#!" script whose
 * interpreter is one (the kernel runs the interpreter; see script.c).  On
 * success writes the resolved path to resolved (size len) and returns 0;
 * otherwise writes a one-line reason ("./foo: No such file or directory")
 * to err and returns -1.  PATH is this process's. */
int sc_check_program(const char *program, char *resolved, size_t len,
		     char *err, size_t errlen);

/* "TracerPid:" of /proc/PID/status: the process tracing pid (0: none),
 * -1 when unreadable (no such process). */
int sc_tracer_of(pid_t pid);

/* What sc_check_program_info() found out about PROGRAM. */
struct sc_program_info {
	bool script;                    /* a "#!" script */
	char interpreter[512];          /* its #! line: "/bin/sh -e" */
	char elf[4096];                 /* the ELF that runs in the end */
};

/* Same, with the PATH to search given (the program's environment's: NULL
 * for the default), also used for "#!/usr/bin/env NAME"; info may be
 * NULL. */
int sc_check_program_info(const char *program, const char *path_env,
			  char *resolved, size_t len,
			  struct sc_program_info *info, char *err,
			  size_t errlen);

/* sanitizers.c: the LeakSanitizer in the ELF at path, which cannot run
 * under ptrace: an AddressSanitizer build (its leak check is on by
 * default, ASAN_OPTIONS turns it off), a LeakSanitizer one
 * (LSAN_OPTIONS), or none. */
enum { SC_SANITIZER_NONE, SC_SANITIZER_ASAN, SC_SANITIZER_LSAN };
int sc_leak_sanitizer(const char *path);
/* sanitizers.c: is the ELF at path built with UndefinedBehaviorSanitizer
 * (libubsan needed, or its handlers linked in)? */
bool sc_ubsan_runtime(const char *path);

/* Is program (found in path_env as execvp(3) would) an executable text
 * file with no #! line?  execve refuses it (ENOEXEC); execvp and the
 * shells run it with /bin/sh.  1 with its path in path, else 0. */
int sc_shell_script_without_shebang(const char *program,
				    const char *path_env, char *path,
				    size_t len);

/* The value of PATH in envp (NULL-terminated), or NULL. */
const char *sc_env_path(char *const *envp);

/* The script part of the check (script.c): 1 when path is a script whose
 * interpreters can run (info filled), 0 when it is no script, -1 with a
 * one-line reason naming shown. */
int sc_script_check(const char *path, const char *shown, const char *path_env,
		    struct sc_program_info *info, char *err, size_t errlen);

/* ---- traces (tracer/trace_writer.c) ---- */

struct sc_trace_header {
	const char *tool_version;
	char *const *argv;
	const char *cwd;
	uint64_t env_digest;
	const char *strategy;
	const char *strategy_params;
	uint64_t seed;
	uint64_t base_seed;
	uint32_t run_index;
	const char *granularity;
	char *const *instrument_modules;    /* NULL-terminated or NULL */
	char *const *instrument_sources;
	bool follow_forks;
	/* The target's environment, NULL-terminated: it shapes the initial
	 * stack, so the addresses of stack objects depend on it and replay
	 * needs the same one. */
	char *const *env;
	uint64_t max_steps;
	uint32_t timeout_ms;
	bool eager_timeouts;
	uint32_t slice_us;              /* 0: the default */
	/* The program's standard input (NULL: /dev/null), relative to the
	 * trace's directory unless absolute, and its size. */
	const char *stdin_file;
	uint64_t stdin_size;
	bool atomics;                   /* sc_run_config.atomics */
	bool seeded_random;             /* sc_run_config.seeded_random */
	bool spin_model;                /* sc_run_config.spin_model */
	bool skip_glibc_sync;           /* sc_run_config.skip_glibc_sync */
	bool all_cpus;                  /* sc_run_config.all_cpus */
	uint32_t mem_sites;             /* sc_run_config.mem_sites */
	/* sc_run_config.clock_*_ns; both 0: no virtual clock. */
	uint64_t clock_realtime_ns, clock_monotonic_ns;
	bool own_libraries;             /* sc_run_config.own_libraries */
	uint32_t mem_event_cap;         /* sc_run_config.mem_event_cap */
	uint32_t mem_site_cap;          /* sc_run_config.mem_site_cap */
	bool free_events;               /* sc_run_config.free_events */
	bool virtual_timeouts;          /* sc_run_config.virtual_timeouts */
	uint32_t clock_wait_reads;      /* sc_run_config.clock_wait_reads */
	bool attached;                  /* recorded by schedctl attach */
	const uint64_t *race_pcs;       /* sc_run_config.race_pcs */
	size_t nrace_pcs;
};

struct sc_module {
	const char *path;
	const uint8_t *build_id;
	size_t build_id_len;
	uint64_t load_address;
	uint64_t size;
};

/* Open path (truncating) and write the magic and the header.  NULL on
 * error with errno set. */
struct sc_trace_writer *sc_trace_create(const char *path,
					const struct sc_trace_header *hdr);
/* Append one executed event (buffered; flushed every batch). */
int sc_trace_event(struct sc_trace_writer *w, const struct sc_event *ev);
/* Record the module map (after exec, once the loader mapped libraries). */
int sc_trace_modules(struct sc_trace_writer *w, const struct sc_module *mods,
		     size_t n, uint64_t at_step);
/* The same for a process of --follow-forks other than the first one,
 * named by the logical id of its first thread. */
int sc_trace_process_modules(struct sc_trace_writer *w, uint32_t process,
			     const struct sc_module *mods, size_t n,
			     uint64_t at_step);
/* Record that logical thread `thread` is of the process whose first
 * thread is `process` (--follow-forks: threads of child processes). */
int sc_trace_thread_process(struct sc_trace_writer *w, uint32_t thread,
			    uint32_t process);
/* Flush pending events and write the footer; closes and frees w. */
int sc_trace_finish(struct sc_trace_writer *w, const struct sc_run_result *r);
/* Flush and free without a footer (the reader reports verdict unknown). */
void sc_trace_abandon(struct sc_trace_writer *w);

/* The environment as stored in a trace header: NUL-joined, deflated
 * (env_pack.c).  pack: 0, or -1 when out of memory or over 1 MiB; an
 * empty environment gives *out NULL.  unpack: a NULL-terminated array of
 * malloc'd strings, or -1 for corrupt data. */
int sc_env_pack(char *const *env, uint8_t **out, size_t *out_len,
		uint32_t *raw_len);
int sc_env_unpack(const uint8_t *z, size_t zlen, uint32_t raw_len,
		  char ***env);

/* FNV-1a 64 over the sorted "NAME=value" strings of envp. */
uint64_t sc_env_digest(char *const *envp);

/* The GNU build-id of the ELF file at path, into out (at most cap
 * bytes); its length, 0 when it has none or cannot be read. */
size_t sc_elf_build_id(const char *path, uint8_t *out, size_t cap);

#endif /* SCHEDCTL_TRACER_H */
