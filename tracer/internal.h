/*
 * internal.h - private structures of the ptrace engine.  Not for daemon/
 * or cli/: they use tracer.h only.
 *
 * Every per-thread fact lives in struct sc_thread and every per-process
 * fact in struct sc_process (the strace "tcb" rule): no side tables.
 */
#ifndef SCHEDCTL_TRACER_INTERNAL_H
#define SCHEDCTL_TRACER_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/user.h>
#include <sched.h>
#include <time.h>

#include "tracer.h"
#include "addr_ranges.h"
#include "dwarf_inline.h"

/* What the preemption machinery (preempt.c) is doing with a thread. */
enum sc_probe {
	PROBE_NONE,
	PROBE_INTERRUPTED,      /* slice used up: interrupt sent */
	PROBE_HITS,             /* breakpoint on its pc: do states repeat? */
	PROBE_REPLAY_FREE,      /* replay: runs freely for part of the way */
	PROBE_REPLAY_SAMPLE,    /* replay: two hits to see how far it is */
	PROBE_REPLAY_SCAN,      /* replay: every hit of the recorded pc */
	PROBE_LEGACY,           /* replay of a trace without states */
	PROBE_ASLEEP,           /* interrupted asleep in an untrapped syscall */
};

/* Where a thread is in our model.  Exactly one controlled thread is
 * RUNNING at a time; everything else is stopped under ptrace or inside a
 * released syscall. */
enum th_state {
	TH_NEW,         /* seen in a clone event, initial stop not yet seen */
	TH_RUNNING,     /* resumed: the one thread executing user code */
	TH_READY,       /* stopped before th->next, which is enabled */
	TH_BLOCKED,     /* modelled futex waiter (stays in its seccomp stop) */
	TH_IN_KERNEL,   /* released syscall, resumed with PTRACE_SYSCALL */
	TH_EXITING,     /* executed exit; waiting for the kernel to reap it */
	TH_DEAD,
};

/* How the thread is stopped, which decides how to resume it. */
enum th_stop {
	STOP_NONE,
	STOP_SECCOMP,       /* seccomp RET_TRACE stop: syscall not run yet */
	STOP_BREAKPOINT,    /* hit an int3 we planted; rip rewound to it */
	STOP_EVENT,         /* PTRACE_EVENT_STOP (interrupt, initial stop) */
	STOP_SYSCALL_EXIT,  /* syscall-exit-stop of a released syscall */
};

/* A memory-accessing instruction (mem granularity), decoded once. */
#define SC_REG_NONE (-1)
#define SC_REG_RIP 16
enum sc_mem_emu {
	MEM_EMU_NONE,           /* single-step it */
	MEM_EMU_LOAD,           /* mov reg, [m] */
	MEM_EMU_LOAD_ZX,        /* movzx reg, [m] */
	MEM_EMU_LOAD_SX,        /* movsx/movsxd reg, [m] */
	MEM_EMU_STORE_REG,      /* mov [m], reg */
	MEM_EMU_STORE_IMM,      /* mov [m], imm */
};
struct sc_mem_insn {
	uint8_t len;            /* instruction length */
	uint8_t access;         /* enum sc_access */
	uint8_t size;           /* bytes accessed */
	int8_t base, index;     /* register numbers, SC_REG_NONE/SC_REG_RIP */
	uint8_t scale;
	int64_t disp;
	uint8_t emu;            /* enum sc_mem_emu */
	int8_t reg;             /* register operand of a move */
	uint8_t reg_size;
	int64_t imm;
};

struct sc_breakpoint {
	uint64_t addr;
	uint8_t orig;           /* the byte the int3 replaced */
	uint16_t kind;          /* enum sc_event_kind; SC_EV_NONE: internal */
	uint8_t access;
	bool inserted;
	uint32_t hits;          /* mem: events at it (cfg->mem_site_cap) */
	const char *name;       /* libc function name, for reports */
	/* A libc function with hidden static state (strtok, localtime,
	 * getenv): the state's pseudo-address, the object of its calls'
	 * memory events (rules 5); 0 otherwise. */
	uint64_t hidden_state;
	struct sc_mem_insn *mem;        /* mem events; owned by the engine */
	/* Decoded instruction under the int3 (emulate.c). */
	uint8_t emu_op, emu_reg, emu_base, emu_len;
	int32_t emu_disp;
	uint32_t emu_imm;
};

struct sc_process {
	pid_t pid;
	pid_t parent_pid;       /* the traced process that forked it, or 0 */
	bool controlled;        /* false: forked child, runs free but traced */
	int mem_fd;             /* /proc/PID/mem, reopened at exec */
	struct sc_breakpoint *bps;  /* sorted by addr */
	size_t nbps;
	uint64_t entry_bp;      /* program entry breakpoint, 0 when none */
	uint64_t free_bp;       /* free(3)'s breakpoint (free_events), or 0 */
	/* Breakpoints removed last, maybe while a thread ran: it may have
	 * hit one just before, and its trap comes after the int3 is gone
	 * (sc_bp_stale_trap). */
	uint64_t removed_bps[8];
	unsigned nremoved;      /* count of removals, a ring index */
	bool libc_ready;        /* sync breakpoints planted for this image */
	/* sc_process_is_own() of this image, for its hidden-state calls:
	 * 0 not asked yet, 1 own, 2 a runtime's or a tool's. */
	uint8_t own_image;
	/* Its memory, race and atomic sites wait for its first thread
	 * creation (sc_run_config.mem_sites >= 2). */
	bool sites_pending;
	bool exiting;           /* exit_group or a fatal signal: its threads
				 * are no longer scheduled */
	/* When schedule.c first waited for its threads to be reaped (0:
	 * not yet), and whether it gave up on them. */
	uint64_t reap_wait_since_us;
	bool reap_given_up;
	bool syscall_stops;     /* attached: no seccomp filter, resume with
				 * PTRACE_SYSCALL and classify entry stops */
	/* A child that exec'd a program other than the main one (a test
	 * binary started by a script): its crash is the run's bug. */
	bool runs_other_program;
	/* A vfork child that has not exec'd yet: its parent sleeps in the
	 * kernel until it execs or exits (schedule.c's wake wait). */
	bool vfork_pending;
	/* Its alarm(2)/setitimer(ITIMER_REAL) timer in virtual time
	 * (virtual_alarm.c): due at this virtual ns (0: disarmed), or once
	 * its real time too has passed while nothing else can run; then
	 * again every interval ns. */
	uint64_t alarm_due_ns, alarm_real_due_us, alarm_interval_ns;
	uint32_t threads_created;       /* its threads so far, main included */
	/* The logical id of its first controlled thread: how traces name
	 * the process (sc_trace_thread_process). */
	uint32_t first_logical;
	/* Images that reached their entry point (1 for the first program,
	 * more after exec). */
	uint32_t images;
	/* Its executable mappings, own code or a system library's
	 * (code_ranges.c; read again when a pc is in none of them). */
	struct sc_code_range *code;
	size_t ncode;
};

struct sc_code_range {
	uint64_t start, end;
	bool own;               /* not a shared object of the system */
	bool glibc;             /* libc.so.6 or the dynamic loader */
	bool sanitizer;         /* libasan, libtsan, liblsan, libubsan... */
};

/* Whether pc is in a sanitizer's runtime library (code_ranges.c). */
bool sc_code_is_sanitizer(struct sc_process *p, uint64_t pc);
/* Whether pc is in the program's own code (code_ranges.c). */
bool sc_code_is_own(struct sc_process *p, uint64_t pc);
/* Whether pc is in glibc itself (libc.so.6, ld-linux-x86-64.so.2). */
bool sc_code_is_glibc(struct sc_process *p, uint64_t pc);
/* Forget the mappings (exec, exit). */
void sc_code_forget(struct sc_process *p);
/* Read them again from the maps (held ones if held); -1 when they
 * cannot be read. */
