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
	plan(13);
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
	/* Rust: v0 and legacy names, without the legacy hash. */
	check("_RNvCs3mSbOeLENLV_4test9test_main", "test::test_main",
	      "Rust v0 function");
	check("_ZN9staticmut7COUNTER17hde663c69245a726bE", "staticmut::COUNTER",
	      "Rust legacy static, hash dropped");
	check("_ZN4core3ptr85drop_in_place$LT$std..rt..lang_start$LT$$LP$$RP$$GT$..$u7b$$u7b$closure$u7d$$u7d$$GT$17h0a9ad4e3d5cd0b76E",
	      "core::ptr::drop_in_place<std::rt::lang_start<()>::{{closure}}>",
	      "Rust legacy generic closure, escapes decoded");
	check("_ZN3foo3barEv", "foo::bar()", "a C++ name under _ZN stays C++");
	ok(sc_demangle(NULL) == NULL, "NULL in, NULL out");
	return done_testing();
}
