/*
 * pshared_sem (correct): a process-shared semaphore in a shared mapping;
 * a forked child posts it twice, main and a thread each wait for one
 * post.  The child's posts are futex wakes of another process (not
 * followed, or followed with --follow-forks): never a deadlock.
 */
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

static sem_t *posts;

static void *waiter(void *arg)
{
	(void)arg;
	sem_wait(posts);
	return NULL;
}

int main(void)
{
	pthread_t t;
	pid_t child;

	posts = mmap(NULL, sizeof(*posts), PROT_READ | PROT_WRITE,
		     MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (posts == MAP_FAILED || sem_init(posts, 1, 0) < 0)
		return 2;
	child = fork();
	if (child < 0)
		return 2;
	if (child == 0) {
		sem_post(posts);
		sem_post(posts);
		_exit(0);
	}
	pthread_create(&t, NULL, waiter, NULL);
	sem_wait(posts);
	pthread_join(t, NULL);
	waitpid(child, NULL, 0);
	printf("both posts arrived\n");
	return 0;
}