int sc_code_refresh(struct sc_process *p);
/* A malloc'ed copy of n ranges; NULL when n is 0 or out of memory. */
struct sc_code_range *sc_code_dup(const struct sc_code_range *r, size_t n);

/* x86-64 debug registers for data watchpoints. */
#define SC_WATCH_SLOTS 4

struct sc_thread {
	pid_t tid;
	struct sc_process *proc;
	uint32_t logical;
	bool controlled;
	enum th_state state;
	enum th_stop stop;
	struct sc_event next;           /* pending event while READY/BLOCKED */
	struct user_regs_struct regs;   /* valid while stopped */
	bool regs_dirty;                /* must PTRACE_SETREGS before resuming */
	struct user_regs_struct regs_read;      /* as last fetched */
	/* Its stack mapping (0, 0: not looked up) and the slots of it that
	 * other threads reached, watched (stack_watch.c). */
	uint64_t stack_lo, stack_hi;
	uint64_t watch_addr[SC_WATCH_SLOTS];
	uint8_t watch_size[SC_WATCH_SLOTS];
	uint32_t watch_hits[SC_WATCH_SLOTS];
	unsigned nwatch;
	int pending_signal;             /* deliver on the next resume */
	/* Kept stopped at its fault for a debugger (hand_over.c): resuming
	 * it is a no-op from then on. */
	bool held;

	/* Completion of a modelled syscall, applied when the thread resumes:
	 * skip the syscall and return ret. */
	bool skip_syscall;
	int64_t skip_ret;

	/* Modelled futex wait. */
	uint64_t wait_addr;
	uint32_t wait_val;              /* the value FUTEX_WAIT expected */
	uint32_t wait_bitset;
	bool wait_timed;
	/* A thread of ours sent it a signal while it was not waiting:
	 * its next FUTEX_WAIT looks whether one is still pending. */
	bool signal_sent;
	/* Replay: sliced and preempted as when recording (no recorded
	 * event left for it; SC_SLICE_AS_RECORDED). */
	bool sliced_as_recorded;
	/* Ready, but about to call pthread_spin_lock on a held spinlock:
	 * not a choice of the schedule (spin_model.c).  Set at each
	 * decision, so that it does not change while a thread runs. */
	bool spin_wait;
	uint64_t wait_seq;              /* wake order: oldest first */

	uint64_t clear_child_tid;       /* CLONE_CHILD_CLEARTID address */
	bool exit_record_pending;       /* THREAD_EXIT event emitted at reap */
	bool exit_recorded;             /* ... or at its exit stop (a leader) */
	uint64_t exit_step;

	/* Last libc sync call, for reports (deadlocks). */
	uint16_t last_call_kind;
	uint64_t last_call_object;
	uint64_t last_call_site;        /* return address of that call */

	uint64_t clone_child_tid;       /* child_tid of the clone being run */

	/* Slice accounting of the running thread (preempt.c): CPU time,
	 * never wall time, decides when it is looked at. */
	uint32_t slice_us;              /* this resume's slice */
	uint64_t resumed_us;            /* wall clock of the resume */
	/* Resumed into the clone or fork of its own event, until its next
	 * stop (at most until then, wall clock): an interrupt there would
	 * make the kernel restart the syscall, and its seccomp stop would
	 * come again as an event that no schedule holds.  0: not. */
	uint64_t own_syscall_until_us;
	/* The pc of a clone or fork event it executed whose child has not
	 * appeared yet (0: none).  A seccomp stop there again is the kernel
	 * restarting the call after a signal came first (ERESTARTNOINTR:
	 * xargs -P gets SIGCHLD while it forks), not a new event: a replay,
	 * where the signal comes at another time, sees one. */
	uint64_t spawn_pc;
	uint64_t next_check_us;         /* wall clock of the next look */
	uint64_t cpu_at_resume_ns;      /* process CPU clock; 0: not read */
	uint64_t cpu_at_check_ns;       /* at the last look */
	uint64_t slice_budget_ns;       /* CPU time before the next probe */
	/* Resumed from a spin preemption: looked at after its slice even
	 * when no other thread could run, so that a spin nothing can end
	 * shows up as a second one (schedule.c, endless_spin). */
	bool probe_after_spin;
	bool interrupt_pending;         /* PTRACE_INTERRUPT sent, its stop
					 * not seen yet */
	enum sc_probe probe;
	uint64_t probe_pc;              /* the probe breakpoint */
	bool probe_bp_planted;
	/* Interrupted inside a system library: the probe is at the return
	 * address in the program's own code (preempt.c); probe_in_library:
	 * that found nothing for long, the probe is at the pc itself. */
	bool probe_at_caller, probe_in_library;
	/* A computation used its budget: the probe waits at the return
	 * address of its function (probe_at_exit) so that the preemption is
	 * at an instruction that runs once, not a hot loop's (preempt.c);
	 * exit_tried: that waited too long, preempt in the loop. */
	bool probe_at_exit, exit_tried;
	size_t nprobe_hashes;
	uint64_t probe_hashes[64];      /* states seen at probe_pc */
	/* States at its last yields and sleeps (next.waits_in_place). */
	uint64_t wait_states[4];
	uint32_t nwait_states;
	/* A state seen twice, waiting to come back once more to be called
	 * a spin (sc_preempt_spin_check); 0: none.  spin_memory: the hash
	 * of the memory a spin leaves alone at its last occurrence. */
	uint64_t spin_candidate, spin_memory;
	uint32_t spin_confirm_hits;
	/* A load spin's state and memory (as above) at its last turn that
	 * looked endless (schedule.c: endless_spin); 0: none yet. */
	uint64_t load_spin_state, load_spin_memory;
	uint64_t preempt_regs[SC_PREEMPT_REGS]; /* of a budget preemption */
	/* Replay (preempt_replay.c): where to stop it, and how far it is. */
	struct sc_preempt_target target;
	uint64_t sample_regs[SC_PREEMPT_REGS];  /* first hit of a sample */
	int sample_hits;
	bool have_estimate;
	uint64_t hits_left;             /* estimated hits to the target */
	uint64_t estimate_cpu_ns;       /* CPU clock at that estimate */
	double top_hits_per_ns;         /* fastest progress measured so far */
	uint64_t scan_hits;             /* hits since the scan began */
	uint64_t scan_limit;
	uint64_t late_ns;               /* worst overrun of a free run */
	uint64_t replay_cpu0_ns;        /* process CPU clock at the resume */
	/* A released syscall gets a short window to return before the thread
	 * counts as blocked in the kernel: quick calls (a write to a file)
	 * then stay deterministic steps. */
	uint64_t release_step;          /* e->step when it was released */
	uint64_t preempt_step;          /* e->step when it was preempted */
	/* An absolute deadline of its released syscall moved to the real
	 * clock (kernel_deadline.c): where, and the program's bytes to put
	 * back at the syscall's exit; 0 when none. */
	uint64_t deadline_addr;
	uint64_t deadline_orig_ns;
	bool released;                  /* in a released syscall: its exit
					 * stop is an event (or the end of
					 * the quick window) */
	bool released_quick;
	uint64_t quick_deadline_us;
	/* In the kernel and runnable there (woken by another thread's
	 * write, or not asleep yet) since this time, 0 when asleep; waited
	 * for before each decision until WAKE_SETTLE_MAX_US (schedule.c),
	 * then no more for this syscall (wake_given_up). */
	uint64_t waking_since_us;
	bool wake_given_up;
	int stat_fd;            /* sc_thread_state_kept's, -1: not open */
	/* Released into a vfork (--follow-forks): the child's pid, whose
	 * exec or exit ends the parent's uninterruptible sleep; 0: none. */
	pid_t vfork_child;
	/* Its pending syscall_return is a poll's (select's, epoll_wait's)
	 * own timeout: offered only when no other thread can go on, as a
	 * timed wait of ours times out (schedule.c), not whenever the
	 * machine's timer fired. */
	bool timed_return;
	bool release_timed;             /* released with a timeout > 0 */
	/* cfg->virtual_timeouts: released without its timeout, which is a
	 * TIMEOUT event of the schedule (due in real time at vt_due_us);
	 * vt_firing: that event was taken, the thread interrupted, and its
	 * return gets the timeout's result. */
	bool vt_pending, vt_firing;
	/* Its next event is a yield at the clock function it is stopped
	 * at (vclock.c), answered when the yield is executed. */
	const char *clock_wait_fn;
	/* Its last events executed were this many reads or rmws of one
	 * instruction and address in a row (a busy-wait on a flag that is a
	 * scheduling point: race or mem granularity). */
	uint32_t mem_repeats;
	uint64_t mem_repeat_pc, mem_repeat_object;
	/* The rwlocks it read-locked and has not unlocked since, the
	 * latest SC_RD_HELD_MAX (deadlock.c names the readers: glibc keeps
	 * only their count). */
#define SC_RD_HELD_MAX 4
	uint64_t rd_held[SC_RD_HELD_MAX];
	uint8_t nrd_held;
	uint64_t vt_due_us;
	/* The virtual time (sc_vclock_now_ns) at which the timeout of its
	 * released syscall, or of its modelled futex wait, falls: a wait
	 * that ends by its timeout ends there (vclock.c). */
	uint64_t vt_due_vns, wait_due_vns;
};

