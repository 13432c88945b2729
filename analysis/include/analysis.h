/*
 * analysis.h - the public interface of libanalysis: reading trace files
 * and the analyses built on them: happens-before, partial-order
 * fingerprints, data races, coverage, exports.
 * Needs no daemon.
 */
#ifndef SCHEDCTL_ANALYSIS_H
#define SCHEDCTL_ANALYSIS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "tracer.h"

/* One event as read back; woken points into sc_trace.wake_pool. */
struct sc_trace_event {
	uint64_t step;
	uint32_t thread;
	uint16_t kind;
	uint8_t access;
	uint32_t size;          /* mem: access bytes; free: the block's */
	uint64_t object;
	uint64_t pc;
	uint64_t call_site;     /* library-call events: caller's return, or 0 */
	uint32_t enabled;
	uint32_t nwoken;
	uint32_t woken_offset;  /* index into sc_trace.wake_pool */
	/* preempt events of newer traces: where the thread was stopped */
	uint64_t state;         /* 0: not recorded (older traces) */
	uint64_t cpu_ns;
	uint8_t preempt_flags;  /* SC_PREEMPT_* */
	bool has_regs;          /* budget preemptions: regs_offset is valid */
	uint32_t regs_offset;   /* index into sc_trace.regs_pool */
};

struct sc_trace_module {
	char *path;
	uint8_t *build_id;
	size_t build_id_len;
	uint64_t load_address;
	uint64_t size;
};

/* One module map: the modules of one process from a step on (the header's,
 * or a ModuleMap record after an exec or a --follow-forks child's exec). */
struct sc_trace_map {
	uint32_t process;       /* the logical id of its first thread */
	uint64_t at_step;
	uint64_t id;            /* a hash of its paths and addresses: equal
				 * maps of two traces have the same id */
	struct sc_trace_module *modules;
	size_t nmodules;
};

/* A whole trace file in memory. */
struct sc_trace {
	/* header */
	char *tool_version;
	char **argv;            /* NULL-terminated */
	size_t argc;
	char *cwd;
	uint64_t env_digest;
	char *strategy;
	char *strategy_params;
	uint64_t seed;
	uint64_t base_seed;
	uint32_t run_index;
	char *granularity;
	char **instrument_modules;  /* NULL-terminated, never NULL */
	char **instrument_sources;
	bool follow_forks;
	char **env;                 /* recorded environment, NULL-terminated
				     * (empty when the trace has none) */
	uint64_t max_steps;
	uint32_t timeout_ms;
	bool eager_timeouts;
	uint32_t slice_us;          /* 0: not recorded (the default) */
	/* The program's standard input as recorded (NULL: /dev/null; a
	 * relative path is relative to the trace's directory), its size. */
	char *stdin_file;
	uint64_t stdin_size;
	bool atomics;               /* sync: atomic RMWs were points */
	bool seeded_random;         /* getrandom gave seed-derived bytes */
	bool spin_model;            /* held spinlocks blocked their waiters */
	bool skip_glibc_sync;       /* glibc's own lock calls were no events */
	bool all_cpus;              /* sched_getaffinity showed every CPU */
	uint32_t mem_sites;         /* decoding rules of memory sites */
	/* Virtual clock bases; both 0: the program read the real clock. */
	uint64_t clock_realtime_ns, clock_monotonic_ns;
	uint32_t mem_event_cap;     /* mem: points lifted after so many */
	uint32_t mem_site_cap;      /* mem: a site lifted after so many */
	bool free_events;           /* mem: free(3) calls are events */
	bool virtual_timeouts;      /* polls' timeouts were events */
	uint32_t clock_wait_reads;  /* clock busy-waits yielded (vclock.c) */
	bool attached;              /* recorded by schedctl attach */
	bool own_libraries;         /* mem: the program's own libraries too */
	uint64_t *race_pcs;         /* race: the instructions scheduled */
	size_t nrace_pcs;
	/* every module map, in trace order; modules and nmodules are the
	 * last one's (the program's, for a trace of one process) */
	struct sc_trace_map *maps;
	size_t nmaps;
	struct sc_trace_module *modules;
	size_t nmodules;
	/* --follow-forks: by logical thread id, the process it ran in (the
	 * logical id of that process's first thread); a thread beyond
	 * nthread_process is of the first process (0) */
	uint32_t *thread_process;
	size_t nthread_process;
	/* events */
	struct sc_trace_event *events;
	size_t nevents;
	uint32_t *wake_pool;
	size_t nwake_pool;
	uint64_t *regs_pool;        /* SC_PREEMPT_REGS values per budget preemption */
	size_t nregs_pool;
	/* footer */
	bool has_footer;
	enum sc_verdict verdict;    /* SC_VERDICT_UNKNOWN without footer */
	uint64_t steps;
	uint32_t threads;
	uint64_t wall_us;
	char *message;
	char *location;
	char *stacks;               /* "T<n> 0x<pc> <frame>" lines, or "" */
	int32_t exit_status;
	int32_t signal;
	uint32_t fault_thread;
	uint64_t fault_pc;
	/* reading */
	bool truncated;             /* file ended inside a record */
	uint64_t valid_bytes;       /* bytes up to the last whole record */
};

