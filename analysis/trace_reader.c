/*
 * trace_reader.c - reads schedctl trace files (docs/schedctl-trace.5) into
 * a struct sc_trace.
 *
 * The input is untrusted (it is fuzzed): every length, index and count is
 * checked before use.  A file that ends inside a record is a supervisor
 * killed mid-write: the whole records before it are kept and the trace is
 * marked truncated.  Anything else that does not follow the format is
 * rejected with one line naming the problem and its byte offset.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "analysis.h"
#include "fnv.h"
#include "trace.pb-c.h"

/* Must match tracer/trace_writer.c. */
static const uint8_t trace_magic[8] = {'S', 'C', 'T', 'R', 'A', 'C', 'E', '\0'};
#define TRACE_VERSION 1
#define TRACE_PREAMBLE 9                /* magic + version byte */
/* The writer's records are a few KiB; anything this long is garbage, and
 * the cap bounds what one record can make us allocate. */
#define RECORD_MAX ((uint64_t)64 << 20)

struct loader {
	const char *name;               /* file name for messages */
	char *err;
	size_t errlen;
	struct sc_trace *t;
	size_t events_cap, pool_cap, regs_cap, maps_cap, procs_cap;
	bool have_header, have_events;
	uint64_t next_step;             /* step the next batch must start at */
	uint64_t prev_object, prev_pc;  /* delta bases across batches */
};

__attribute__((format(printf, 3, 4)))
static void set_err(char *err, size_t errlen, const char *fmt, ...)
{
	if (!err || !errlen)
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
}

/* "NAME: corrupt trace: WHAT at byte OFF"; always returns -1. */
__attribute__((format(printf, 3, 4)))
static int corrupt(struct loader *ld, uint64_t off, const char *fmt, ...)
{
	char what[256];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	set_err(ld->err, ld->errlen, "%s: corrupt trace: %s at byte %llu",
		ld->name, what, (unsigned long long)off);
	return -1;
}

static int oom(struct loader *ld)
{
	set_err(ld->err, ld->errlen, "%s: out of memory", ld->name);
	return -1;
}

/* Copy a decoded string; absent strings become "" so that users of
 * struct sc_trace never see NULL. */
static int dup_str(struct loader *ld, char **dst, const char *src)
{
	*dst = strdup(src ? src : "");
	return *dst ? 0 : oom(ld);
}

/* Grow *arr (of elem-sized items, capacity *cap) to hold need items. */
static int grow(struct loader *ld, void **arr, size_t *cap, size_t need,
		size_t elem)
{
	if (need <= *cap)
		return 0;
	size_t c = *cap ? *cap : 256;
	while (c < need)
		c = c > SIZE_MAX / 2 ? need : c * 2;
	if (c > SIZE_MAX / elem)
		return oom(ld);
	void *p = realloc(*arr, c * elem);
	if (!p)
		return oom(ld);
	*arr = p;
	*cap = c;
	return 0;
}

static void free_modules(struct sc_trace_module *m, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(m[i].path);
		free(m[i].build_id);
	}
	free(m);
}

static uint64_t map_id(const struct sc_trace_module *m, size_t n)
{
	uint64_t h = SC_FNV_OFFSET;
	for (size_t i = 0; i < n; i++) {
		h = sc_fnv_str(h, m[i].path);
		h = sc_fnv_bytes(h, &m[i].load_address,
				 sizeof(m[i].load_address));
	}
	return h;
}

/* Add a module map (the header's, or a ModuleMap after an exec) of
 * process from step at_step on; it is the trace's last one.  An empty map
 * (the modules could not be read) names nothing and is not kept. */