/* One run. */
/* A program run to its entry point and left stopped there for a fork
 * server (fork_server.c): pid 0 when it did not get there. */
struct sc_parked {
	pid_t pid;
	uint64_t entry;
	struct user_regs_struct regs;
	/* What an exec'd run plants and reads at its entry, done once in
	 * the server (whose copies inherit the int3s): its breakpoints on
	 * libc (libc_ready) and, with vclock, the vDSO, and its modules. */
	struct sc_breakpoint *bps;
	size_t nbps;
	bool libc_ready, vclock;
	struct sc_module *mods;
	size_t nmods;
	/* Its executable mappings (code_ranges.c): each copy's at its
	 * start, so that its first breakpoint need not read its maps. */
	struct sc_code_range *code;
	size_t ncode;
	uint64_t tsc_reads;             /* the loader's rdtsc, before entry */
};

struct sc_engine {
	const struct sc_run_config *cfg;
	struct sc_run_result *res;

	struct sc_thread **threads;     /* controlled first?  no: by creation */
	size_t nthreads, cap_threads;
	struct sc_process **procs;
	size_t nprocs, cap_procs;

	struct sc_process *main_proc;
	pid_t main_pid;
	bool main_done;                 /* leader reaped */
	int main_status;

	struct sc_thread *running;      /* the controlled thread running now */
	/* Threads gone, by kernel tid: a deadlock report names the exited
	 * thread that still holds a mutex (deadlock.c). */
	struct sc_gone_thread { pid_t tid, pid; uint32_t logical; } *gone;
	size_t ngone, cap_gone;
	uint32_t next_logical;
	uint64_t step;
	uint64_t wait_seq;
	uint64_t cycle_checked_seq;     /* wait_seq at the last lock-cycle check */
	uint64_t vclock_skip_ns;        /* virtual time slept through (vclock.c) */
	uint64_t pending_ctid;          /* from the clone being executed */
	uint64_t random_drawn;          /* words of seeded randomness given */
	uint64_t early_random_drawn;    /* ... before the program's entry */
	uint64_t clock_reads;           /* answered by vclock.c */
	uint64_t tsc_reads;             /* rdtsc/rdtscp answered (vclock.c) */
	uint64_t mem_events;            /* memory events executed */
	/* The reads of a virtual clock since the last step, all by
	 * clock_streak_thread (vclock.c: cfg->clock_wait_reads). */
	uint64_t clock_streak_step;
	uint32_t clock_streak_thread;
	uint32_t clock_streak;
	uint64_t mem_steps;             /* steps that were memory events
					 * or frees (mem granularity) */
	uint64_t lone_steps;            /* other steps of the only thread
					 * that could run (no choice) */
	bool mem_lifted;                /* cfg->mem_event_cap reached */
	/* The thread whose spin preemption or in-place yield or sleep was
	 * the last event executed, UINT32_MAX when the last was another
	 * kind (schedule.c: a spin nothing can end). */
	uint32_t last_spin_thread;

	/* Deferred statuses: a new thread's first stop seen before its
	 * parent's clone event, or a death seen while single-stepping. */
	struct { pid_t tid; int status; } orphans[64];
	size_t norphans;

	int err_pipe;                   /* child's exec errno, CLOEXEC */
	uint64_t start_us;
	uint64_t deadline_us;           /* 0: none */
	/* This thread's run-queue wait when the run began (load_wait.c). */
	uint64_t own_delay_at_start_ns;
	/* A thread of ours in the kernel that a controlled thread has just
	 * sent a signal (tgkill): the next decision waits for it to come
	 * back, until this deadline, so that when it does is not timing. */
	pid_t await_tid;
	uint64_t await_deadline_us;
	/* Since when, at which step, every thread in the kernel has been
	 * seen asleep while a timed wait could time out (schedule.c). */
	uint64_t asleep_since_us;
	uint64_t asleep_step;
	bool exiting;                   /* the main process is dying */
	uint32_t nexiting;              /* controlled processes dying */
	bool attached;                  /* sc_attach: syscall stops, detach at the end */

	/* Crash candidate, recorded at the fatal signal's delivery stop. */
	bool fault_seen;
	int fault_signal;
	uint32_t fault_thread;
	uint64_t fault_pc;
	uint64_t fault_addr;
	/* SIGSEGV with si_code SI_KERNEL: a general-protection fault (a
	 * non-canonical pointer), for which the kernel gives no address. */
	bool fault_no_addr;
	/* SIGSEGV or SIGBUS sent by a process (kill, tgkill: si_code <= 0),
	 * not raised by a fault: si_addr holds the sender's pid then. */
	bool fault_sent;
	pid_t fault_sender;
	char fault_where[1024];
	char fault_stack[SC_STACKS_LEN];   /* the faulting thread's stack */
	char exit_stack[SC_STACKS_LEN];    /* of exit_group(non-zero) */
	char exit_where[512];           /* its first frame of the program's */
	bool exit_main_returned;        /* exit_where is main, which returned */
	/* The wait status of a followed child process that ran another
	 * program and died of a crash signal (0: none): the run's bug when
	 * the main process reports none of its own. */
	int child_crash_status;
	bool hand_over_now;                /* sc_run hands the process over */

	/* Tracer and target share one CPU (cfg->cpu); a replay's free run
	 * lifts that for the supervisor, whose wake-up would otherwise wait
	 * for the target's scheduler slice (preempt_replay.c). */
	bool pinned, unpinned;
	cpu_set_t unpinned_cpus;
	/* Meanwhile it runs at real-time priority, so that on a busy
	 * machine its wake-up does not wait behind other programs' slices
	 * while the target runs on (boosted: it does now). */
	bool boosted;