/* Read a trace file.  Returns 0 and fills *t (free with sc_trace_free) on
 * success, including a truncated tail (t->truncated set, the whole records
 * before it kept).  Returns -1 with a one-line reason in err for anything
 * else: missing file, not a trace (bad magic), unsupported version,
 * corrupt record (with its byte offset). */
int sc_trace_load(const char *path, struct sc_trace *t, char *err,
		  size_t errlen);
/* Same from memory (used by the fuzzer and tests). */
int sc_trace_load_buffer(const uint8_t *buf, size_t len, struct sc_trace *t,
			 char *err, size_t errlen);
void sc_trace_free(struct sc_trace *t);

/* The process (the logical id of its first thread) thread ran in. */
uint32_t sc_trace_process_of(const struct sc_trace *t, uint32_t thread);
/* The module map to name an event of thread at step by: its process's
 * last map at or before step (or that process's first map, or the trace's
 * last map when the process has none).  NULL when the trace has no map. */
const struct sc_trace_map *sc_trace_map_at(const struct sc_trace *t,
					   uint32_t thread, uint64_t step);
/* The same for the event e. */
const struct sc_trace_map *sc_trace_event_map(const struct sc_trace *t,
					      const struct sc_trace_event *e);

/* Write the trace as one JSON object {"header":{..},"modules":[..],
 * "events":[..],"footer":{..},"truncated":bool} to out. */
int sc_trace_export_json(const struct sc_trace *t, FILE *out);

/* ---- partial orders, races, sessions (analyze) ---- */

/* The partial-order fingerprint of a run (fingerprint.c): equal for two
 * runs iff they are partial-order equivalent (same events per thread, same
 * order of every pair of conflicting events), up to hash collisions.
 * Returns 0, or -1 with a one-line reason. */
int sc_trace_fingerprint(const struct sc_trace *t, uint64_t *fp, char *err,
			 size_t errlen);

/* Which events a partial order is made of.  ALL: every event, libc's own
 * futex and syscall traffic included (the design's definition).  PROGRAM:
 * only what the program itself did: its calls of the pthread/C11
 * functions and its memory accesses; whether pthread_join found the
 * thread gone or had to sleep on its tid word is then not a difference. */
enum sc_po_view {
	SC_PO_ALL = 0,
	SC_PO_PROGRAM = 1,
};
int sc_trace_fingerprint_view(const struct sc_trace *t, enum sc_po_view view,
			      uint64_t *fp, char *err, size_t errlen);
/* 0 on success, -1 for an unknown name ("all", "program"). */
int sc_po_view_parse(const char *name, enum sc_po_view *out);

/* The instructions of the run that took part in a data race (either side
 * of a pair race_detect finds), sorted and distinct, as *pcs (malloc'd,
 * NULL when none) and *n (racing_pcs.c): what race granularity schedules
 * in the later runs of a session.  Returns 0, or -1 with a one-line
 * reason. */
int sc_trace_racing_pcs(const struct sc_trace *t, uint64_t **pcs, size_t *n,
			char *err, size_t errlen);

/* Program counters and data addresses to names (symbolizer.c). */
struct sc_symbolizer;
struct sc_symbol {
	const char *location;   /* "file:line", else "module+0xOFF", else
				 * "0xADDR" (data: "variable[+0xOFF]") */
	const char *function;   /* enclosing function, or "" */
	bool has_line;          /* location is file:line */
	bool in_program;        /* ... of the program's own source, not a
				 * system header's or a language library's */
	/* The source file of the pc's own line when it is a system
	 * header's or a language library's (the code of std::atomic inlined
	 * into the program's line that location names), else NULL. */
	const char *system_file;
};
/* name into out (len bytes), for a line of text: as it is when at most
 * max characters, else with every template argument list written "<...>"
 * (std::map<...>::operator[](std::__cxx11::basic_string<...> const&)). */
void sc_short_name(const char *name, size_t max, char *out, size_t len);
struct sc_symbolizer *sc_symbolizer_new(void);
void sc_symbolizer_free(struct sc_symbolizer *s);
/* The strings stay valid until sc_symbolizer_free.  Returns 0, or -1 when
 * out of memory (out then holds "?"). */
