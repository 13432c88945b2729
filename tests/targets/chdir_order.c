/*
 * chdir_order DIR (buggy): main starts a reader, then changes into DIR;
 * the reader opens "marker" by a relative path, taking for granted that
 * main's chdir() came first (an order violation on the process's
 * working directory, shared by its threads).  When the reader comes
 * first, the open fails and the program exits with status 3.  The test
 * gives it a DIR that holds a file "marker".
 *
 * chdir() takes no lock and need not block: schedctl must still be able
 * to run the reader before it (QA: 0 of 200 runs found it; chess said it
 * had tried every schedule).
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static void *reader(void *arg)
{
	int fd = open("marker", O_RDONLY);   /* relative to main's DIR */

	(void)arg;
	if (fd < 0) {
		fprintf(stderr, "chdir_order: marker not found: opened before the chdir\n");
		exit(3);
	}
	close(fd);
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t;

	if (argc != 2) {
		fprintf(stderr, "usage: chdir_order DIR\n");
		return 2;
	}
	pthread_create(&t, NULL, reader, NULL);
	if (chdir(argv[1]) != 0) {           /* CHDIR */
		perror("chdir_order: chdir");
		return 2;
	}
	pthread_join(t, NULL);
	puts("chdir_order: the reader found the marker");
	return 0;
}