	bool finished;                  /* verdict decided */
	/* A fork server's start: stop at the entry point (sc_park_at_entry)
	 * and leave the process there. */
	bool park_at_entry;
	struct sc_parked parked;
	/* The run is a copy of cfg->fork_server's process: its own session
	 * and process group, the server outside them. */
	bool forked;
	bool no_emulation;              /* SCHEDCTL_NO_EMULATION: always single-step */
	/* Decoded memory instructions, one array per planting. */
	struct sc_mem_insn **mem_tables;
	size_t nmem_tables;
	bool diverged;

	/* scratch for views and wake lists */
	struct sc_thread_view *view_threads;
	uint32_t *view_enabled;
	struct sc_thread **view_map;
	size_t view_cap;
	uint32_t woken[4096];
	size_t nwoken;
};

/* ---- fork_server.c ---- */
/* Run cfg's program under control to its entry point and leave it
 * stopped there (engine.c); *parked says where. */
int sc_engine_park(const struct sc_run_config *cfg, struct sc_run_result *res,
		   struct sc_parked *parked);
void sc_park_at_entry(struct sc_engine *e, struct sc_thread *t);
/* A copy of the server, stopped at the entry with *regs; -1 when the
 * server failed (sc_fork_server_broken says why).  Its entry is still
 * patched: sc_fork_server_restore. */
pid_t sc_fork_server_fork(struct sc_fork_server *s,
			  struct user_regs_struct *regs);
/* Put the program's own bytes back at the entry of copy p (its memory
 * open, sc_mem_open); -1 when they cannot be written. */
int sc_fork_server_restore(const struct sc_fork_server *s,
			   struct sc_process *p);
/* Give the run's policy and trace the events before the entry. */
int sc_fork_server_prelude(struct sc_engine *e, struct sc_thread *t0);
/* The copy p (main process of a forked run) takes the server's planted
 * breakpoints as its own, and the run's trace its modules.  -1 (nothing
 * done) when the server's were planted for another configuration. */
int sc_fork_server_adopt(struct sc_engine *e, struct sc_process *p);
/* The waitpid(2) pid argument for every tracee of the run: -1, or the
 * run's process group when it is a fork server's copy. */
static inline pid_t sc_run_tracees(const struct sc_engine *e)
{
	return e->forked ? -e->main_pid : -1;
}
/* dispatch.c: what the engine does when the main thread reaches the
 * program's entry point. */
void sc_entry_reached(struct sc_engine *e, struct sc_thread *t);

/* ---- spawn.c ---- */
pid_t sc_spawn_traced(struct sc_engine *e, const char *path);
pid_t sc_spawn_native(const struct sc_run_config *cfg, const char *path, int *err_pipe);
void sc_child_setup_common(const struct sc_run_config *cfg);

/* ---- seccomp_filter.c ---- */
/* Build the filter (before fork); install it (in the child). */
int sc_seccomp_prepare(void);
int sc_install_seccomp_filter(void);
int sc_seccomp_trapped_syscalls(const int **list);

/* ---- memory.c ---- */
int sc_mem_open(struct sc_process *p);
void sc_mem_close(struct sc_process *p);
int sc_mem_read(struct sc_process *p, uint64_t addr, void *buf, size_t len);
int sc_mem_write(struct sc_process *p, uint64_t addr, const void *buf, size_t len);

/* ---- regs.c ---- */
int sc_regs_fetch(struct sc_thread *t);
int sc_regs_flush(struct sc_thread *t);
int sc_resume(struct sc_thread *t, int request);  /* PTRACE_CONT/SYSCALL */
int sc_resume_as_before(struct sc_thread *t);     /* by t->released */

/* ---- random.c ---- */
/* t stopped at getrandom(2), or at a read of /dev/urandom or
 * /dev/random: complete it with the run's seeded bytes (when
 * cfg->seeded_random) and resume t.  False for any other syscall. */
bool sc_random_syscall(struct sc_engine *e, struct sc_thread *t);
/* p's image is at its entry point: its AT_RANDOM bytes drawn from the
 * run's seed (when cfg->seeded_random). */
void sc_random_auxv(struct sc_engine *e, struct sc_process *p);

/* ---- affinity.c ---- */
/* t stopped at sched_getaffinity(2) or sched_setaffinity(2) on a thread
 * of its own process: complete it as if the run were not pinned (when
 * cfg->all_cpus) and resume t.  False for any other call. */
bool sc_affinity_syscall(struct sc_engine *e, struct sc_thread *t);

/* ---- race_sites.c ---- */
struct cs_insn;
/* Is pc the start of an instruction, judged from the code bytes
 * code[0, back + ahead) that start back bytes before it (linear sweeps
 * from several points before pc: most of them land on a real boundary)?
 * True when back is too short to judge.  cs is an open x86-64 capstone
 * handle (csh), in an instruction buffer of it. */
bool sc_insn_boundary(size_t cs, struct cs_insn *in, const uint8_t *code,
		      size_t back, size_t ahead, uint64_t pc);
/* The memory-accessing instruction of p that ends at end (a data
 * watchpoint stops a thread after the access): its address into *pc and
 * its description into *m (stack operands included).  false when the
 * instruction there is no memory access or cannot be told. */
bool sc_mem_insn_ending_at(struct sc_process *p, uint64_t end, uint64_t *pc,
			   struct sc_mem_insn *m);

/* ---- spin_model.c ---- */
/* Is t about to call pthread_spin_lock on a held spinlock, with
 * cfg->spin_model?  Reads the lock word: call it only while every thread
 * is stopped (at a decision). */
bool sc_spin_waits(const struct sc_engine *e, struct sc_thread *t);

/* Virtual time a scheduling step takes (vclock.c; schedule.c gives a
 * poll's virtual timeout as many steps as its time). */
#define SC_VCLOCK_STEP_NS 10000u
/* The run's virtual time now, in ns since its base (the clock reads so
 * far count; this look is not one). */
uint64_t sc_vclock_now_ns(const struct sc_engine *e);
/* Virtual time a budget preemption stands for: the CPU budget of a
 * computation at the default slice (preempt.c: 250 slices of 2 ms). */
#define SC_BUDGET_VNS 500000000ull
/* A thread whose next event repeats its last reads of one flag this many
 * times waits for another thread, as a spin preemption does (schedule.c). */
#define SC_MEM_SPIN_REPEATS 8
/* A wait that ended by its timeout ends when its time came: virtual
 * time moves on to due_vns if it is not there yet. */
void sc_vclock_advance_to(struct sc_engine *e, uint64_t due_vns);
/* What the program reads from clock now (without counting a read):
 * false for a clock the run does not make virtual. */
bool sc_vclock_clock_now_ns(const struct sc_engine *e, clockid_t clock,
			    uint64_t *ns);
/* The virtual time at which the absolute time at_ns of clock falls (0:
 * before the run's base, SC_TIMESPEC_MAX_NS or beyond, or a clock the
 * run does not make virtual). */
uint64_t sc_vclock_abs_vns(const struct sc_engine *e, clockid_t clock,
			   uint64_t at_ns);
/* Where a sleep that starts now (t at the entry of its nanosleep or
 * clock_nanosleep) ends in virtual time. */
uint64_t sc_vclock_sleep_end_vns(const struct sc_engine *e,
				 struct sc_thread *t);

/* ---- breakpoints.c ---- */
int sc_bp_add(struct sc_process *p, uint64_t addr, uint16_t kind,
	      uint8_t access, const char *name);
struct sc_breakpoint *sc_bp_find(struct sc_process *p, uint64_t addr);
/* The event kind of a memory access (enum sc_access). */
uint16_t sc_mem_event_kind(uint8_t access);
/* buf holds p's memory [addr, addr + len): put back the bytes our int3s
 * replaced there. */
void sc_bp_original_bytes(const struct sc_process *p, uint64_t addr,
			  uint8_t *buf, size_t len);
