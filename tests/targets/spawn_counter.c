/*
 * spawn_counter (correct): a thread starts SPAWNS children with
 * posix_spawn (glibc: clone with CLONE_VM | CLONE_VFORK), waits for each
 * and counts it under a mutex, while the main thread takes the mutex
 * WORK times.  The spawning thread sleeps in the kernel until its vfork
 * child execs: with --follow-forks the child is scheduled, its parent
 * must neither hold up the run nor come back at a moment of the
 * machine's choosing.
 */
#include <pthread.h>
#include <spawn.h>
#include <stdio.h>
#include <sys/wait.h>

#define SPAWNS 3
#define WORK 100

extern char **environ;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int spawned;

static void *spawner(void *arg)
{
	char *argv[] = { "true", NULL };

	(void)arg;
	for (int i = 0; i < SPAWNS; i++) {
		pid_t pid;
		int status;
		if (posix_spawn(&pid, "/bin/true", NULL, NULL, argv,
				environ) != 0) {
			perror("spawn_counter: posix_spawn");
			return NULL;
		}
		waitpid(pid, &status, 0);
		pthread_mutex_lock(&lock);
		spawned += WIFEXITED(status) && WEXITSTATUS(status) == 0;
		pthread_mutex_unlock(&lock);
	}
	return NULL;
}

int main(void)
{
	pthread_t t;
	long seen = 0;

	pthread_create(&t, NULL, spawner, NULL);
	for (int i = 0; i < WORK; i++) {
		pthread_mutex_lock(&lock);
		seen += spawned;
		pthread_mutex_unlock(&lock);
	}
	pthread_join(t, NULL);
	printf("spawn_counter: %d spawned\n", spawned);
	return spawned == SPAWNS ? 0 : 1;
}