static int add_modules(struct loader *ld, Sctrace__Module **src, size_t n,
		       uint32_t process, uint64_t at_step)
{
	struct sc_trace *t = ld->t;
	if (!n)
		return 0;
	if (grow(ld, (void **)&t->maps, &ld->maps_cap, t->nmaps + 1,
		 sizeof(*t->maps)) < 0)
		return -1;
	struct sc_trace_module *m = calloc(n, sizeof(*m));
	if (!m)
		return oom(ld);
	for (size_t i = 0; i < n; i++) {
		const Sctrace__Module *s = src[i];
		if (dup_str(ld, &m[i].path, s->path) < 0)
			goto fail;
		if (s->has_build_id && s->build_id.len) {
			m[i].build_id = malloc(s->build_id.len);
			if (!m[i].build_id) {
				oom(ld);
				goto fail;
			}
			memcpy(m[i].build_id, s->build_id.data, s->build_id.len);
			m[i].build_id_len = s->build_id.len;
		}
		m[i].load_address = s->load_address;
		m[i].size = s->size;
	}
	t->maps[t->nmaps++] = (struct sc_trace_map){
		.process = process, .at_step = at_step, .id = map_id(m, n),
		.modules = m, .nmodules = n,
	};
	t->modules = m;
	t->nmodules = n;
	return 0;
fail:
	free_modules(m, n);
	return -1;
}

/* A NULL-terminated copy of n strings. */
static int dup_strv(struct loader *ld, char ***out, char **v, size_t n)
{
	char **c = calloc(n + 1, sizeof(*c));

	if (!c)
		return oom(ld);
	*out = c;
	for (size_t i = 0; i < n; i++)
		if (dup_str(ld, &c[i], v[i]) < 0)
			return -1;
	return 0;
}

static void free_strv(char **v)
{
	for (size_t i = 0; v && v[i]; i++)
		free(v[i]);
	free(v);
}

static int take_header(struct loader *ld, const Sctrace__Header *h,
		       uint64_t off)
{
	struct sc_trace *t = ld->t;
	if (dup_str(ld, &t->tool_version, h->tool_version) < 0 ||
	    dup_str(ld, &t->cwd, h->cwd) < 0 ||
	    dup_str(ld, &t->strategy, h->strategy) < 0 ||
	    dup_str(ld, &t->strategy_params, h->strategy_params) < 0 ||
	    dup_str(ld, &t->granularity, h->granularity) < 0)
		return -1;
	if (dup_strv(ld, &t->instrument_modules, h->instrument_modules,
		     h->n_instrument_modules) < 0 ||
	    dup_strv(ld, &t->instrument_sources, h->instrument_sources,
		     h->n_instrument_sources) < 0)
		return -1;
	if (h->has_env_z) {
		if (sc_env_unpack(h->env_z.data, h->env_z.len, h->env_len,
				  &t->env) < 0)
			return corrupt(ld, off,
				       "undecodable compressed environment");
	} else if (dup_strv(ld, &t->env, h->env, h->n_env) < 0) {
		return -1;
	}
	t->argv = calloc(h->n_argv + 1, sizeof(*t->argv));
	if (!t->argv)
		return oom(ld);
	for (size_t i = 0; i < h->n_argv; i++) {
		if (dup_str(ld, &t->argv[i], h->argv[i]) < 0)
			return -1;
		t->argc = i + 1;
	}
	t->env_digest = h->env_digest;
	t->follow_forks = h->has_follow_forks && h->follow_forks;
	t->seed = h->seed;
	t->base_seed = h->base_seed;
	t->run_index = h->run_index;
	t->max_steps = h->max_steps;
	t->timeout_ms = h->timeout_ms;
	t->eager_timeouts = h->eager_timeouts;
	t->slice_us = h->has_slice_us ? h->slice_us : 0;
	if (h->stdin_file) {
		if (dup_str(ld, &t->stdin_file, h->stdin_file) < 0)
			return -1;
		t->stdin_size = h->stdin_size;
	}
	t->atomics = h->has_atomics && h->atomics;
	t->own_libraries = h->has_own_libraries && h->own_libraries;
	t->seeded_random = h->has_seeded_random && h->seeded_random;
	t->spin_model = h->has_spin_model && h->spin_model;
	t->skip_glibc_sync = h->has_skip_glibc_sync && h->skip_glibc_sync;
	t->all_cpus = h->has_all_cpus && h->all_cpus;
	t->mem_sites = h->has_mem_sites ? h->mem_sites : 0;
	t->clock_realtime_ns = h->has_clock_realtime_ns ? h->clock_realtime_ns : 0;
	t->clock_monotonic_ns = h->has_clock_monotonic_ns ? h->clock_monotonic_ns : 0;
	t->mem_site_cap = h->has_mem_site_cap ? h->mem_site_cap : 0;
	t->free_events = h->has_free_events && h->free_events;
	t->virtual_timeouts = h->has_virtual_timeouts && h->virtual_timeouts;
	t->clock_wait_reads = h->has_clock_wait_reads ? h->clock_wait_reads : 0;
	t->attached = h->has_attached && h->attached;
	t->mem_event_cap = h->has_mem_event_cap ? h->mem_event_cap : 0;
	if (h->n_race_pcs) {
		t->race_pcs = malloc(h->n_race_pcs * sizeof(*t->race_pcs));
		if (!t->race_pcs)
			return oom(ld);
		memcpy(t->race_pcs, h->race_pcs,
		       h->n_race_pcs * sizeof(*t->race_pcs));
		t->nrace_pcs = h->n_race_pcs;
	}
	return add_modules(ld, h->modules, h->n_modules, 0, 0);
}

