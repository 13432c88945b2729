/*
 * test_site_cache.c - tracer/site_cache.c: a module's decoded sites come
 * back for the same file and kind, never for another file, another kind,
 * another source filter or a rebuilt (touched) file, and the cache keeps
 * working past its capacity.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"
#include "tap.h"

static void make_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

int main(void)
{
	char dir[] = "/tmp/test_site_cache.XXXXXX", a[64], b[64];
	struct sc_mem_site sites[3] = {
		{ .addr = 0x1000, .insn = { .len = 3, .access = SC_ACC_RMW } },
		{ .addr = 0x1010, .insn = { .len = 4 } },
		{ .addr = 0x1020, .insn = { .len = 7 } },
	};
	struct sc_module_sites in = { sites, 3, SC_RUNTIME_GO, true }, out;
	struct sc_site_key ka, kb, k;
	const char *src1[] = { "x.c", NULL }, *src2[] = { "y.c", NULL };

	if (!mkdtemp(dir))
		return 1;
	snprintf(a, sizeof(a), "%s/a", dir);
	snprintf(b, sizeof(b), "%s/b", dir);
	make_file(a, "one");
	make_file(b, "two");

	ok(sc_site_key_of(a, SC_SITES_ATOMIC, 1, NULL, &ka) == 0 &&
	       sc_site_key_of(b, SC_SITES_ATOMIC, 1, NULL, &kb) == 0,
	       "keys of two files");
	ok(sc_site_key_of("/nonexistent/x", SC_SITES_ATOMIC, 1, NULL, &k) < 0,
	       "no key for a missing file");
	ok(!sc_site_cache_get(&ka, &out), "empty cache: a miss");

	sc_site_cache_put(&ka, &in);
	sites[0].addr = 0xdead;   /* the cache holds its own copy */
	ok(sc_site_cache_get(&ka, &out) && out.n == 3 &&
	       out.v[0].addr == 0x1000 && out.v[2].insn.len == 7 &&
	       out.rt == SC_RUNTIME_GO && out.dyn,
	       "the same file and kind: its sites, runtime and bias flag");
	ok(!sc_site_cache_get(&kb, &out), "another file: a miss");
	sc_site_key_of(a, SC_SITES_MEMORY, 1, NULL, &k);
	ok(!sc_site_cache_get(&k, &out), "another kind of sites: a miss");
	sc_site_key_of(a, SC_SITES_ATOMIC, 0, NULL, &k);
	ok(!sc_site_cache_get(&k, &out), "other decoding rules: a miss");

	struct sc_site_key km1, km2;
	sc_site_key_of(a, SC_SITES_MEMORY, 1, src1, &km1);
	sc_site_key_of(a, SC_SITES_MEMORY, 1, src2, &km2);
	sc_site_cache_put(&km1, &in);
	ok(sc_site_cache_get(&km1, &out) && !sc_site_cache_get(&km2, &out),
	       "mem sites: another --instrument-source filter is a miss");

	/* A rebuilt file: new contents and modification time. */
	struct timespec times[2] = { { 0, UTIME_OMIT }, { 12345, 0 } };
	make_file(a, "rebuilt, longer");
	utimensat(AT_FDCWD, a, times, 0);
	sc_site_key_of(a, SC_SITES_ATOMIC, 1, NULL, &k);
	ok(!sc_site_cache_get(&k, &out), "a rebuilt file: a miss");

	/* Past capacity: the newest entries are there. */
	struct sc_module_sites none = { NULL, 0, SC_RUNTIME_NONE, false };
	for (int i = 0; i < 100; i++) {
		struct sc_site_key kk = kb;
		kk.ino += (uint64_t)i + 1;
		sc_site_cache_put(&kk, i == 99 ? &in : &none);
	}
	struct sc_site_key last = kb;
	last.ino += 100;
	ok(sc_site_cache_get(&last, &out) && out.n == 3,
	       "after 100 more modules the newest entry is kept");

	unlink(a);
	unlink(b);
	rmdir(dir);
	return done_testing();
}
