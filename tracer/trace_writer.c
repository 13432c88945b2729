/*
 * trace_writer.c - writes schedctl trace files (docs/schedctl-trace.5).
 *
 * Layout: the magic "SCTRACE\0" and the version byte, then records, each a
 * varint length and a packed sctrace.Record.  The header is written at
 * create time and events are buffered into batches of SC_BATCH_MAX, stored
 * as columns with object and pc delta-encoded against the previous event of
 * the file.  Every record goes to the kernel with one write(2) as soon as it
 * is complete, so a supervisor killed at any point leaves whole records
 * followed by at most one partial record, which readers drop as a truncated
 * tail.  After a failed write nothing more is written: appending after a
 * partial record would turn a clean truncation into corruption.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tracer.h"
#include "trace.pb-c.h"

/* The file starts with "SCTRACE\0" and the format version byte; the reader
 * (analysis/trace_reader.c) checks the same bytes. */
#define SC_TRACE_PREAMBLE 9
#define SC_TRACE_MAGIC_BYTES {'S', 'C', 'T', 'R', 'A', 'C', 'E', '\0', 0x01}
/* Events per EventBatch record. */
#define SC_BATCH_MAX 256
/* Readers reject longer records as corrupt. */
#define SC_RECORD_MAX ((size_t)64 << 20)
#define SC_VARINT_MAX 10

struct sc_trace_writer {
	int fd;
	int error;                      /* sticky errno of a failed write */
	bool started;                   /* an event was appended */
	uint64_t next_step;             /* step the next event must have */
	uint64_t prev_object, prev_pc;  /* delta bases, carried across batches */

	/* pending batch, as columns */
	size_t n;
	uint64_t first_step;
	bool any_size;
	bool any_call_site;
	uint32_t thread[SC_BATCH_MAX];
	uint32_t kind_access[SC_BATCH_MAX];
	int64_t object_delta[SC_BATCH_MAX];
	int64_t pc_delta[SC_BATCH_MAX];
	uint32_t enabled[SC_BATCH_MAX];
	uint32_t size[SC_BATCH_MAX];
	uint64_t call_site[SC_BATCH_MAX];
	size_t nwake;
	uint32_t wake_index[SC_BATCH_MAX];
	uint32_t wake_count[SC_BATCH_MAX];
	uint32_t *wake_threads;
	size_t nwake_threads, wake_threads_cap;
	size_t npreempt;
	uint32_t preempt_index[SC_BATCH_MAX];
	uint64_t preempt_state[SC_BATCH_MAX];
	uint64_t preempt_cpu_ns[SC_BATCH_MAX];
	uint32_t preempt_flags[SC_BATCH_MAX];
	uint64_t *preempt_regs;
	size_t npreempt_regs, preempt_regs_cap;

	/* output buffer reused for every record */
	uint8_t *buf;
	size_t bufcap;
};

/* write(2) all of buf, retrying on EINTR and short writes. */
static int write_all(int fd, const uint8_t *buf, size_t len)
{
	while (len > 0) {
		ssize_t r = write(fd, buf, len);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		if (r == 0) {
			errno = EIO;
			return -1;
		}
		buf += r;
		len -= (size_t)r;
	}
	return 0;
}