static int take_footer(struct loader *ld, const Sctrace__Footer *f)
{
	struct sc_trace *t = ld->t;
	/* free() first: dup_str is also how the no-footer defaults are set. */
	free(t->message);
	free(t->location);
	free(t->stacks);
	t->message = t->location = t->stacks = NULL;
	if (dup_str(ld, &t->message, f->message) < 0 ||
	    dup_str(ld, &t->location, f->location) < 0 ||
	    dup_str(ld, &t->stacks, f->stacks) < 0)
		return -1;
	t->has_footer = true;
	/* A verdict from a newer writer reads as unknown. */
	unsigned v = (unsigned)f->verdict;
	t->verdict = v <= SC_VERDICT_DIVERGED ? (enum sc_verdict)v
					      : SC_VERDICT_UNKNOWN;
	t->steps = f->steps;
	t->threads = f->threads;
	t->wall_us = f->wall_us;
	t->exit_status = f->exit_status;
	t->signal = f->signal;
	t->fault_thread = f->fault_thread;
	t->fault_pc = f->fault_pc;
	return 0;
}

/* Check a batch's columns against each other, then append its events. */
static int take_batch(struct loader *ld, const Sctrace__EventBatch *b,
		      uint64_t off)
{
	struct sc_trace *t = ld->t;
	size_t n = b->n_thread;
	if (b->n_kind_access != n || b->n_object_delta != n ||
	    b->n_pc_delta != n || b->n_enabled != n)
		return corrupt(ld, off, "event batch with columns of different "
			       "lengths (%zu threads, %zu kinds, %zu objects, "
			       "%zu pcs, %zu enabled)", n, b->n_kind_access,
			       b->n_object_delta, b->n_pc_delta, b->n_enabled);
	if (b->n_size && b->n_size != n)
		return corrupt(ld, off, "event batch with %zu sizes for %zu "
			       "events", b->n_size, n);
	if (b->n_wake_index != b->n_wake_count)
		return corrupt(ld, off, "event batch with %zu wake indexes but "
			       "%zu wake counts", b->n_wake_index,
			       b->n_wake_count);

	if (b->n_preempt_state != b->n_preempt_index ||
	    b->n_preempt_cpu_ns != b->n_preempt_index ||
	    b->n_preempt_flags != b->n_preempt_index)
		return corrupt(ld, off, "event batch with %zu preemption "
			       "indexes but %zu states, %zu CPU times and %zu "
			       "flags", b->n_preempt_index, b->n_preempt_state,
			       b->n_preempt_cpu_ns, b->n_preempt_flags);
	size_t nbudget = 0;
	for (size_t j = 0; j < b->n_preempt_index; j++) {
		uint32_t idx = b->preempt_index[j];
		if (b->preempt_flags[j] & SC_PREEMPT_BUDGET)
			nbudget++;
		if (idx >= n || (j && idx <= b->preempt_index[j - 1]))
			return corrupt(ld, off, "preemption state for event %u "
				       "of a batch of %zu out of order or range",
				       idx, n);
		if ((b->kind_access[idx] >> 2) != SC_EV_PREEMPT)
			return corrupt(ld, off, "preemption state for event %u, "
				       "which is not a preemption", idx);
	}

	if (b->n_preempt_regs != nbudget * SC_PREEMPT_REGS)
		return corrupt(ld, off, "event batch with %zu preemption "
			       "registers for %zu computations",
			       b->n_preempt_regs, nbudget);

	uint64_t woken = 0;
	for (size_t j = 0; j < b->n_wake_index; j++) {
		uint32_t idx = b->wake_index[j];
		if (idx >= n)
			return corrupt(ld, off, "wake list for event %u of a "
				       "batch of %zu", idx, n);
		if (j && idx <= b->wake_index[j - 1])
			return corrupt(ld, off, "wake lists out of order "
				       "(event %u after event %u)", idx,
				       b->wake_index[j - 1]);
		woken += b->wake_count[j];
	}
	if (woken != b->n_wake_threads)
		return corrupt(ld, off, "wake counts add up to %llu threads "
			       "but the batch lists %zu",
			       (unsigned long long)woken, b->n_wake_threads);
	if (n == 0)
		return 0;

	uint64_t first = b->has_first_step ? b->first_step : 0;
	if (ld->have_events && first != ld->next_step)
		return corrupt(ld, off, "event batch starts at step %llu, "
			       "expected %llu", (unsigned long long)first,
			       (unsigned long long)ld->next_step);
	if (first > UINT64_MAX - n)
		return corrupt(ld, off, "step numbers overflow");
	for (size_t i = 0; i < n; i++) {
		if (b->kind_access[i] >> 2 > UINT16_MAX)
			return corrupt(ld, off, "event kind %u out of range",
				       b->kind_access[i] >> 2);
		if (b->n_call_site && b->n_call_site != n)
			return corrupt(ld, off, "event batch of %zu events with "
				       "%zu call sites", n, b->n_call_site);
		/* A memory access is at most 64 bytes (an AVX-512
		 * operand); a free event's block at most 1 MiB. */
		if (b->n_size && b->size[i] > ((b->kind_access[i] >> 2) ==
					       SC_EV_FREE ? (1u << 20)
							  : UINT8_MAX))
			return corrupt(ld, off, "access size %u out of range",
				       b->size[i]);
	}
	/* woken_offset is 32-bit. */
	if (woken > UINT32_MAX - t->nwake_pool)
		return corrupt(ld, off, "too many woken threads");
	if (n > SIZE_MAX - t->nevents)
		return oom(ld);

	if (b->n_preempt_regs > UINT32_MAX - t->nregs_pool)
		return corrupt(ld, off, "too many preemption registers");
	if (grow(ld, (void **)&t->regs_pool, &ld->regs_cap,
		 t->nregs_pool + b->n_preempt_regs, sizeof(*t->regs_pool)) < 0)
		return -1;
	if (grow(ld, (void **)&t->events, &ld->events_cap, t->nevents + n,
		 sizeof(*t->events)) < 0 ||
	    grow(ld, (void **)&t->wake_pool, &ld->pool_cap,
		 t->nwake_pool + (size_t)woken, sizeof(*t->wake_pool)) < 0)
		return -1;

	size_t w = 0, pool = t->nwake_pool, pj = 0, regs_used = 0;
	for (size_t i = 0; i < n; i++) {
		struct sc_trace_event *e = &t->events[t->nevents + i];
		memset(e, 0, sizeof(*e));
		e->step = first + i;
		e->thread = b->thread[i];
		e->kind = (uint16_t)(b->kind_access[i] >> 2);
		e->access = (uint8_t)(b->kind_access[i] & 3);
		e->size = b->n_size ? b->size[i] : 0;
		/* Deltas wrap modulo 2^64, as the writer computed them. */
		ld->prev_object += (uint64_t)b->object_delta[i];
		ld->prev_pc += (uint64_t)b->pc_delta[i];
		e->object = ld->prev_object;
		e->pc = ld->prev_pc;
		e->enabled = b->enabled[i];
		e->call_site = b->n_call_site ? b->call_site[i] : 0;
		if (w < b->n_wake_index && b->wake_index[w] == i) {
			e->nwoken = b->wake_count[w];
			e->woken_offset = (uint32_t)pool;
			pool += b->wake_count[w];
			w++;
		}
		if (pj < b->n_preempt_index && b->preempt_index[pj] == i) {
			e->state = b->preempt_state[pj];
			e->cpu_ns = b->preempt_cpu_ns[pj];
			e->preempt_flags = (uint8_t)b->preempt_flags[pj];
			if (e->preempt_flags & SC_PREEMPT_BUDGET) {
				e->has_regs = true;
				e->regs_offset = (uint32_t)t->nregs_pool;
				memcpy(t->regs_pool + t->nregs_pool,
				       b->preempt_regs + regs_used,
				       SC_PREEMPT_REGS * sizeof(uint64_t));
				t->nregs_pool += SC_PREEMPT_REGS;
				regs_used += SC_PREEMPT_REGS;
			}
			pj++;
		}
	}
	if (b->n_wake_threads)
		memcpy(t->wake_pool + t->nwake_pool, b->wake_threads,
		       b->n_wake_threads * sizeof(*t->wake_pool));
	t->nwake_pool += b->n_wake_threads;
	t->nevents += n;
	ld->have_events = true;
	ld->next_step = first + n;
	return 0;
}

