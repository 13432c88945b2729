/*
 * wsdeque: a work-stealing deque whose owner pops from the bottom without
 * synchronising with thieves that steal from the top (the fence and the
 * compare-and-swap on the last element are missing).  When one element is
 * left, the owner and a thief can both take it: an item is handed out
 * twice and the count check fails.
 */
#include <assert.h>
#include <pthread.h>
#include <stdio.h>

#define ITEMS 2

static volatile long top, bottom;
static int items[ITEMS];
static volatile int taken[ITEMS];

static void push(int v)
{
	items[bottom] = v;
	bottom = bottom + 1;
}

/* Owner side: no fence, no CAS on the last element. */
static int pop(void)
{
	long b = bottom - 1;
	bottom = b;
	long t = top;
	if (t > b) {
		bottom = t;
		return -1;
	}
	return items[b];
}

/* Thief side: takes the top element. */
static int steal(void)
{
	long t = top;
	long b = bottom;
	if (t >= b)
		return -1;
	int v = items[t];
	top = t + 1;
	return v;
}

static void *thief(void *arg)
{
	(void)arg;
	int v = steal();
	if (v >= 0)
		taken[v]++;
	return NULL;
}

int main(void)
{
	pthread_t th;

	for (int i = 0; i < ITEMS; i++)
		push(i);
	pthread_create(&th, NULL, thief, NULL);
	for (int i = 0; i < ITEMS; i++) {
		int v = pop();
		if (v >= 0)
			taken[v]++;
	}
	pthread_join(th, NULL);
	for (int i = 0; i < ITEMS; i++)
		assert(taken[i] <= 1);
	printf("wsdeque: done\n");
	return 0;
}