static size_t put_varint(uint8_t *out, uint64_t v)
{
	size_t n = 0;
	while (v >= 0x80) {
		out[n++] = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	out[n++] = (uint8_t)v;
	return n;
}

/* Make room for need bytes in w->buf. */
static int reserve(struct sc_trace_writer *w, size_t need)
{
	if (need <= w->bufcap)
		return 0;
	size_t cap = w->bufcap ? w->bufcap : 4096;
	while (cap < need) {
		if (cap > SIZE_MAX / 2) {
			errno = ENOMEM;
			return -1;
		}
		cap *= 2;
	}
	uint8_t *p = realloc(w->buf, cap);
	if (!p)
		return -1;
	w->buf = p;
	w->bufcap = cap;
	return 0;
}

/* Frame and write one record, preceded by prefix (the magic) if any, with
 * a single write(2) in the normal case. */
static int write_record(struct sc_trace_writer *w, const Sctrace__Record *rec,
			const uint8_t *prefix, size_t prefix_len)
{
	if (w->error) {
		errno = w->error;
		return -1;
	}
	size_t len = sctrace__record__get_packed_size(rec);
	if (len > SC_RECORD_MAX) {
		errno = EFBIG;
		return -1;
	}
	if (reserve(w, prefix_len + SC_VARINT_MAX + len) < 0)
		return -1;
	size_t off = 0;
	if (prefix_len) {
		memcpy(w->buf, prefix, prefix_len);
		off = prefix_len;
	}
	off += put_varint(w->buf + off, len);
	off += sctrace__record__pack(rec, w->buf + off);
	if (write_all(w->fd, w->buf, off) < 0) {
		w->error = errno;
		return -1;
	}
	return 0;
}

static int flush_batch(struct sc_trace_writer *w)
{
	if (w->n == 0)
		return w->error ? (errno = w->error, -1) : 0;

	Sctrace__EventBatch b = SCTRACE__EVENT_BATCH__INIT;
	b.has_first_step = true;
	b.first_step = w->first_step;
	b.n_thread = b.n_kind_access = b.n_object_delta = b.n_pc_delta =
		b.n_enabled = w->n;
	b.thread = w->thread;
	b.kind_access = w->kind_access;
	b.object_delta = w->object_delta;
	b.pc_delta = w->pc_delta;
	b.enabled = w->enabled;
	b.n_wake_index = b.n_wake_count = w->nwake;
	b.wake_index = w->wake_index;
	b.wake_count = w->wake_count;
	b.n_wake_threads = w->nwake_threads;
	b.wake_threads = w->wake_threads;
	b.n_preempt_index = b.n_preempt_state = b.n_preempt_cpu_ns =
		b.n_preempt_flags = w->npreempt;
	b.preempt_index = w->preempt_index;
	b.preempt_state = w->preempt_state;
	b.preempt_cpu_ns = w->preempt_cpu_ns;
	b.preempt_flags = w->preempt_flags;
	b.n_preempt_regs = w->npreempt_regs;
	b.preempt_regs = w->preempt_regs;
	/* Sync traces have no sizes: leave the column out entirely. */
	if (w->any_size) {
		b.n_size = w->n;
		b.size = w->size;
	}
	if (w->any_call_site) {
		b.n_call_site = w->n;
		b.call_site = w->call_site;
	}

	Sctrace__Record rec = SCTRACE__RECORD__INIT;
	rec.events = &b;
	int r = write_record(w, &rec, NULL, 0);

	/* The batch is gone either way: after an error nothing more is
	 * written, so keeping it would only grow memory. */
	w->first_step += w->n;
	w->n = 0;
	w->nwake = 0;
	w->nwake_threads = 0;
	w->npreempt = 0;
	w->npreempt_regs = 0;
	w->any_size = false;
	w->any_call_site = false;
	return r;
}

static void fill_module(Sctrace__Module *m, const struct sc_module *src)
{
	sctrace__module__init(m);
	m->path = (char *)src->path;
	if (src->build_id && src->build_id_len) {
		m->has_build_id = true;
		m->build_id.data = (uint8_t *)src->build_id;
		m->build_id.len = src->build_id_len;
	}
	m->has_load_address = true;
	m->load_address = src->load_address;
	m->has_size = true;
	m->size = src->size;
}

static void free_writer(struct sc_trace_writer *w)
{
	free(w->wake_threads);
	free(w->preempt_regs);
	free(w->buf);
	free(w);
}

struct sc_trace_writer *sc_trace_create(const char *path,
					const struct sc_trace_header *hdr)
{
	if (!path || !hdr) {
		errno = EINVAL;
		return NULL;
	}
	struct sc_trace_writer *w = calloc(1, sizeof(*w));
	if (!w)
		return NULL;
	w->fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);  /* it holds the environment */
	if (w->fd < 0) {
		int e = errno;
		free_writer(w);
		errno = e;
		return NULL;
	}

	Sctrace__Header h = SCTRACE__HEADER__INIT;
	h.tool_version = (char *)hdr->tool_version;
	size_t argc = 0;
	if (hdr->argv)
		while (hdr->argv[argc])
			argc++;
	h.n_argv = argc;
	h.argv = (char **)hdr->argv;
	h.cwd = (char *)hdr->cwd;
	h.has_env_digest = true;
	h.env_digest = hdr->env_digest;
	h.strategy = (char *)hdr->strategy;
	h.strategy_params = (char *)hdr->strategy_params;
	h.has_seed = true;
	h.seed = hdr->seed;
	h.has_base_seed = true;
	h.base_seed = hdr->base_seed;
	h.has_run_index = true;
	h.run_index = hdr->run_index;
	h.granularity = (char *)hdr->granularity;
	h.has_atomics = hdr->atomics;
	h.atomics = hdr->atomics;
	h.has_mem_event_cap = hdr->mem_event_cap != 0;
	h.mem_event_cap = hdr->mem_event_cap;
	h.has_seeded_random = hdr->seeded_random;
	h.seeded_random = hdr->seeded_random;
	h.has_spin_model = hdr->spin_model;
	h.spin_model = hdr->spin_model;
	h.has_skip_glibc_sync = hdr->skip_glibc_sync;
	h.skip_glibc_sync = hdr->skip_glibc_sync;
	h.has_all_cpus = hdr->all_cpus;
	h.all_cpus = hdr->all_cpus;
	h.has_mem_sites = hdr->mem_sites != 0;
	h.mem_sites = hdr->mem_sites;
	h.has_clock_realtime_ns = hdr->clock_realtime_ns != 0;
	h.clock_realtime_ns = hdr->clock_realtime_ns;
	h.has_clock_monotonic_ns = hdr->clock_monotonic_ns != 0;
	h.clock_monotonic_ns = hdr->clock_monotonic_ns;
	h.has_mem_site_cap = hdr->mem_site_cap != 0;
	h.mem_site_cap = hdr->mem_site_cap;
	h.has_free_events = hdr->free_events;
	h.free_events = hdr->free_events;
	h.has_virtual_timeouts = hdr->virtual_timeouts;
	h.virtual_timeouts = hdr->virtual_timeouts;
	h.has_clock_wait_reads = hdr->clock_wait_reads != 0;
	h.clock_wait_reads = hdr->clock_wait_reads;
	h.has_attached = hdr->attached;
	h.attached = hdr->attached;
	h.has_own_libraries = hdr->own_libraries;
	h.own_libraries = hdr->own_libraries;
	h.n_race_pcs = hdr->nrace_pcs;
	h.race_pcs = (uint64_t *)hdr->race_pcs;
	for (char *const *m = hdr->instrument_modules; m && *m; m++)
		h.n_instrument_modules++;
	h.instrument_modules = (char **)hdr->instrument_modules;
	for (char *const *m = hdr->instrument_sources; m && *m; m++)
		h.n_instrument_sources++;
	h.instrument_sources = (char **)hdr->instrument_sources;
	uint8_t *env_z = NULL;
	size_t env_zlen = 0;
	uint32_t env_len = 0;
	if (sc_env_pack(hdr->env, &env_z, &env_zlen, &env_len) < 0) {
		close(w->fd);
		free_writer(w);
		errno = ENOMEM;
		return NULL;
	}
	if (env_z) {
		h.has_env_z = true;
		h.env_z.data = env_z;
		h.env_z.len = env_zlen;
		h.has_env_len = true;
		h.env_len = env_len;
	}
	h.has_follow_forks = hdr->follow_forks;
	h.follow_forks = hdr->follow_forks;
	h.has_max_steps = true;
	h.max_steps = hdr->max_steps;
	h.has_timeout_ms = true;
	h.timeout_ms = hdr->timeout_ms;
	h.has_eager_timeouts = true;
	h.eager_timeouts = hdr->eager_timeouts;
	if (hdr->slice_us) {
		h.has_slice_us = true;
		h.slice_us = hdr->slice_us;
	}
	if (hdr->stdin_file) {
		h.stdin_file = (char *)hdr->stdin_file;
		h.has_stdin_size = true;
		h.stdin_size = hdr->stdin_size;
	}

	Sctrace__Record rec = SCTRACE__RECORD__INIT;
	rec.header = &h;
	static const uint8_t magic[SC_TRACE_PREAMBLE] = SC_TRACE_MAGIC_BYTES;
	int wrc = write_record(w, &rec, magic, sizeof(magic));
	free(env_z);
	if (wrc < 0) {
		int e = errno;
		close(w->fd);
		free_writer(w);
		errno = e;
		return NULL;
	}
	return w;
}

