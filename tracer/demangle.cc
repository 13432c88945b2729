// demangle.cc - sc_demangle(): the one C++ source of schedctl, because the
// C++ runtime's demangler (abi::__cxa_demangle, in libstdc++ which every
// C++ program already loads) is the one that knows the Itanium ABI; a
// hand-written one would lag behind the compilers.
#include <cstdlib>
#include <cstring>
#include <cxxabi.h>

#include "demangle.h"

extern "C" char *sc_demangle(const char *name)
{
	if (!name)
		return nullptr;
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
