/*
 * fork_exec (correct): a thread forks, the child execs /bin/true and the
 * thread waits for it and checks its status; main joins the thread.
 * Exercises fork and exec from a multithreaded process (the child inherits
 * the tracer's seccomp filter).
 */
#include <pthread.h>
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

static int child_status = -1;

static void *spawner(void *arg)
{
	pid_t pid;
	int status;

	(void)arg;
	pid = fork();
	if (pid < 0) {
		perror("fork_exec: fork");
		return NULL;
	}
	if (pid == 0) {
		execl("/bin/true", "true", (char *)NULL);
		_exit(127);
	}
	while (waitpid(pid, &status, 0) < 0)
		;
	if (WIFEXITED(status))
		child_status = WEXITSTATUS(status);
	return NULL;
}

int main(void)
{
	pthread_t t;

	if (pthread_create(&t, NULL, spawner, NULL) != 0) {
		perror("fork_exec: pthread_create");
		return 2;
	}
	pthread_join(t, NULL);
	if (child_status != 0) {
		fprintf(stderr, "fork_exec: child status %d\n", child_status);
		return 1;
	}
	printf("fork_exec: child exited 0\n");
	return 0;
}