/* Append one woken id list to the batch's concatenated wake_threads. */
static int add_woken(struct sc_trace_writer *w, const uint32_t *woken,
		     uint32_t n)
{
	if (n > SIZE_MAX / sizeof(uint32_t) - w->nwake_threads) {
		errno = ENOMEM;
		return -1;
	}
	size_t need = w->nwake_threads + n;
	if (need > w->wake_threads_cap) {
		size_t cap = w->wake_threads_cap ? w->wake_threads_cap : 64;
		while (cap < need)
			cap = cap > SIZE_MAX / (2 * sizeof(uint32_t)) ? need
								       : cap * 2;
		uint32_t *p = realloc(w->wake_threads, cap * sizeof(*p));
		if (!p)
			return -1;
		w->wake_threads = p;
		w->wake_threads_cap = cap;
	}
	memcpy(w->wake_threads + w->nwake_threads, woken, n * sizeof(*woken));
	w->nwake_threads = need;
	return 0;
}

static int add_preempt_regs(struct sc_trace_writer *w, const uint64_t *regs)
{
	size_t need = w->npreempt_regs + SC_PREEMPT_REGS;

	if (need > w->preempt_regs_cap) {
		size_t cap = need * 2;
		uint64_t *p = realloc(w->preempt_regs, cap * sizeof(*p));
		if (!p)
			return -1;
		w->preempt_regs = p;
		w->preempt_regs_cap = cap;
	}
	memcpy(w->preempt_regs + w->npreempt_regs, regs,
	       SC_PREEMPT_REGS * sizeof(*regs));
	w->npreempt_regs = need;
	return 0;
}