int sc_bp_remove(struct sc_process *p, uint64_t addr);
bool sc_bp_stale_trap(struct sc_thread *t);
/* An int3's SIGTRAP still queued for t (stopped for an interrupt). */
bool sc_bp_trap_pending(const struct sc_thread *t);
bool sc_deliver_own_sigtrap(struct sc_engine *e, struct sc_thread *t);
/* t stopped at a tgkill or tkill: its target thread and signal. */
bool sc_sends_signal(const struct sc_thread *t, pid_t *tid, int *sig);
/* Remove every memory-event breakpoint of p (mem_event_cap). */
void sc_bp_remove_mem(struct sc_process *p);
void sc_bp_clear(struct sc_process *p);
int sc_bp_step_over(struct sc_engine *e, struct sc_thread *t);
/* attach.c, used by grace.c too: every breakpoint out of p's memory; stop
 * a running thread (a breakpoint hit rewound); complete or undo what the
 * model did to a stopped thread's pending syscall so it can run free. */
void sc_bp_remove_all(struct sc_process *p);
void sc_thread_halt(struct sc_engine *e, struct sc_thread *t);
/* Stop every thread, remove every breakpoint, complete or undo modelled
 * syscalls, and PTRACE_DETACH every thread where it stands (attach.c). */
void sc_detach_everything(struct sc_engine *e);
/* hand_over.c: with cfg->hand_over, end the run here for a debugger
 * (true: the engine stops); sc_hand_over() leaves the process stopped
 * and detached. */
bool sc_hand_over_at_fault(struct sc_engine *e, struct sc_thread *t);
void sc_hand_over_at_exit(struct sc_engine *e, struct sc_thread *t);
void sc_hand_over(struct sc_engine *e);
void sc_thread_settle(struct sc_thread *t);
/* grace.c: a program ended early gets SIGTERM and a short time to run
 * free (its handlers remove temporary files) before the SIGKILL. */
void sc_grace_end(struct sc_engine *e);
int sc_bp_add_mem(struct sc_process *p, uint64_t lo, uint64_t hi, size_t n,
		  const uint64_t *addrs, size_t stride,
		  struct sc_mem_insn *table);

/* ---- emulate.c ---- */
bool sc_emulate_at_breakpoint(struct sc_thread *t, struct sc_breakpoint *bp);
uint64_t sc_reg_value(const struct user_regs_struct *r, int n);
/* Emulate the instruction at code (16 bytes) on r when it only touches
 * registers and flags (endbr64, mov imm, sub/cmp imm, mov r64 r64, jmp);
 * false, r untouched, for any other.  For tests. */
bool sc_emulate_code(const uint8_t code[16], struct user_regs_struct *r);

/* ---- dwarf_lines.c ---- */
/* A Rust module (its line tables name Rust's standard library): *out
 * gets the code of the program's own sources (neither the standard
 * library nor other system sources: sc_system_source), returns 1.
 * Else 0 and *out empty.  inlined_library: the library's lines within
 * the program's own compilation units count as its own (rules 6). */
int sc_dwarf_rust_own_ranges(const char *path, bool inlined_library,
			     struct sc_addr_ranges *out);
int sc_dwarf_source_ranges(const char *path, const char *const *sources,
			   struct sc_addr_ranges *out);
/* Source file (base name) and line of a file-relative address; *system
 * says whether the file is a system header (sc_system_source). */
int sc_dwarf_addr_line(const char *path, uint64_t vaddr, char *file,
		       size_t len, unsigned *line, bool *system);

/* ---- mem_decode.c / mem_instrument.c ---- */
struct cs_insn;
/* Which stack operands are no access of shared memory (the thread's own
 * stack): rsp-based ones, also rbp-based ones where rbp is the frame
 * pointer, or none (an instruction seen touching a stack slot another
 * thread reached: stack_watch.c). */
enum sc_stack_rule {
	SC_STACK_RSP,
	SC_STACK_RSP_RBP,
	SC_STACK_SHARED,
};
bool sc_mem_describe(const struct cs_insn *in, enum sc_stack_rule stack,
		     struct sc_mem_insn *m);
/* Length of the VEX- or EVEX-encoded instruction at c (n bytes there),
 * 0 when it is none or is cut short.  Capstone 4 leaves some AVX-512
 * instructions undecoded (vpcmpeqb %ymm19,%ymm16,%k0); a sweep that went
 * on a byte later decoded their middle as a memory access and put an
 * int3 inside them. */
size_t sc_vex_length(const uint8_t *c, size_t n);
/* How far a linear sweep goes past bytes Capstone did not decode: over a
 * VEX/EVEX instruction whole, else one byte (data in text, another
 * unknown opcode). */
size_t sc_undecoded_length(const uint8_t *c, size_t n);
/* ---- frame_functions.c ---- */
struct Elf;
/* The functions of elf that keep a frame pointer (push %rbp; mov
 * %rsp,%rbp), sorted; *known: the module has function symbols at all.
 * 0, or -1 when out of memory. */
int sc_frame_functions(struct Elf *elf, struct sc_addr_ranges *fp,
		       bool *known);
uint64_t sc_mem_effective_address(const struct sc_mem_insn *m,
				  const struct user_regs_struct *r, uint64_t pc);
/* Which instructions get a breakpoint. */
enum sc_sites {
	SC_SITES_MEMORY,        /* every access to non-stack memory (mem) */
	SC_SITES_ATOMIC,        /* atomic read-modify-writes only (sync) */
};
int sc_plant_mem_breakpoints(struct sc_engine *e, struct sc_process *p,
			     enum sc_sites which);
/* race_sites.c: breakpoints at cfg->race_pcs (race granularity); the
 * number planted, or -1 when out of memory. */
int sc_plant_race_breakpoints(struct sc_engine *e, struct sc_process *p);

/* ---- own_code.c ---- */
enum sc_runtime {
	SC_RUNTIME_NONE,        /* all of the module is the program's */
	SC_RUNTIME_GO,          /* Go: only the ranges of package main */
	SC_RUNTIME_GO_STRIPPED, /* Go without symbols: nothing is known */
};
bool sc_system_library(const char *path);
/* Is path a system program (/usr/bin, /bin, /usr/sbin, /sbin, or a
 * system library directory)? */
bool sc_system_program(const char *path);
/* Is the main executable exe of p's current image the program's own code,
 * to instrument?  Never an interpreter or shell (python, perl, sh, ...,
 * wherever installed); else not a system program, or the one the user
 * named (not a script's interpreter) as the first image of the main
 * process. */
bool sc_exe_is_own(const struct sc_engine *e, const struct sc_process *p,
		   const char *exe);
/* Is the shared library lib part of the runtime of interpreter exe (in
 * its installation: libpython of a pyenv python)? */
bool sc_runtime_library(const char *exe, const char *lib);
/* sc_exe_is_own of p's executable (/proc/PID/exe). */
bool sc_process_is_own(const struct sc_engine *e, const struct sc_process *p);

/* What of the ELF file is the program's own code: fills *only (file
 * addresses) for SC_RUNTIME_GO; free it with sc_addr_ranges_free. */
struct Elf;
enum sc_runtime sc_own_code(struct Elf *elf, struct sc_addr_ranges *only);
/* Remember, for the run's result, that a runtime limited what was
 * instrumented (engine.c). */
void sc_note_runtime(struct sc_engine *e, enum sc_runtime rt,
		     const char *path);
/* At the entry of process p: a JVM started without -XX:-UsePerfData
 * gets a notice (own_code.c). */
void sc_note_jvm(struct sc_engine *e, const struct sc_process *p);
void sc_mem_instrument_free(struct sc_engine *e);

