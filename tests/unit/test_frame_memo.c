/*
 * test_frame_memo.c - the names kept for code addresses
 * (tracer/frame_memo.c) answer only the same question about the same
 * file, and are not served once the file changed; the maps held for a
 * stack (sc_maps_hold, tracer/maps.c) are one reading of them, nested
 * holds of the same process share it, and another process cannot be held
 * meanwhile.
 */
#include "config.h"

#include <elf.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "frame_memo.h"
#include "internal.h"
#include "tap.h"

static int count_mapping(const struct sc_map_entry *m, void *arg)
{
	(void)m;
	(*(int *)arg)++;
	return 0;
}

static int mappings(void)
{
	int n = 0;

	return sc_maps_foreach(getpid(), count_mapping, &n) < 0 ? -1 : n;
}

static void test_memo(void)
{
	char path[] = "/tmp/test_frame_memo.XXXXXX";
	int fd = mkstemp(path);
	struct sc_frame_names names = { .n = 1, .pick = 0 };
	struct sc_frame_query q = { path, 0x1234, STT_FUNC, true, 9 };

	if (fd < 0 || write(fd, "one", 3) != 3) {
		skip(6, "no temporary file");
		return;
	}
	snprintf(names.texts[0], sizeof(names.texts[0]), "probe at x.c:7 (m)");
	ok(sc_frame_memo_get(&q) == NULL, "nothing is kept before a put");
	sc_frame_memo_put(&q, &names);
	const struct sc_frame_names *got = sc_frame_memo_get(&q);
	ok(got && got->n == 1 && strcmp(got->texts[0], names.texts[0]) == 0,
	   "the same question gets the names put");
	q.vaddr = 0x1235;
	ok(sc_frame_memo_get(&q) == NULL, "another address gets none");
	q.vaddr = 0x1234;
	q.max = 1;
	ok(sc_frame_memo_get(&q) == NULL, "fewer levels asked: none");
	q.max = 9;
	q.type = STT_OBJECT;
	ok(sc_frame_memo_get(&q) == NULL, "the address as data: none");
	q.type = STT_FUNC;
	/* Rebuilt in place: another size (and mtime). */
	ok(write(fd, "two", 3) == 3 && sc_frame_memo_get(&q) == NULL,
	   "once the file changed: none");
	close(fd);
	unlink(path);
}

static void test_maps_hold(void)
{
	int before = mappings();
	char path[] = "/tmp/test_maps_hold.XXXXXX";
	int fd = mkstemp(path);
	void *map;

	ok(before > 0, "this process has file mappings");
	is_int(sc_maps_hold(getpid()), 0, "its maps can be held");
	is_int(sc_maps_hold(getpid()), 0, "and held again (nested)");
	is_int(sc_maps_hold(1), -1, "another process cannot be held meanwhile");
	if (fd < 0 || ftruncate(fd, 4096) < 0 ||
	    (map = mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, 0)) ==
		    MAP_FAILED) {
		skip(3, "no file to map");
		sc_maps_release();
		sc_maps_release();
		return;
	}
	is_int(mappings(), before, "while held, a new mapping is not seen");
	sc_maps_release();
	is_int(mappings(), before, "nor after the inner release");
	sc_maps_release();
	is_int(mappings(), before + 1, "after the outer one, it is");
	munmap(map, 4096);
	close(fd);
	unlink(path);
}

int main(void)
{
	test_memo();
	test_maps_hold();
	return done_testing();
}
