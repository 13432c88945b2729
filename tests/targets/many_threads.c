/*
 * many_threads (correct): 32 threads each lock and unlock one mutex 50
 * times, then main creates and joins 200 short threads one after the
 * other.  Exercises many logical thread ids and tid reuse.
 */
#include <pthread.h>
#include <stdio.h>

#define WIDE 32
#define ROUNDS 50
#define SEQUENTIAL 200

static pthread_mutex_t counter_lock = PTHREAD_MUTEX_INITIALIZER;
static long counter;

static void *hammer(void *arg)
{
	int i;

	(void)arg;
	for (i = 0; i < ROUNDS; i++) {
		pthread_mutex_lock(&counter_lock);
		counter++;
		pthread_mutex_unlock(&counter_lock);
	}
	return NULL;
}

static void *bump(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&counter_lock);
	counter++;
	pthread_mutex_unlock(&counter_lock);
	return NULL;
}

int main(void)
{
	pthread_t t[WIDE];
	int i;

	for (i = 0; i < WIDE; i++)
		if (pthread_create(&t[i], NULL, hammer, NULL) != 0) {
			perror("many_threads: pthread_create");
			return 2;
		}
	for (i = 0; i < WIDE; i++)
		pthread_join(t[i], NULL);
	for (i = 0; i < SEQUENTIAL; i++) {
		pthread_t one;

		if (pthread_create(&one, NULL, bump, NULL) != 0) {
			perror("many_threads: pthread_create");
			return 2;
		}
		pthread_join(one, NULL);
	}
	printf("many_threads: counter=%ld\n", counter);
	return 0;
}