/* ---- site_cache.c: decoded sites of a module, per job process ---- */
struct sc_mem_site {
	uint64_t addr;          /* relative to the module's load bias */
	struct sc_mem_insn insn;
};
struct sc_site_key {
	uint64_t dev, ino, size;
	int64_t mtime_s, mtime_ns;
	int which;              /* enum sc_sites */
	uint32_t rules;         /* sc_run_config.mem_sites */
	uint64_t sources;       /* hash of --instrument-source (mem only) */
};
int sc_site_key_of(const char *path, enum sc_sites which, uint32_t rules,
		   const char *const *sources, struct sc_site_key *k);
struct sc_module_sites {
	const struct sc_mem_site *v;
	size_t n;
	enum sc_runtime rt;     /* what sc_own_code() said of the module */
	bool dyn;               /* position independent: add the load base */
};
bool sc_site_cache_get(const struct sc_site_key *k, struct sc_module_sites *out);
void sc_site_cache_put(const struct sc_site_key *k,
		       const struct sc_module_sites *in);

/* ---- libc_syms.c ---- */
int sc_plant_libc_breakpoints(struct sc_process *p);
/* The breakpoint at libc's free (sc_run_config.free_events), per run:
 * not in a fork server's image, whose other runs must not stop there.
 * 0, or -1 when libc or its free is not found. */
int sc_plant_free_breakpoint(struct sc_process *p);
uint64_t sc_auxv_entry(pid_t pid);
/* The value of auxiliary vector entry type of pid (0: none). */
uint64_t sc_auxv_value(pid_t pid, uint64_t type);

/* ---- vclock.c ---- */
/* Breakpoints on the vDSO's clock functions of p; how many. */
int sc_plant_vclock_breakpoints(struct sc_process *p);
/* t, controlled, is at bp: when bp is a clock function's and
 * cfg->vclock, answer the call with the run's virtual time, resume t and
 * return true. */
bool sc_vclock_breakpoint(struct sc_engine *e, struct sc_thread *t,
			  const struct sc_breakpoint *bp);
/* t's yield at a clock function (cfg->clock_wait_reads) is executed:
 * answer the call (t resumes in its caller); false when t has none. */
bool sc_vclock_answer_wait(struct sc_engine *e, struct sc_thread *t);
/* t's next event is a memory event: mark it waits_in_place when it
 * repeats the load t made SC_MEM_SPIN_REPEATS times in a row (schedule.c). */
void sc_mem_spin_mark(struct sc_thread *t);
/* t got SIGSEGV: when it is an rdtsc or rdtscp that faulted because the
 * program runs with PR_TSC_SIGSEGV (cfg->vclock), answer it with the
 * virtual counter, resume t and return true. */
bool sc_vclock_tsc(struct sc_engine *e, struct sc_thread *t);

/* ---- stack_watch.c ---- */
/* t's memory event touches addr (size bytes): at mem granularity (rules
 * 4), when that is another stopped thread's stack, watch it there. */
void sc_watch_escape(struct sc_engine *e, struct sc_thread *t, uint64_t addr,
		     uint8_t size);
/* t stopped with SIGTRAP, its registers fetched: when its watchpoint
 * fired, make the access its pending memory event (or resume it) and
 * return true. */
bool sc_watch_hit(struct sc_engine *e, struct sc_thread *t);
/* t exec'ed: no watches, no stack known. */
void sc_watch_forget(struct sc_thread *t);

/* ---- maps.c ---- */
/* One file-backed mapping (path starting with '/') of /proc/PID/maps. */
struct sc_map_entry {
	uint64_t start, end, offset;
	const char *path;
	bool exec;                      /* mapped executable (r-x) */
};
/* Call fn for each file-backed mapping in address order until it returns
 * non-zero; returns that value (0 when it never stopped), -1 when the maps
 * cannot be read. */
int sc_maps_foreach(pid_t pid, int (*fn)(const struct sc_map_entry *m,
					 void *arg), void *arg);
/* Path and load base (start of the offset-0 mapping) of the first mapped
 * file whose path equals path_equal or whose file name starts with one of
 * name_prefixes (NULL-terminated; either may be NULL).  0, or -1. */
int sc_maps_find_module(pid_t pid, const char *path_equal,
			const char *const *name_prefixes, char *path,
			size_t len, uint64_t *base);
bool sc_maps_addr_shared(pid_t pid, uint64_t addr);
/* Is addr in an executable mapping of pid (a file's, the vDSO, a JIT's
 * anonymous code)?  false when the maps cannot be read. */
bool sc_maps_addr_executable(pid_t pid, uint64_t addr);
/* Bounds [lo, hi) of the stack mapping of pid ([stack] or anonymous)
 * that holds addr; 0, or -1 when none does. */
int sc_maps_stack_at(pid_t pid, uint64_t addr, uint64_t *lo, uint64_t *hi);
/* Read pid's maps once and answer the calls above for pid from that copy
 * until the matching sc_maps_release (holds nest; pid must be stopped
 * meanwhile).  0, or -1 (unreadable, or another pid is held): then the
 * calls read the file as before, and sc_maps_release must not be called. */
int sc_maps_hold(pid_t pid);
void sc_maps_release(void);

/* ---- symbolize.c ---- */
/* "func+0x1a (/path/prog)" or "0xADDR"; writes into buf. */
void sc_symbolize(pid_t pid, uint64_t addr, char *buf, size_t len);
/* addr named once per level of the calls inlined there, innermost first
 * (the inlined ones "function at file:line (module, inlined)"), at most
 * max; returns how many (at least 1 when max is). */
size_t sc_symbolize_frames(pid_t pid, uint64_t addr, char (*texts)[512],
			   size_t max, bool *systems);
/* sc_symbolize, and whether the line it names is in a system header. */
void sc_symbolize_code(pid_t pid, uint64_t addr, char *buf, size_t len,
		       bool *system);

/* The path of the file mapped at addr in pid; -1 when none is. */
int sc_addr_module(pid_t pid, uint64_t addr, char *path, size_t len);
/* The same, and the load address of that file's first byte (what its
 * file-relative addresses are relative to when it is position-
 * independent). */
int sc_addr_module_base(pid_t pid, uint64_t addr, char *path, size_t len,
			uint64_t *base);

/* One frame of a call stack (stack.c). */
struct sc_frame {
	uint64_t pc;
	bool own_code;                  /* not a shared object of the system */
	bool system_source;             /* its line is in a system header */
	char text[512];                 /* as sc_symbolize() names pc */
};

/* ---- main_return.c ---- */
/* Is own (the innermost frame of the program's own code in the stack of
 * pid's exit) its entry point, i.e. did main return the status?  Then
 * main's name and line into where. */
bool sc_main_returned(pid_t pid, const struct sc_frame *own, char *where,
		      size_t len);

/* Unwind thread tid of process pid (in a ptrace stop) into at most max
 * frames, innermost first; returns how many (0: cannot). */
size_t sc_stack_unwind(pid_t pid, pid_t tid, struct sc_frame *frames,
		       size_t max);
/* Where t, stopped inside a system library, returns to in the program's
 * own code (the innermost such frame); false when it has none. */
bool sc_stack_own_caller(struct sc_thread *t, uint64_t *pc);
/* The return address of t's innermost function (its caller's next
 * instruction): false when the stack cannot be unwound. */
bool sc_stack_return_address(struct sc_thread *t, uint64_t *pc);
/* Frames kept of a stack in a report; when there are more, the last
 * one says how many were left out. */
#define SC_STACK_FRAMES 64
/* Append frames to buf (NUL-terminated, len bytes in all) as lines
 * "T<thread> 0x<pc> <frame as sc_symbolize names it>", whole lines only;
 * returns how many were appended (sc_run_result.stacks). */