/* The most threads a trace can name a process for: hb_rules.c's limit. */
#define PROCESS_THREADS_MAX (1u << 20)

static int take_thread_process(struct loader *ld,
			       const Sctrace__ThreadProcess *tp, uint64_t off)
{
	struct sc_trace *t = ld->t;
	if (!tp->has_thread || !tp->has_process)
		return corrupt(ld, off, "thread's process without %s",
			       tp->has_thread ? "a process" : "a thread");
	if (tp->thread >= PROCESS_THREADS_MAX ||
	    tp->process >= PROCESS_THREADS_MAX)
		return corrupt(ld, off, "thread %u of process %u is over "
			       "the limit of %u threads", tp->thread,
			       tp->process, PROCESS_THREADS_MAX);
	size_t n = t->nthread_process;
	if (tp->thread >= n) {
		if (grow(ld, (void **)&t->thread_process, &ld->procs_cap,
			 tp->thread + 1, sizeof(*t->thread_process)) < 0)
			return -1;
		/* Threads not named: the first process's. */
		memset(t->thread_process + n, 0,
		       (tp->thread + 1 - n) * sizeof(*t->thread_process));
		t->nthread_process = tp->thread + 1;
	}
	t->thread_process[tp->thread] = tp->process;
	return 0;
}

/* Dispatch one unpacked record. */
static int take_record(struct loader *ld, const Sctrace__Record *rec,
		       uint64_t off)
{
	int kinds = !!rec->header + !!rec->events + !!rec->footer +
		    !!rec->modules + !!rec->thread_process;
	/* A record type added by a newer writer: skip it. */
	if (kinds == 0)
		return 0;
	if (kinds > 1)
		return corrupt(ld, off, "record holds %d payloads", kinds);
	if (rec->header) {
		if (ld->have_header)
			return corrupt(ld, off, "second header");
		ld->have_header = true;
		return take_header(ld, rec->header, off);
	}
	if (!ld->have_header)
		return corrupt(ld, off, "missing header (first record is %s)",
			       rec->events ? "an event batch"
			       : rec->footer ? "a footer"
			       : rec->modules ? "a module map"
			       : "a thread's process");
	if (ld->t->has_footer)
		return corrupt(ld, off, "%s",
			       rec->events ? "events after the footer"
			       : rec->footer ? "second footer"
			       : rec->modules ? "module map after the footer"
			       : "thread's process after the footer");
	if (rec->events)
		return take_batch(ld, rec->events, off);
	if (rec->footer)
		return take_footer(ld, rec->footer);
	if (rec->thread_process)
		return take_thread_process(ld, rec->thread_process, off);
	const Sctrace__ModuleMap *mm = rec->modules;
	return add_modules(ld, mm->modules, mm->n_modules,
			   mm->has_process ? mm->process : 0, mm->at_step);
}

