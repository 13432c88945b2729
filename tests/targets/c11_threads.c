/*
 * c11_threads (correct): the <threads.h> API (thrd_create, mtx_*, cnd_*)
 * that glibc 2.34+ implements in libc.  Main hands 10 numbers one at a
 * time to a worker through a one-slot mailbox.
 */
#include <stdio.h>
#include <threads.h>

#define ITEMS 10

static mtx_t box_lock;
static cnd_t box_changed;
static int box, box_full, total;

static int worker(void *arg)
{
	int i;

	(void)arg;
	for (i = 0; i < ITEMS; i++) {
		mtx_lock(&box_lock);
		while (!box_full)
			cnd_wait(&box_changed, &box_lock);
		total += box;
		box_full = 0;
		cnd_broadcast(&box_changed);
		mtx_unlock(&box_lock);
	}
	return 0;
}

int main(void)
{
	thrd_t t;
	int i, res;

	if (mtx_init(&box_lock, mtx_plain) != thrd_success ||
	    cnd_init(&box_changed) != thrd_success ||
	    thrd_create(&t, worker, NULL) != thrd_success) {
		fprintf(stderr, "c11_threads: init failed\n");
		return 2;
	}
	for (i = 1; i <= ITEMS; i++) {
		mtx_lock(&box_lock);
		while (box_full)
			cnd_wait(&box_changed, &box_lock);
		box = i;
		box_full = 1;
		cnd_broadcast(&box_changed);
		mtx_unlock(&box_lock);
	}
	thrd_join(t, &res);
	mtx_destroy(&box_lock);
	cnd_destroy(&box_changed);
	printf("c11_threads: total=%d\n", total);
	return 0;
}