int sc_trace_event(struct sc_trace_writer *w, const struct sc_event *ev)
{
	if (!w || !ev || ev->access > 3 || (ev->nwoken && !ev->woken)) {
		errno = EINVAL;
		return -1;
	}
	if (w->error) {
		errno = w->error;
		return -1;
	}
	/* Readers number events first_step + i and treat a gap between
	 * batches as corruption: refuse to write one. */
	if (w->started && ev->step != w->next_step) {
		errno = EINVAL;
		return -1;
	}
	if (!w->started) {
		w->started = true;
		w->first_step = ev->step;
	}

	size_t i = w->n;
	if (ev->nwoken) {
		if (add_woken(w, ev->woken, ev->nwoken) < 0)
			return -1;
		w->wake_index[w->nwake] = (uint32_t)i;
		w->wake_count[w->nwake] = ev->nwoken;
		w->nwake++;
	}
	if (ev->kind == SC_EV_PREEMPT && ev->state &&
	    (ev->preempt_flags & SC_PREEMPT_BUDGET)) {
		if (!ev->regs) {
			errno = EINVAL;
			return -1;
		}
		if (add_preempt_regs(w, ev->regs) < 0)
			return -1;
	}
	if (ev->kind == SC_EV_PREEMPT && ev->state) {
		w->preempt_index[w->npreempt] = (uint32_t)i;
		w->preempt_state[w->npreempt] = ev->state;
		w->preempt_cpu_ns[w->npreempt] = ev->cpu_ns;
		w->preempt_flags[w->npreempt] = ev->preempt_flags;
		w->npreempt++;
	}
	w->thread[i] = ev->thread;
	w->kind_access[i] = (uint32_t)ev->kind << 2 | ev->access;
	/* Two's complement wrap-around: the reader adds the delta back
	 * modulo 2^64, so any pair of addresses round-trips. */
	w->object_delta[i] = (int64_t)(ev->object - w->prev_object);
	w->pc_delta[i] = (int64_t)(ev->pc - w->prev_pc);
	w->enabled[i] = ev->enabled;
	w->size[i] = ev->size;
	if (ev->size)
		w->any_size = true;
	w->call_site[i] = ev->call_site;
	if (ev->call_site)
		w->any_call_site = true;
	w->prev_object = ev->object;
	w->prev_pc = ev->pc;
	w->next_step = ev->step + 1;
	w->n++;

	if (w->n == SC_BATCH_MAX)
		return flush_batch(w);
	return 0;
}

