/*
 * test_trace_corrupt.c - the reader against hand-built traces: every
 * structural error is rejected with its byte offset, and what a newer
 * writer may add (unknown record types, unknown verdicts) is tolerated.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "analysis.h"
#include "trace.pb-c.h"

#include "tap.h"

/* A trace under construction. */
struct tb {
	uint8_t buf[1 << 16];
	size_t len;
};

static void tb_raw(struct tb *b, const void *p, size_t n)
{
	if (b->len + n > sizeof(b->buf))
		bail_out("test trace too large");
	memcpy(b->buf + b->len, p, n);
	b->len += n;
}

static void tb_start(struct tb *b)
{
	static const uint8_t pre[9] = {'S', 'C', 'T', 'R', 'A', 'C', 'E', 0, 1};
	b->len = 0;
	tb_raw(b, pre, sizeof(pre));
}

static void tb_varint(struct tb *b, uint64_t v)
{
	uint8_t tmp[10];
	size_t n = 0;
	while (v >= 0x80) {
		tmp[n++] = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	tmp[n++] = (uint8_t)v;
	tb_raw(b, tmp, n);
}

/* Append a record; returns its offset (for "at byte N"). */
static size_t tb_record(struct tb *b, const Sctrace__Record *rec)
{
	size_t off = b->len;
	uint8_t tmp[16384];
	size_t n = sctrace__record__get_packed_size(rec);
	if (n > sizeof(tmp))
		bail_out("record too large");
	sctrace__record__pack(rec, tmp);
	tb_varint(b, n);
	tb_raw(b, tmp, n);
	return off;
}

static size_t tb_header(struct tb *b)
{
	static char *argv[] = {"./a.out", NULL};
	Sctrace__Header h = SCTRACE__HEADER__INIT;
	h.tool_version = "test";
	h.argv = argv;
	h.n_argv = 1;
	Sctrace__Record r = SCTRACE__RECORD__INIT;
	r.header = &h;
	return tb_record(b, &r);
}

static size_t tb_footer(struct tb *b, int verdict)
{
	Sctrace__Footer f = SCTRACE__FOOTER__INIT;
	f.has_verdict = true;
	f.verdict = (Sctrace__Verdict)verdict;
	Sctrace__Record r = SCTRACE__RECORD__INIT;
	r.footer = &f;
	return tb_record(b, &r);
}

static size_t tb_modmap(struct tb *b)
{
	Sctrace__Module m = SCTRACE__MODULE__INIT;
	Sctrace__Module *mp = &m;
	m.path = "/bin/x";
	Sctrace__ModuleMap map = SCTRACE__MODULE_MAP__INIT;
	map.modules = &mp;
	map.n_modules = 1;
	Sctrace__Record r = SCTRACE__RECORD__INIT;
	r.modules = &map;
	return tb_record(b, &r);
}

/* A consistent batch of n (<= 8) events starting at step first; callers
 * break one column before writing it. */
struct batch {
	Sctrace__EventBatch b;
	uint32_t thread[8], ka[8], enabled[8], size[8];
	int64_t od[8], pd[8];
	uint32_t wi[8], wc[8], wt[16];
};

static void batch_init(struct batch *x, uint64_t first, size_t n)
{
	memset(x, 0, sizeof(*x));
	sctrace__event_batch__init(&x->b);
	x->b.has_first_step = true;
	x->b.first_step = first;
	for (size_t i = 0; i < n; i++) {
		x->thread[i] = (uint32_t)(i % 2);
		x->ka[i] = 21u << 2 | 3;
		x->od[i] = i ? 0 : 0x404040;
		x->pd[i] = i ? -16 : 0x401100;
		x->enabled[i] = 2;
	}
	x->b.n_thread = x->b.n_kind_access = x->b.n_object_delta =
		x->b.n_pc_delta = x->b.n_enabled = n;
	x->b.thread = x->thread;
	x->b.kind_access = x->ka;
	x->b.object_delta = x->od;
	x->b.pc_delta = x->pd;
	x->b.enabled = x->enabled;
	x->b.wake_index = x->wi;
	x->b.wake_count = x->wc;
	x->b.wake_threads = x->wt;
	x->b.size = x->size;
}

/* One wake entry: event idx woke cnt threads (ids 1..cnt). */
static void batch_wake(struct batch *x, uint32_t idx, uint32_t cnt)
{
	x->wi[x->b.n_wake_index++] = idx;
	x->wc[x->b.n_wake_count++] = cnt;
	for (uint32_t k = 0; k < cnt; k++)
		x->wt[x->b.n_wake_threads++] = k + 1;
}

static size_t tb_batch(struct tb *b, struct batch *x)
{
	Sctrace__Record r = SCTRACE__RECORD__INIT;
	r.events = &x->b;
	return tb_record(b, &r);
}

/* Expect rejection with "corrupt trace: <what> at byte <off>". */
static void expect_corrupt(const struct tb *b, const char *what, size_t off,
			   const char *name)
{
	struct sc_trace t;
	char err[512] = "", at[64];
	int r = sc_trace_load_buffer(b->buf, b->len, &t, err, sizeof(err));
	snprintf(at, sizeof(at), " at byte %zu", off);
	bool good = r == -1 && strstr(err, "corrupt trace: ") &&
		    strstr(err, what) && strstr(err, at);
	if (!ok(good, "%s", name))
		diag("r=%d err=\"%s\", want \"%s\"%s", r, err, what, at);
	if (r == 0)
		sc_trace_free(&t);
}

static void test_columns(void)
{
	struct tb b;
	struct batch x;
	size_t off;

	tb_start(&b);
	tb_header(&b);
	batch_init(&x, 0, 4);
	x.b.n_pc_delta = 3;
	off = tb_batch(&b, &x);
	expect_corrupt(&b, "columns of different lengths", off,
		       "a short pc column");

	tb_start(&b);
	tb_header(&b);
	batch_init(&x, 0, 4);
	x.b.n_size = 2;
	off = tb_batch(&b, &x);
	expect_corrupt(&b, "2 sizes for 4 events", off,
		       "a size column of the wrong length");

	tb_start(&b);
	tb_header(&b);
	batch_init(&x, 0, 4);
	x.size[1] = 300;
	x.b.n_size = 4;
	off = tb_batch(&b, &x);
	expect_corrupt(&b, "access size 300 out of range", off,
		       "an access size over 255");

	tb_start(&b);
	tb_header(&b);
	batch_init(&x, 0, 4);
	x.ka[2] = 0xffffffffu;
	off = tb_batch(&b, &x);
	expect_corrupt(&b, "event kind", off, "an event kind over 16 bits");
}

static void test_wakes(void)
{
	struct tb b;
	struct batch x;
	size_t off;

	tb_start(&b);
	tb_header(&b);
	batch_init(&x, 0, 4);
	batch_wake(&x, 4, 1);
	off = tb_batch(&b, &x);
	expect_corrupt(&b, "wake list for event 4 of a batch of 4", off,
		       "a wake index past the batch");

	tb_start(&b);
	tb_header(&b);
	batch_init(&x, 0, 4);
	batch_wake(&x, 1, 2);
	x.b.n_wake_threads = 3;
	off = tb_batch(&b, &x);
	expect_corrupt(&b, "wake counts add up to 2 threads but the batch "
		       "lists 3", off, "wake counts and threads disagree");

	tb_start(&b);
	tb_header(&b);
	batch_init(&x, 0, 4);
	batch_wake(&x, 2, 1);
	batch_wake(&x, 1, 1);
	off = tb_batch(&b, &x);
	expect_corrupt(&b, "wake lists out of order", off,
		       "wake indexes not increasing");

	tb_start(&b);
	tb_header(&b);
	batch_init(&x, 0, 4);
	batch_wake(&x, 1, 1);
	x.b.n_wake_count = 0;
	x.b.n_wake_threads = 0;
	off = tb_batch(&b, &x);
	expect_corrupt(&b, "1 wake indexes but 0 wake counts", off,
		       "wake index and count lists of different lengths");

	/* A huge count must not wrap the sum. */
	tb_start(&b);
	tb_header(&b);
	batch_init(&x, 0, 4);
	batch_wake(&x, 0, 1);
	batch_wake(&x, 1, 1);
	x.wc[1] = 0xffffffffu;
	off = tb_batch(&b, &x);
	expect_corrupt(&b, "wake counts add up to", off,
		       "a wake count of 2^32-1");
}

static void test_order(void)
{
	struct tb b;
	struct batch x;
	size_t off;

	tb_start(&b);
	tb_header(&b);
	off = tb_header(&b);
	expect_corrupt(&b, "second header", off, "two headers");

	tb_start(&b);
	batch_init(&x, 0, 2);
	off = tb_batch(&b, &x);
	expect_corrupt(&b, "missing header (first record is an event batch)",
		       off, "events before any header");

	tb_start(&b);
	off = tb_footer(&b, 1);
	tb_header(&b);
	expect_corrupt(&b, "missing header (first record is a footer)", off,
		       "a footer first");

	tb_start(&b);
	tb_header(&b);
	tb_footer(&b, 1);
	batch_init(&x, 0, 2);
	off = tb_batch(&b, &x);
	expect_corrupt(&b, "events after the footer", off,
		       "events after the footer");

	tb_start(&b);
	tb_header(&b);
	tb_footer(&b, 1);
	off = tb_footer(&b, 1);
	expect_corrupt(&b, "second footer", off, "two footers");

	tb_start(&b);
	tb_header(&b);
	tb_footer(&b, 1);
	off = tb_modmap(&b);
	expect_corrupt(&b, "module map after the footer", off,
		       "a module map after the footer");

	tb_start(&b);
	tb_header(&b);
	batch_init(&x, 0, 3);
	tb_batch(&b, &x);
	batch_init(&x, 4, 3);
	off = tb_batch(&b, &x);
	expect_corrupt(&b, "event batch starts at step 4, expected 3", off,
		       "a gap in step numbers");

	tb_start(&b);
	tb_header(&b);
	batch_init(&x, 0, 3);
	tb_batch(&b, &x);
	batch_init(&x, 2, 3);
	off = tb_batch(&b, &x);
	expect_corrupt(&b, "starts at step 2, expected 3", off,
		       "overlapping step numbers");

	tb_start(&b);
	tb_header(&b);
	batch_init(&x, UINT64_MAX - 1, 3);
	off = tb_batch(&b, &x);
	expect_corrupt(&b, "step numbers overflow", off,
		       "step numbers past 2^64");

	/* A header and a footer in one record. */
	tb_start(&b);
	{
		Sctrace__Header h = SCTRACE__HEADER__INIT;
		Sctrace__Footer f = SCTRACE__FOOTER__INIT;
		Sctrace__Record r = SCTRACE__RECORD__INIT;
		r.header = &h;
		r.footer = &f;
		off = tb_record(&b, &r);
	}
	expect_corrupt(&b, "record holds 2 payloads", off,
		       "a record with two payloads");
}

static void test_framing(void)
{
	struct tb b;
	size_t off;

	tb_start(&b);
	tb_header(&b);
	off = b.len;
	tb_varint(&b, ((uint64_t)64 << 20) + 1);
	expect_corrupt(&b, "over the 67108864 limit", off,
		       "a record length over 64 MiB, even at EOF");

	tb_start(&b);
	tb_header(&b);
	off = b.len;
	static const uint8_t longv[] = {0x80, 0x80, 0x80, 0x80, 0x80, 0x00};
	tb_raw(&b, longv, sizeof(longv));
	expect_corrupt(&b, "malformed record length", off,
		       "a record length of 6 varint bytes");

	tb_start(&b);
	tb_header(&b);
	off = b.len;
	/* field 2 (events) as a length-delimited field longer than the
	 * record */
	static const uint8_t badrec[] = {0x03, 0x12, 0x7f, 0x00};
	tb_raw(&b, badrec, sizeof(badrec));
	expect_corrupt(&b, "record does not unpack", off,
		       "a record whose inner length overruns it");
}

static void test_tolerated(void)
{
	struct tb b;
	struct batch x;
	struct sc_trace t;
	char err[512] = "";

	/* Unknown record types (a newer writer), empty batches, modules
	 * from the header, batches without first_step, unknown verdicts. */
	tb_start(&b);
	{
		Sctrace__Module m = SCTRACE__MODULE__INIT;
		Sctrace__Module *mp = &m;
		m.path = "/bin/from-header";
		Sctrace__Header h = SCTRACE__HEADER__INIT;
		h.modules = &mp;
		h.n_modules = 1;
		Sctrace__Record r = SCTRACE__RECORD__INIT;
		r.header = &h;
		tb_record(&b, &r);
	}
	static const uint8_t unknown[] = {0x00, 0x03, 0xa8, 0x06, 0x01};
	tb_raw(&b, unknown, sizeof(unknown)); /* empty; field 101 = 1 */
	batch_init(&x, 0, 0);
	x.b.has_first_step = false;
	tb_batch(&b, &x);
	batch_init(&x, 0, 3);
	x.b.has_first_step = false;
	batch_wake(&x, 1, 2);
	tb_batch(&b, &x);
	batch_init(&x, 3, 2);
	x.od[0] = -0x404040;    /* back to 0 */
	x.pd[0] = -0x401100 + 32;
	tb_batch(&b, &x);
	tb_footer(&b, 99);

	int r = sc_trace_load_buffer(b.buf, b.len, &t, err, sizeof(err));
	if (!ok(r == 0, "unknown records and verdicts are tolerated")) {
		diag("%s", err);
		return;
	}
	ok(t.nmodules == 1 && !strcmp(t.modules[0].path, "/bin/from-header"),
	   "modules from the header");
	is_int((long long)t.nevents, 5, "5 events");
	ok(t.nevents == 5 && t.events[0].step == 0 && t.events[4].step == 4,
	   "steps 0..4");
	ok(t.nevents == 5 && t.events[1].nwoken == 2 &&
	   t.wake_pool[t.events[1].woken_offset] == 1 &&
	   t.wake_pool[t.events[1].woken_offset + 1] == 2,
	   "wake list of event 1");
	ok(t.nevents == 5 && t.events[2].object == 0x404040 &&
	   t.events[2].pc == 0x401100 - 32 && t.events[3].object == 0 &&
	   t.events[3].pc == 0x401100 - 32 - 0x401100 + 32 &&
	   t.events[4].pc == (uint64_t)-16, "deltas carry across batches");
	ok(t.nevents == 5 && t.events[0].kind == SC_EV_MUTEX_LOCK &&
	   t.events[0].access == SC_ACC_RMW && t.events[0].size == 0,
	   "kind and access unpacked, missing size reads 0");
	ok(t.has_footer && t.verdict == SC_VERDICT_UNKNOWN,
	   "verdict 99 reads as unknown");
	ok(t.cwd && !strcmp(t.cwd, "") && t.argv && t.argc == 0 &&
	   !t.argv[0] && t.strategy && t.granularity,
	   "absent header strings read as empty strings");
	sc_trace_free(&t);

	/* A header that says nothing at all is still a header. */
	tb_start(&b);
	{
		Sctrace__Header h = SCTRACE__HEADER__INIT;
		Sctrace__Record rec = SCTRACE__RECORD__INIT;
		rec.header = &h;
		tb_record(&b, &rec);
	}
	r = sc_trace_load_buffer(b.buf, b.len, &t, err, sizeof(err));
	ok(r == 0 && !t.truncated && t.valid_bytes == b.len,
	   "an empty header");
	if (r == 0)
		sc_trace_free(&t);

	/* Only empty records after the magic: no header. */
	tb_start(&b);
	static const uint8_t zeros[4] = {0};
	tb_raw(&b, zeros, sizeof(zeros));
	r = sc_trace_load_buffer(b.buf, b.len, &t, err, sizeof(err));
	ok(r == -1 && strstr(err, "no header (empty trace)"),
	   "zero bytes after the magic: %s", err);
}

int main(void)
{
	test_columns();
	test_wakes();
	test_order();
	test_framing();
	test_tolerated();
	return done_testing();
}