size_t sc_stack_format(uint32_t thread, const struct sc_frame *frames,
		       size_t n, char *buf, size_t len);
/* Unwind t (in a ptrace stop) and append its stack to buf so. */
size_t sc_stack_append(const struct sc_thread *t, char *buf, size_t len);
/* report_stacks.c: the stacks of every blocked thread (deadlock), or of
 * the running thread (stopped for it) and every stopped one (hang), into
 * e->res->stacks. */
void sc_report_blocked_stacks(struct sc_engine *e, bool in_kernel_too);
void sc_report_hang_stacks(struct sc_engine *e);
/* The innermost frame in the program's own code, or NULL. */
const struct sc_frame *sc_stack_own_frame(const struct sc_frame *frames,
					  size_t n);
/* The text of the first frame of the program's own code on the stack of
 * thread tid of pid (sc_stack_own_frame) into buf, for reports: not the
 * program's entry stub (_start), which inside exit's handlers gives the
 * innermost frame "during exit" instead; false, buf untouched, when
 * there is none. */
bool sc_stack_own_text(pid_t pid, pid_t tid, char *buf, size_t len);
/* Global data symbol containing addr ("lock_a"), or "0xADDR". */
void sc_symbolize_data(pid_t pid, uint64_t addr, char *buf, size_t len);
int sc_module_map(pid_t pid, struct sc_module **mods, size_t *n);
void sc_module_map_free(struct sc_module *mods, size_t n);

/* ---- wait_status.c ---- */
enum sc_stop_class {
	WS_EXITED,          /* WIFEXITED: task gone, code in exit status */
	WS_KILLED,          /* WIFSIGNALED: task gone by a signal */
	WS_SECCOMP,         /* PTRACE_EVENT_SECCOMP: before a trapped syscall */
	WS_SYSCALL,         /* SIGTRAP|0x80: syscall-exit of a released call */
	WS_CLONE,           /* PTRACE_EVENT_CLONE: new thread, tid in msg */
	WS_FORK,            /* PTRACE_EVENT_FORK/VFORK: new process */
	WS_VFORK_DONE,
	WS_EXEC,            /* PTRACE_EVENT_EXEC */
	WS_EXIT_EVENT,      /* PTRACE_EVENT_EXIT: about to die */
	WS_EVENT_STOP,      /* PTRACE_EVENT_STOP with SIGTRAP: interrupt or
			     * a new tracee's initial stop */
	WS_GROUP_STOP,      /* PTRACE_EVENT_STOP with a stopping signal */
	WS_SIGNAL,          /* signal-delivery-stop; signal in WSTOPSIG */
	WS_UNKNOWN,
};
enum sc_stop_class sc_classify_status(int status);

/* ---- syscall_event.c ---- */
/* Turn a controlled thread's seccomp stop into its pending event. */
void sc_syscall_event(struct sc_engine *e, struct sc_thread *t);

/* ---- futex_model.c ---- */
void sc_futex_execute(struct sc_engine *e, struct sc_thread *t);
void sc_futex_wake_clear_tid(struct sc_engine *e, struct sc_thread *dead);
void sc_futex_interrupt(struct sc_thread *w);
bool sc_futex_is_modelled(const struct sc_thread *t);

/* ---- engine.c helpers used by the model ---- */
struct sc_thread *sc_thread_by_tid(struct sc_engine *e, pid_t tid);
struct sc_thread *sc_thread_by_logical(struct sc_engine *e, uint32_t logical);
/* Ask the policy which of waiters (blocked threads) a wake releases;
 * returns the count and fills e->woken / updates their state. */
size_t sc_wake_waiters(struct sc_engine *e, struct sc_thread *waker,
		       uint64_t addr, uint32_t bitset, size_t nwake);
void sc_engine_abort(struct sc_engine *e, const char *why);
/* Queue a waitpid status to be dispatched by the main loop. */
void sc_engine_defer_status(struct sc_engine *e, pid_t tid, int status);

/* ---- virtual_alarm.c ---- */
/* alarm, setitimer or getitimer at t's seccomp stop: answered here
 * (virtual time) or left to the kernel; false for any other call. */
bool sc_alarm_syscall(struct sc_engine *e, struct sc_thread *t);
/* Send SIGALRM for each timer whose virtual time came (or, when idle,
 * its real time); true when one fired. */
bool sc_alarms_fire(struct sc_engine *e, bool idle);
/* Fire, in virtual time, the timers of ours due at or before vns (none
 * when vns is 0); true when one fired. */
bool sc_alarms_fire_by(struct sc_engine *e, uint64_t vns);
/* Real time until the first armed timer's real due time, 0: none. */
uint64_t sc_alarm_real_wait_us(struct sc_engine *e);
/* Has p a timer of ours (alarm, setitimer) that can still fire?  Then a
 * thread computing alone is preempted for its CPU budget as if another
 * thread could run: the budget's virtual time is what brings the timer's
 * time (QA: setitimer(10 ms), then `while (!stop) n++;` was a hang in
 * every run). */
bool sc_alarm_armed(const struct sc_process *p);

/* ---- dispatch.c: signals ---- */
/* A signal was just sent to target (a tgkill of the program's, a timer
 * of ours): wake it from a wait of our model, or have the next decision
 * wait for its return from the kernel. */
void sc_signal_sent_to(struct sc_engine *e, struct sc_thread *target, int sig);

/* ---- threads.c ---- */
struct sc_process *sc_process_of_pid(struct sc_engine *e, pid_t pid);
struct sc_process *sc_process_new(struct sc_engine *e, pid_t pid,
				  bool controlled);
struct sc_thread *sc_thread_new(struct sc_engine *e, pid_t tid,
				struct sc_process *p);
void sc_thread_remove(struct sc_engine *e, struct sc_thread *t);
void sc_process_remove(struct sc_engine *e, struct sc_process *p);
bool sc_process_has_threads(struct sc_engine *e, struct sc_process *p);
bool sc_process_has_other_threads(struct sc_engine *e,
				  const struct sc_thread *t);
void sc_process_exiting(struct sc_engine *e, struct sc_process *p);
bool sc_take_deferred(struct sc_engine *e, pid_t tid, pid_t *out_tid,
		      int *status);

/* ---- dispatch.c ---- */
void sc_dispatch(struct sc_engine *e, pid_t tid, int status);
/* Wait up to timeout_us (0: poll) for tracee statuses and dispatch them.
 * Returns 1 when something was dispatched, 0 on timeout. */
int sc_wait_any(struct sc_engine *e, uint64_t timeout_us);
void sc_start_running(struct sc_engine *e, struct sc_thread *t, int request);
void sc_become_ready(struct sc_engine *e, struct sc_thread *t);
void sc_note_fault(struct sc_engine *e, struct sc_thread *t, int sig);
/* If sig, about to be delivered to t, ends its process (a fault, or a
 * signal whose default action ends it): sc_note_fault it and return true
 * (dispatch.c). */
bool sc_note_if_ends_process(struct sc_engine *e, struct sc_thread *t,
			     int sig);
/* Is a controlled thread other than t able to run now (ready, or a timed
 * waiter that could time out)? */
bool sc_other_can_run(struct sc_engine *e, const struct sc_thread *t);

/* ---- load_wait.c ---- */
/* Note where the supervisor's run-queue wait stands as the run begins. */
void sc_load_wait_start(struct sc_engine *e);
/* The deadline has come: move it by the time the run waited for a CPU
 * (the machine's load); true when it moved past now. */
bool sc_load_wait_extend(struct sc_engine *e);

