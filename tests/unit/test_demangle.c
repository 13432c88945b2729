/* test_demangle.c - sc_demangle(): mangled C++ names come back as the
 * source spells them, everything else comes back unchanged; and
 * sc_short_name() elides the template arguments of long names. */
#include <stdlib.h>

#include "analysis.h"
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
	plan(17);
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
	/* sc_short_name: long template names lose their template arguments. */
	{
		char out[256];
		const char *map = "std::map<std::__cxx11::basic_string<char, "
			"std::char_traits<char>, std::allocator<char> >, int, "
			"std::less<std::__cxx11::basic_string<char, "
			"std::char_traits<char>, std::allocator<char> > >, "
			"std::allocator<std::pair<std::__cxx11::basic_string<char, "
			"std::char_traits<char>, std::allocator<char> > const, "
			"int> > >::operator[](std::__cxx11::basic_string<char, "
			"std::char_traits<char>, std::allocator<char> > const&)";

		sc_short_name(map, 80, out, sizeof(out));
		is_str(out, "std::map<...>::operator[](std::__cxx11::"
		       "basic_string<...> const&)", "short name: templates elided");
		sc_short_name("std::operator<< <char>(std::basic_ostream<char, "
			      "std::char_traits<char> >&, char const*)", 20, out,
			      sizeof(out));
		is_str(out, "std::operator<< <...>(std::basic_ostream<...>&, "
		       "char const*)", "short name: operator<< keeps its brackets");
		sc_short_name("main", 20, out, sizeof(out));
		is_str(out, "main", "short name: a short name stays");
		sc_short_name(map, 80, out, 16);
		is_str(out, "std::map<...>::", "short name: cut at the buffer");
	}
	return done_testing();
}