/* Decode the varint record length at buf[off..len).  Returns 1 with *v and
 * *used set, 0 when the input ends inside it, -1 when it is malformed. */
static int get_length(const uint8_t *buf, size_t len, size_t off,
		      uint64_t *v, size_t *used)
{
	uint64_t x = 0;
	/* 5 bytes hold 35 bits, more than RECORD_MAX needs. */
	for (size_t i = 0; i < 5; i++) {
		if (off + i >= len)
			return 0;
		x |= (uint64_t)(buf[off + i] & 0x7f) << (7 * i);
		if (!(buf[off + i] & 0x80)) {
			*v = x;
			*used = i + 1;
			return 1;
		}
	}
	return -1;
}

static int parse(struct loader *ld, const uint8_t *buf, size_t len)
{
	struct sc_trace *t = ld->t;
	size_t head = len < sizeof(trace_magic) ? len : sizeof(trace_magic);
	if (memcmp(buf, trace_magic, head) != 0) {
		set_err(ld->err, ld->errlen,
			"%s: not a schedctl trace (bad magic)", ld->name);
		return -1;
	}
	if (len < TRACE_PREAMBLE) {
		set_err(ld->err, ld->errlen, "%s: no header (empty trace)",
			ld->name);
		return -1;
	}
	if (buf[8] != TRACE_VERSION) {
		set_err(ld->err, ld->errlen, "%s: trace format version %u, "
			"this schedctl reads version %d", ld->name, buf[8],
			TRACE_VERSION);
		return -1;
	}

	size_t off = TRACE_PREAMBLE;
	while (off < len) {
		uint64_t rlen;
		size_t used;
		int r = get_length(buf, len, off, &rlen, &used);
		if (r < 0)
			return corrupt(ld, off, "malformed record length");
		if (r > 0 && rlen > RECORD_MAX)
			return corrupt(ld, off, "record length %llu over the "
				       "%llu limit", (unsigned long long)rlen,
				       (unsigned long long)RECORD_MAX);
		if (r == 0 || rlen > len - off - used) {
			t->truncated = true;
			break;
		}
		Sctrace__Record *rec = sctrace__record__unpack(
			NULL, (size_t)rlen, buf + off + used);
		if (!rec)
			return corrupt(ld, off, "record does not unpack");
		r = take_record(ld, rec, off);
		sctrace__record__free_unpacked(rec, NULL);
		if (r < 0)
			return -1;
		off += used + (size_t)rlen;
	}
	t->valid_bytes = off;

	if (!ld->have_header) {
		set_err(ld->err, ld->errlen, t->truncated
			? "%s: no header (the file ends inside it: a truncated "
			  "trace)" : "%s: no header (empty trace)", ld->name);
		return -1;
	}
	if (!t->has_footer) {
		t->verdict = SC_VERDICT_UNKNOWN;
		if (dup_str(ld, &t->message, NULL) < 0 ||
		    dup_str(ld, &t->location, NULL) < 0 ||
		    dup_str(ld, &t->stacks, NULL) < 0)
			return -1;
	}
	return 0;
}

