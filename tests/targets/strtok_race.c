/* strtok_race.c (buggy): two threads split their own lines with
 * strtok(3), whose position lives in a static object of libc's: a call in
 * one thread between another's strtok(line) and strtok(NULL) makes the
 * other go on in the wrong string.  Natively 7 of 500 runs fail; no
 * configuration ever found it, since the state is libc's, which is not
 * instrumented.  The calls of such functions are memory events on their
 * state now (tests/e2e/race_gran.sh). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int count_fields(const char *line)
{
	char copy[64];
	int n = 0;

	strcpy(copy, line);
	for (char *tok = strtok(copy, ","); tok; tok = strtok(NULL, ",")) /* STRTOK */
		n++;
	return n;
}

static void *parser(void *arg)
{
	const char *line = arg;
	int n = count_fields(line);

	if (n != 4) {
		fprintf(stderr, "parsed %d fields of '%s'\n", n, line);
		exit(3);
	}
	return NULL;
}

int main(void)
{
	pthread_t a, b;

	pthread_create(&a, NULL, parser, "host,port,user,pass");
	pthread_create(&b, NULL, parser, "a,b,c,d");
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	return 0;
}
