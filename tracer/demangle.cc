// demangle.cc - sc_demangle(): the one C++ source of schedctl, because the
// C++ runtime's demangler (abi::__cxa_demangle, in libstdc++ which every
// C++ program already loads) is the one that knows the Itanium ABI; a
// hand-written one would lag behind the compilers.  Rust's names (v0,
// "_R...", and legacy, "_ZN...17h<hash>E", which __cxa_demangle would
// leave with $LT$ escapes and the hash) go to libiberty's Rust demangler,
// GCC's and binutils' own.
#include <cstdlib>
#include <cstring>
#include <cxxabi.h>
// glibc's <cstring> declares basename already (with C++ overloads).
#define HAVE_DECL_BASENAME 1
#include <libiberty/demangle.h>

#include "demangle.h"

extern "C" char *sc_demangle(const char *name)
{
	if (!name)
		return nullptr;
	if (std::strncmp(name, "_R", 2) == 0 ||
	    std::strncmp(name, "_ZN", 3) == 0) {
		// NULL unless it is a Rust name (legacy ones end in a hash).
		char *rust = cplus_demangle(name, DMGL_RUST);
		if (rust)
			return rust;
	}
	// Only Itanium-mangled names: __cxa_demangle also "demangles" plain
	// words as types ("i" -> "int", "f" -> "float"), which would turn a
	// C variable called i into int.
	if (std::strncmp(name, "_Z", 2) == 0) {
		int status = -1;
		char *out = abi::__cxa_demangle(name, nullptr, nullptr, &status);
		if (status == 0 && out)
			return out;
		std::free(out);
	}
	return strdup(name);
}

void sc_name_copy(char *buf, size_t len, const char *name)
{
	static const char ellipsis[] = SC_ELLIPSIS;
	size_t n = std::strlen(name);

	if (len == 0)
		return;
	if (n < len) {
		std::memcpy(buf, name, n + 1);
		return;
	}
	size_t keep = len > sizeof(ellipsis) ? len - sizeof(ellipsis) : 0;
	std::memcpy(buf, name, keep);
	std::memcpy(buf + keep, ellipsis, len - keep > sizeof(ellipsis)
		    ? sizeof(ellipsis) : len - keep);
	buf[len - 1] = '\0';
}