/* ---- preempt.c ---- */
/* The hash of the probe's states: v (the 8-byte words of p) into h. */
uint64_t sc_state_mix(uint64_t h, uint64_t v);
uint64_t sc_state_mix_bytes(uint64_t h, const uint8_t *p, size_t n);
void sc_preempt_state_words(const struct sc_thread *t,
			    uint64_t w[SC_PREEMPT_REGS]);
uint64_t sc_preempt_state_hash(struct sc_thread *t);
uint64_t sc_preempt_full_hash(struct sc_thread *t, uint64_t regs_hash);
bool sc_preempt_seen_before(struct sc_thread *t, uint64_t full, bool *full_up);
enum sc_spin { SC_SPIN_UNSURE, SC_SPIN_YES, SC_SPIN_NO };
/* A hit of the probe with state full: is the thread spinning (YES), making
 * progress in memory though its state repeats (NO), or not known yet? */
enum sc_spin sc_preempt_spin_check(struct sc_thread *t, uint64_t full,
				   bool *full_up);
/* ---- spin_memory.c ---- */
/* Hash of the memory where a loop keeps its progress (t stopped). */
uint64_t sc_spin_memory_hash(struct sc_thread *t);
int sc_preempt_plant_bp(struct sc_thread *t, uint64_t pc);
void sc_preempt_remove_bp(struct sc_thread *t);
uint64_t sc_preempt_cpu_used(struct sc_thread *t);
void sc_preempt_here(struct sc_engine *e, struct sc_thread *t,
		     uint64_t state, uint8_t flags);
void sc_preempt_go_on(struct sc_engine *e, struct sc_thread *t);
/* ---- preempt_replay.c ---- */
/* Hits of the recorded pc left until the registers `want`, judged from
 * two consecutive hits a and b (SC_PREEMPT_REGS values each); false when
 * no register counts the loop. */
bool sc_preempt_hits_left(const uint64_t *a, const uint64_t *b,
			  const uint64_t *want, uint64_t *k);
void sc_preempt_replay_sample(struct sc_engine *e, struct sc_thread *t);
void sc_engine_unboost(struct sc_engine *e);
void sc_preempt_replay_hit(struct sc_engine *e, struct sc_thread *t);
void sc_preempt_probe_begin(struct sc_thread *t, enum sc_probe why);
void sc_preempt_replay_arm(struct sc_engine *e, struct sc_thread *t);
void sc_preempt_cancel(struct sc_thread *t);
/* The probe at a library call's return address waited too long: probe
 * inside the library, at the pc (preempt.c). */
void sc_preempt_caller_expired(struct sc_thread *t);
/* The probe at a computation's return address waited too long: preempt
 * in the computation after all (preempt.c). */
void sc_preempt_exit_expired(struct sc_thread *t);
/* A hit of a thread's probe breakpoint (rip rewound to it): true when
 * handled. */
bool sc_preempt_on_breakpoint(struct sc_engine *e, struct sc_thread *t,
			      uint64_t addr);
/* A PTRACE_EVENT_STOP of a thread we interrupted: true when handled. */
bool sc_preempt_on_interrupt(struct sc_engine *e, struct sc_thread *t);
bool sc_is_restart(const struct user_regs_struct *r);

/* ---- schedule.c ---- */
void sc_schedule_one(struct sc_engine *e);
void sc_emit_event(struct sc_engine *e, struct sc_event *ev);

/* ---- engine.c ---- */
void sc_engine_loop(struct sc_engine *e);
void sc_verdict_from_status(struct sc_engine *e);
void sc_engine_free(struct sc_engine *e);
#include <sched.h>
int sc_pin_cpu(int cpu, cpu_set_t *saved);

/* ---- deadlock.c ---- */
void sc_report_deadlock(struct sc_engine *e);
/* How long threads in the kernel must be seen asleep there before that
 * counts (a timed wait may time out, a signal wait is lost): one that is
 * merely quick in the kernel is back long before. */
#define SC_ASLEEP_GRACE_US 20000
/* ---- lost_signal.c ---- */
/* Has pid created timer_create(2) timers?  Their signals are the
 * kernel's, in real time.  Unreadable: as if it had. */
bool sc_has_posix_timers(pid_t pid);
/* "pause", "sigsuspend" or "sigwait" when t is in the kernel (released,
 * or awaited as the only live thread) in a call that only a signal ends;
 * else NULL. */
const char *sc_signal_wait_name(const struct sc_thread *t);
/* Every controlled thread waits: in our futex model without a timeout,
 * or asleep in the kernel in a signal wait (at least one), and no timer
 * of the program's and no child outside the run can send a signal: the
 * signals they wait for are lost.  The caller has let a while pass since
 * the last thread went to sleep. */
bool sc_signals_lost(const struct sc_engine *e);
/* spinner, the one thread that can run, spins where nothing can change
 * what it waits for: the run is a hang now (verdict, message, stacks). */
void sc_report_endless_spin(struct sc_engine *e, struct sc_thread *spinner);
/* Do threads blocked in pthread_mutex_lock wait for each other in a
 * cycle (each for a mutex the next one holds)?  Then the run ends as
 * that deadlock even while other threads can still run (a heartbeat, an
 * idle pool): true.  Looked at only when a thread blocked since. */
bool sc_lock_cycle_ends_run(struct sc_engine *e);

/* ---- kernel_deadline.c ---- */
/* t enters a syscall that goes to the kernel with an absolute deadline
 * the program took from the virtual clock: move it to the real clock. */
void sc_kernel_deadline_to_real(struct sc_engine *e, struct sc_thread *t);
/* At that syscall's exit: the program's deadline back. */
void sc_kernel_deadline_restore(struct sc_thread *t);

/* ---- time.c ---- */
uint64_t sc_now_us(void);
uint64_t sc_process_cpu_ns(pid_t pid);
char sc_thread_state(pid_t pid, pid_t tid);
/* The same for t, through a descriptor of its stat file kept open
 * (t->stat_fd, closed by sc_thread_remove): for the wake wait, which
 * looks at every thread in a released syscall before each decision. */
char sc_thread_state_kept(struct sc_thread *t);
/* The parent pid of process pid (/proc/PID/stat), 0 when unreadable. */
pid_t sc_process_parent(pid_t pid);
/* sleep_kind.c: the timeout (us) of the poll-like syscall t enters,
 * made infinite by sc_syscall_untime; sc_syscall_time_out gives an
 * interrupted one its timeout's result; sc_syscall_timed_out: the one
 * t returned from ended by its own timeout. */
uint64_t sc_syscall_timeout_us(struct sc_thread *t);
void sc_syscall_untime(struct sc_thread *t);
void sc_syscall_time_out(struct sc_thread *t);
bool sc_syscall_timed_out(const struct user_regs_struct *r);
/* The struct timespec at addr in p's memory (a timeout, a sleep, an
 * absolute deadline), in ns: false when addr is null or unreadable or the
 * value is one the kernel refuses.  Longer than SC_TIMESPEC_MAX_NS: that
 * much. */
#define SC_TIMESPEC_MAX_NS (UINT64_MAX / 4)
bool sc_read_timespec_ns(struct sc_process *p, uint64_t addr, uint64_t *ns);
bool sc_asleep_for_good(pid_t pid, pid_t tid);
/* The thread's own pending and blocked signal sets (bit sig-1), from
 * /proc; -1 when unreadable. */
/* The same, and the process's ignored and caught (handled) sets. */
int sc_thread_signal_sets(pid_t pid, pid_t tid, uint64_t *pending,
			  uint64_t *blocked, uint64_t *ignored,
			  uint64_t *caught);
int sc_thread_signals(pid_t pid, pid_t tid, uint64_t *pending,
		      uint64_t *blocked);

#endif /* SCHEDCTL_TRACER_INTERNAL_H */
