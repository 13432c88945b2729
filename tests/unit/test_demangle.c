/* test_demangle.c - sc_demangle(): mangled C++ names come back as the
 * source spells them, everything else comes back unchanged. */
#include <stdlib.h>

#include "demangle.h"
#include "tap.h"

/* Demangle name, compare with want, free. */
static void check(const char *name, const char *want, const char *what)
{
	char *got = sc_demangle(name);

	is_str(got ? got : "(null)", want, "%s", what);
	free(got);
}

int main(void)
{
	plan(9);
	/* The names of tests/targets/shared_mutex_counter.cc and the like. */
	check("_ZL2mu", "mu", "static variable");
	check("_ZL6workerv", "worker()", "static function, no arguments");
	check("_ZN12_GLOBAL__N_16workerEb", "(anonymous namespace)::worker(bool)",
	      "anonymous-namespace function");
	check("_ZN12_GLOBAL__N_12rwE", "(anonymous namespace)::rw",
	      "anonymous-namespace variable");
	check("_ZNSt5mutex4lockEv", "std::mutex::lock()", "member function");
	/* C names stay as they are, even the ones that read as a type
	 * code ("i" would demangle to "int"). */
	check("counter", "counter", "C variable");
	check("i", "i", "one-letter C variable is not a type");
	check("_Zbroken", "_Zbroken", "invalid mangled name: the raw name");
	ok(sc_demangle(NULL) == NULL, "NULL in, NULL out");
	return done_testing();
}
