/*
 * dcl_publish: double-checked initialisation that publishes its flag
 * before the object.  The initialiser sets `ready` and only then fills in
 * `config`; a second thread that sees `ready` skips the lock and reads a
 * config that is not there yet.
 */
#include <assert.h>
#include <pthread.h>
#include <stdio.h>

struct config {
	int workers;
};

static pthread_mutex_t init_lock = PTHREAD_MUTEX_INITIALIZER;
static struct config the_config;
static volatile int ready;
static struct config *volatile config;

static struct config *get_config(void)
{
	if (!ready) {
		pthread_mutex_lock(&init_lock);
		if (!ready) {
			ready = 1;              /* published too early */
			the_config.workers = 4;
			config = &the_config;
		}
		pthread_mutex_unlock(&init_lock);
	}
	return config;
}

static void *user(void *arg)
{
	(void)arg;
	struct config *c = get_config();
	assert(c != NULL && c->workers == 4);
	return NULL;
}

int main(void)
{
	pthread_t a, b;

	pthread_create(&a, NULL, user, NULL);
	pthread_create(&b, NULL, user, NULL);
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	printf("dcl_publish: done\n");
	return 0;
}