static int load(const char *name, const uint8_t *buf, size_t len,
		struct sc_trace *t, char *err, size_t errlen)
{
	struct loader ld = {
		.name = name, .err = err, .errlen = errlen, .t = t,
	};
	memset(t, 0, sizeof(*t));
	if (parse(&ld, buf, len) < 0) {
		sc_trace_free(t);
		return -1;
	}
	return 0;
}

int sc_trace_load_buffer(const uint8_t *buf, size_t len, struct sc_trace *t,
			 char *err, size_t errlen)
{
	if (!buf)
		len = 0;
	static const uint8_t none[1];
	return load("trace", buf ? buf : none, len, t, err, errlen);
}

/* Read all of fd; a growing buffer rather than mmap so that a trace that
 * is being written or truncated meanwhile cannot fault. */
static int read_all(int fd, uint8_t **out, size_t *outlen)
{
	struct stat st;
	size_t cap = 65536;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0 &&
	    (uint64_t)st.st_size < SIZE_MAX - 1)
		cap = (size_t)st.st_size + 1;
	uint8_t *buf = malloc(cap);
	if (!buf)
		return -1;
	size_t len = 0;
	for (;;) {
		if (len == cap) {
			if (cap > SIZE_MAX / 2) {
				free(buf);
				errno = ENOMEM;
				return -1;
			}
			uint8_t *p = realloc(buf, cap * 2);
			if (!p) {
				free(buf);
				return -1;
			}
			buf = p;
			cap *= 2;
		}
		ssize_t r = read(fd, buf + len, cap - len);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			int e = errno;
			free(buf);
			errno = e;
			return -1;
		}
		if (r == 0)
			break;
		len += (size_t)r;
		/* Not a trace: the rest is not read (QA: replay, export and
		 * analyze of /dev/zero grew without bound until the OOM
		 * killer came).  parse() reports the bad magic. */
		if (len >= sizeof(trace_magic) &&
		    memcmp(buf, trace_magic, sizeof(trace_magic)) != 0)
			break;
	}
	*out = buf;
	*outlen = len;
	return 0;
}