int sc_symbolizer_pc(struct sc_symbolizer *s, const struct sc_trace_module *mods,
		 size_t nmods, uint64_t pc, struct sc_symbol *out);
int sc_symbolizer_data(struct sc_symbolizer *s,
		      const struct sc_trace_module *mods, size_t nmods,
		      uint64_t addr, struct sc_symbol *out);
/* The same with the module map of event e's process at its step
 * (sc_trace_event_map): a pc or an address the event's thread saw. */
int sc_symbolizer_event_pc(struct sc_symbolizer *s, const struct sc_trace *t,
			   const struct sc_trace_event *e, uint64_t pc,
			   struct sc_symbol *out);
int sc_symbolizer_event_data(struct sc_symbolizer *s,
			     const struct sc_trace *t,
			     const struct sc_trace_event *e, uint64_t addr,
			     struct sc_symbol *out);

/* A statement pair that raced (session.c).  first <= second by location. */
struct sc_race_pair {
	const char *first, *second;                     /* file:line ... */
	const char *first_function, *second_function;   /* or "" */
	uint64_t count;         /* racing event pairs, all runs */
	uint32_t runs;          /* runs in which the pair raced */
	uint32_t first_run;     /* 1-based position of the first such run */
};

/* One point of the coverage curve: after the run at position run
 * (1-based, in analysis order). */
struct sc_coverage_point {
	uint32_t run;
	uint64_t distinct_partial_orders;
	uint64_t distinct_race_pairs;
};

/* Figures of a set of runs.  Arrays are owned by the analysis. */
struct sc_analysis_result {
	uint64_t runs, events;
	uint64_t truncated_runs;                /* analysed up to a torn tail */
	uint64_t mem_runs;                      /* runs with memory events */
	uint64_t distinct_partial_orders;
	uint64_t seen_once, seen_twice;         /* f1, f2 */
	double estimated_unseen_partial_orders; /* Chao1: f1^2/(2 f2) */
	double probability_next_new;            /* Good-Turing: f1/N */
	uint64_t verdicts[SC_VERDICT_DIVERGED + 1];
	const struct sc_race_pair *races;       /* most frequent first */
	size_t nraces;
	const struct sc_coverage_point *coverage;
	size_t ncoverage;
};

struct sc_analysis;
struct sc_analysis *sc_analysis_new(void);
/* Before the first add: which events the partial orders are made of. */
void sc_analysis_set_view(struct sc_analysis *a, enum sc_po_view view);
void sc_analysis_free(struct sc_analysis *a);
/* Add one run.  Runs may come in any order; sc_analysis_result sorts them
 * by (base seed, run index, name) so that sharded sessions analysed
 * together give the figures of one session.  Returns 0, or -1 with a
 * one-line reason (the trace is then not counted). */
int sc_analysis_add(struct sc_analysis *a, const struct sc_trace *t,
		    const char *name, char *err, size_t errlen);
/* Compute the figures (valid until the next add or free); NULL when out
 * of memory. */
const struct sc_analysis_result *sc_analysis_result(struct sc_analysis *a);

/* Reports (analyze_report.c): the `analyze --json` object of
 * docs/schedctl.1, and the human-readable text. */
int sc_analysis_write_json(const struct sc_analysis_result *r, FILE *out);
int sc_analysis_write_text(const struct sc_analysis_result *r, FILE *out);
/* Coverage over runs (coverage_files.c): CSV "run,distinct_partial_orders,
 * distinct_race_pairs" and an SVG line plot of both. */
int sc_coverage_write_csv(const struct sc_analysis_result *r, FILE *out);
int sc_coverage_write_svg(const struct sc_analysis_result *r, FILE *out);

/* ---- exports ---- */

/* Chrome trace-event JSON (Perfetto, chrome://tracing): one track per
 * logical thread, one complete event per trace event at ts = step; the
 * failing event of a buggy run is named "BUG: ..." in category "bug".
 * sym may be NULL (no source lines). */
int sc_trace_export_chrome(const struct sc_trace *t, struct sc_symbolizer *sym,
			   FILE *out);
/* Graphviz DOT of the run's partial order: program order between
 * consecutive events of a thread, happens-before and conflict edges
 * across threads, transitively reduced.  Returns -1 with err set when the
 * trace is too large to draw (max_events; 0: 20000). */
int sc_trace_export_dot(const struct sc_trace *t, struct sc_symbolizer *sym,
			size_t max_events, FILE *out, char *err, size_t errlen);

#endif /* SCHEDCTL_ANALYSIS_H */
