/*
 * fork_held_lock: fork(2) while another thread holds a mutex, without
 * pthread_atfork.  A worker takes table_lock, tells main (a condition
 * variable) and keeps it until the child is done.  main forks; the child
 * copies the locked mutex but not its owner, so its pthread_mutex_lock
 * never returns, and main waits in waitpid for ever: every schedule
 * hangs.
 *
 * Without --follow-forks only the parent is scheduled, and the hang is
 * all a run shows; the report says where the child is stuck.  With
 * --follow-forks the child's lock is the model's: its owner is not in
 * the child.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

static pthread_mutex_t table_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t ready_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t ready_cond = PTHREAD_COND_INITIALIZER;
static int table_locked, child_done;

static void *holder(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&table_lock);
	pthread_mutex_lock(&ready_lock);
	table_locked = 1;
	pthread_cond_broadcast(&ready_cond);
	/* Held until the child is done: in every schedule, fork copies it
	 * locked. */
	while (!child_done)
		pthread_cond_wait(&ready_cond, &ready_lock);
	pthread_mutex_unlock(&ready_lock);
	pthread_mutex_unlock(&table_lock);
	return NULL;
}

static void child_reads_table(void)
{
	pthread_mutex_lock(&table_lock);        /* BUG: its owner was not copied */
	pthread_mutex_unlock(&table_lock);
	_exit(0);
}

int main(void)
{
	pthread_t t;
	pid_t pid;
	int status;

	if (pthread_create(&t, NULL, holder, NULL) != 0) {
		perror("pthread_create");
		return 2;
	}
	pthread_mutex_lock(&ready_lock);
	while (!table_locked)
		pthread_cond_wait(&ready_cond, &ready_lock);
	pthread_mutex_unlock(&ready_lock);
	pid = fork();
	if (pid < 0) {
		perror("fork");
		return 2;
	}
	if (pid == 0)
		child_reads_table();
	waitpid(pid, &status, 0);
	pthread_mutex_lock(&ready_lock);
	child_done = 1;
	pthread_cond_broadcast(&ready_cond);
	pthread_mutex_unlock(&ready_lock);
	pthread_join(t, NULL);
	printf("fork_held_lock: child exited %d\n", WEXITSTATUS(status));
	return 0;
}