int sc_trace_modules(struct sc_trace_writer *w, const struct sc_module *mods,
		     size_t n, uint64_t at_step)
{
	return sc_trace_process_modules(w, 0, mods, n, at_step);
}

int sc_trace_process_modules(struct sc_trace_writer *w, uint32_t process,
			     const struct sc_module *mods, size_t n,
			     uint64_t at_step)
{
	if (!w || (n && !mods)) {
		errno = EINVAL;
		return -1;
	}
	if (flush_batch(w) < 0)
		return -1;

	Sctrace__Module *mv = NULL;
	Sctrace__Module **mp = NULL;
	if (n) {
		mv = calloc(n, sizeof(*mv));
		mp = calloc(n, sizeof(*mp));
		if (!mv || !mp) {
			free(mv);
			free(mp);
			return -1;
		}
	}
	for (size_t i = 0; i < n; i++) {
		fill_module(&mv[i], &mods[i]);
		mp[i] = &mv[i];
	}
	Sctrace__ModuleMap map = SCTRACE__MODULE_MAP__INIT;
	map.n_modules = n;
	map.modules = mp;
	map.has_at_step = true;
	map.at_step = at_step;
	/* The first process's maps stay as they were written before. */
	map.has_process = process != 0;
	map.process = process;

	Sctrace__Record rec = SCTRACE__RECORD__INIT;
	rec.modules = &map;
	int r = write_record(w, &rec, NULL, 0);
	free(mp);
	free(mv);
	return r;
}

int sc_trace_thread_process(struct sc_trace_writer *w, uint32_t thread,
			    uint32_t process)
{
	if (!w) {
		errno = EINVAL;
		return -1;
	}
	/* After the events before it: a reader ties the thread's later
	 * events to the process. */
	if (flush_batch(w) < 0)
		return -1;
	Sctrace__ThreadProcess tp = SCTRACE__THREAD_PROCESS__INIT;
	tp.has_thread = true;
	tp.thread = thread;
	tp.has_process = true;
	tp.process = process;
	Sctrace__Record rec = SCTRACE__RECORD__INIT;
	rec.thread_process = &tp;
	return write_record(w, &rec, NULL, 0);
}

/* Copy a fixed-size result string, NUL-terminated whatever the caller
 * left in it. */
static char *bounded(char *dst, const char *src, size_t cap)
{
	size_t n = strnlen(src, cap - 1);
	memcpy(dst, src, n);
	dst[n] = '\0';
	return n ? dst : NULL;
}

int sc_trace_finish(struct sc_trace_writer *w, const struct sc_run_result *r)
{
	if (!w) {
		errno = EINVAL;
		return -1;
	}
	int ret = flush_batch(w);
	int saved = errno;

	if (r && ret == 0) {
		char message[sizeof(r->message)];
		char location[sizeof(r->location)];
		char stacks[sizeof(r->stacks)];
		Sctrace__Footer f = SCTRACE__FOOTER__INIT;
		f.has_verdict = true;
		f.verdict = (Sctrace__Verdict)r->verdict;
		f.has_steps = true;
		f.steps = r->steps;
		f.has_threads = true;
		f.threads = r->threads;
		f.has_wall_us = true;
		f.wall_us = r->wall_us;
		f.message = bounded(message, r->message, sizeof(message));
		f.location = bounded(location, r->location, sizeof(location));
		f.stacks = bounded(stacks, r->stacks, sizeof(stacks));
		f.has_exit_status = true;
		f.exit_status = r->exit_status;
		f.has_signal = true;
		f.signal = r->signal;
		f.has_fault_thread = true;
		f.fault_thread = r->fault_thread;
		f.has_fault_pc = true;
		f.fault_pc = r->fault_pc;

		Sctrace__Record rec = SCTRACE__RECORD__INIT;
		rec.footer = &f;
		ret = write_record(w, &rec, NULL, 0);
		saved = errno;
	}
	if (close(w->fd) < 0 && ret == 0) {
		ret = -1;
		saved = errno;
	}
	free_writer(w);
	if (ret < 0)
		errno = saved;
	return ret;
}

void sc_trace_abandon(struct sc_trace_writer *w)
{
	if (!w)
		return;
	int saved = errno;
	flush_batch(w);
	close(w->fd);
	free_writer(w);
	errno = saved;
}
