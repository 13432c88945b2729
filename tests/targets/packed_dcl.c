/*
 * packed_dcl: double-checked initialisation whose flag shares an 8-byte
 * word with the data it guards (an int, then a bool, in one struct).  The
 * initialiser sets `ready` before `port`; a second thread that sees
 * `ready` skips the lock and reads a port that is not there yet.
 * Built at -O0 so that the two stores stay two stores in source order.
 */
#include <assert.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>

struct config {
	int port;
	bool ready;
};

static pthread_mutex_t init_lock = PTHREAD_MUTEX_INITIALIZER;
static struct config the_config;

static const struct config *get_config(void)
{
	if (!the_config.ready) {
		pthread_mutex_lock(&init_lock);
		if (!the_config.ready) {
			the_config.ready = true;        /* published too early */
			the_config.port = 8080;
		}
		pthread_mutex_unlock(&init_lock);
	}
	return &the_config;
}

static void *serve(void *arg)
{
	(void)arg;
	const struct config *c = get_config();
	assert(c->port == 8080 && "config used before its initialisation");
	return NULL;
}

int main(void)
{
	pthread_t a, b;

	pthread_create(&a, NULL, serve, NULL);
	pthread_create(&b, NULL, serve, NULL);
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	puts("ok");
	return 0;
}
