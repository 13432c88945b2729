/*
 * test_env_digest.c - sc_env_digest: FNV-1a 64 over the sorted
 * "NAME=value" strings, each followed by a 0 byte.
 */
#include <stdint.h>
#include <stdlib.h>

#include "tracer.h"

#include "tap.h"

extern char **environ;

int main(void)
{
	char *empty[] = {NULL};
	char *ab[] = {"A=1", "B=2", NULL};
	char *ba[] = {"B=2", "A=1", NULL};
	char *joined[] = {"A=1B=2", NULL};
	char *ab2[] = {"A=1", "B=3", NULL};

	ok(sc_env_digest(empty) == 0xcbf29ce484222325ULL,
	   "empty environment: the FNV-1a offset basis");
	/* Reference value computed independently (python) over
	 * b"A=1\0B=2\0". */
	ok(sc_env_digest(ab) == 0x7acecd4d228a48fdULL, "reference value");
	ok(sc_env_digest(ab) == sc_env_digest(ba), "independent of order");
	ok(sc_env_digest(ab) != sc_env_digest(joined),
	   "the separator keeps string boundaries");
	ok(sc_env_digest(ab) != sc_env_digest(ab2), "a changed value shows");
	ok(ab[0][0] == 'A' && ba[0][0] == 'B', "envp itself is not reordered");
	ok(sc_env_digest(NULL) == sc_env_digest(environ),
	   "NULL means the current environment");
	return done_testing();
}
