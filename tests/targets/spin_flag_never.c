/*
 * spin_flag_never: a thread busy-waits on an atomic flag that the other
 * thread stores to (0, not 1), while main joins them.  The store makes
 * the flag's load a scheduling point of race granularity, so each turn of
 * the spin is an event (a load that repeats); nothing can end it.  With
 * "count", the waiter also counts its turns in a global and gives up
 * after 200000: a loop that ends by itself, not a hang.
 * Usage: spin_flag_never [count]
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

static atomic_int go;
static int counting;
static long rounds;

static void *waiter(void *arg)
{
	(void)arg;
	if (counting) {
		while (!atomic_load(&go) && ++rounds < 200000)
			;
		return NULL;
	}
	while (!atomic_load(&go))       /* SPIN */
		;
	return NULL;
}

static void *clearer(void *arg)
{
	(void)arg;
	atomic_store(&go, 0);
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t w, c;

	counting = argc > 1 && strcmp(argv[1], "count") == 0;
	pthread_create(&w, NULL, waiter, NULL);
	pthread_create(&c, NULL, clearer, NULL);
	pthread_join(c, NULL);
	pthread_join(w, NULL);
	printf("gave up after %ld rounds\n", rounds);
	return 0;
}
