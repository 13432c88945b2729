/* null_callback.c (buggy): a worker calls a callback that was never set:
 * a call through a null function pointer.  The report must show the
 * worker's stack from the caller on (tests/e2e/stacks.sh); it had none,
 * since nothing can be unwound from pc 0. */
#include <pthread.h>
#include <stddef.h>

typedef void (*callback_fn)(int);
static callback_fn volatile on_ready;   /* never set */

__attribute__((noinline)) static void notify(int value)
{
	on_ready(value);                        /* CALL */
}

static void *worker(void *arg)
{
	notify(1);
	return arg;
}

int main(void)
{
	pthread_t t;

	pthread_create(&t, NULL, worker, NULL);
	pthread_join(t, NULL);
	return 0;
}