int sc_trace_load(const char *path, struct sc_trace *t, char *err,
		  size_t errlen)
{
	memset(t, 0, sizeof(*t));
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		set_err(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	uint8_t *buf;
	size_t len;
	if (read_all(fd, &buf, &len) < 0) {
		set_err(err, errlen, "%s: %s", path, strerror(errno));
		close(fd);
		return -1;
	}
	close(fd);
	int r = load(path, buf, len, t, err, errlen);
	free(buf);
	return r;
}

uint32_t sc_trace_process_of(const struct sc_trace *t, uint32_t thread)
{
	return thread < t->nthread_process ? t->thread_process[thread] : 0;
}

const struct sc_trace_map *sc_trace_map_at(const struct sc_trace *t,
					   uint32_t thread, uint64_t step)
{
	uint32_t process = sc_trace_process_of(t, thread);
	const struct sc_trace_map *first = NULL, *at = NULL;

	for (size_t i = 0; i < t->nmaps; i++) {
		const struct sc_trace_map *m = &t->maps[i];
		if (m->process != process)
			continue;
		if (!first)
			first = m;
		if (m->at_step <= step)
			at = m;
	}
	if (at)
		return at;
	if (first)
		return first;
	return t->nmaps ? &t->maps[t->nmaps - 1] : NULL;
}

const struct sc_trace_map *sc_trace_event_map(const struct sc_trace *t,
					      const struct sc_trace_event *e)
{
	return sc_trace_map_at(t, e->thread, e->step);
}

void sc_trace_free(struct sc_trace *t)
{
	if (!t)
		return;
	free(t->tool_version);
	if (t->argv)
		for (size_t i = 0; i < t->argc; i++)
			free(t->argv[i]);
	free(t->argv);
	free(t->cwd);
	free(t->stdin_file);
	free(t->strategy);
	free(t->strategy_params);
	free(t->granularity);
	free(t->race_pcs);
	free_strv(t->instrument_modules);
	free_strv(t->instrument_sources);
	free_strv(t->env);
	for (size_t i = 0; i < t->nmaps; i++)
		free_modules(t->maps[i].modules, t->maps[i].nmodules);
	free(t->maps);
	free(t->thread_process);
	free(t->events);
	free(t->wake_pool);
	free(t->regs_pool);
	free(t->message);
	free(t->location);
	free(t->stacks);
	memset(t, 0, sizeof(*t));
}
