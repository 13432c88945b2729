/*
 * perror_exit (buggy): a worker opens a configuration file that is not
 * there, says so with perror() and the program exits with status 2.
 * glibc's perror() dups stderr and fdopen()s the copy "w+": on a
 * write-only descriptor that fails (and it writes to the original), on
 * a read-write one it succeeds (and writes through the copy).  So the
 * run and its replay must give the program the same kind of descriptor
 * (a replay's stderr used to be read-write, and every replay of a
 * program calling perror() diverged at its first write).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static void *load_config(void *arg)
{
	FILE *f = fopen("/nonexistent/schedctl-perror_exit.conf", "r");

	(void)arg;
	if (!f) {
		perror("perror_exit: open config");
		return (void *)1;
	}
	fclose(f);
	return NULL;
}

int main(void)
{
	pthread_t t;
	void *failed;

	pthread_create(&t, NULL, load_config, NULL);
	pthread_join(t, &failed);
	if (failed)
		exit(2);        /* PERROR-EXIT */
	return 0;
}
