/*
 * analysis.h - the public interface of libanalysis: reading trace files
 * (and, later, happens-before, fingerprints, races and exports).
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
	uint8_t size;
	uint64_t object;
	uint64_t pc;
	uint32_t enabled;
	uint32_t nwoken;
	uint32_t woken_offset;  /* index into sc_trace.wake_pool */
};

struct sc_trace_module {
	char *path;
	uint8_t *build_id;
	size_t build_id_len;
	uint64_t load_address;
	uint64_t size;
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
	uint64_t max_steps;
	uint32_t timeout_ms;
	bool eager_timeouts;
	/* last module map seen */
	struct sc_trace_module *modules;
	size_t nmodules;
	/* events */
	struct sc_trace_event *events;
	size_t nevents;
	uint32_t *wake_pool;
	size_t nwake_pool;
	/* footer */
	bool has_footer;
	enum sc_verdict verdict;    /* SC_VERDICT_UNKNOWN without footer */
	uint64_t steps;
	uint32_t threads;
	uint64_t wall_us;
	char *message;
	char *location;
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

/* Write the trace as one JSON object {"header":{..},"modules":[..],
 * "events":[..],"footer":{..},"truncated":bool} to out. */
int sc_trace_export_json(const struct sc_trace *t, FILE *out);

#endif /* SCHEDCTL_ANALYSIS_H */
