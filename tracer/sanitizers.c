/* sanitizers.c - what a program's sanitizer runtime cannot do under
 * schedctl.
 *
 * LeakSanitizer (on by default in AddressSanitizer builds) stops the
 * program's threads with ptrace(2) to scan their stacks at exit; under
 * schedctl's ptrace it cannot, prints "LeakSanitizer has encountered a
 * fatal error" and exits with status 1: every run of an ASan build
 * failed, whatever the schedule.  The launch turns leak detection off for
 * such programs (cli/cmd_launch.c) and says so.
 *
 * UndefinedBehaviorSanitizer, as gcc builds it by default, prints its
 * report and goes on: the run exited 0 and passed, its report unread
 * (QA).  The launch makes the first report end the run for such
 * programs (halt_on_error), and says so.
 */
#include <fcntl.h>
#include <gelf.h>
#include <string.h>
#include <unistd.h>

#include "elf_symbols.h"
#include "tracer.h"

static int runtime_symbol(const GElf_Sym *s, const char *name, void *arg)
{
	int *found = arg;

	(void)s;
	if (name && (strcmp(name, "__asan_init") == 0 ||
		     strcmp(name, "__lsan_init") == 0)) {
		*found = strcmp(name, "__asan_init") == 0 ? SC_SANITIZER_ASAN
							   : SC_SANITIZER_LSAN;
		return 1;
	}
	return 0;
}

/* A defined symbol whose name starts with prefix (sc_elf_symbols). */
struct prefix_hit {
	const char *prefix;
	bool found;
};

static int has_prefix_symbol(const GElf_Sym *s, const char *name, void *arg)
{
	struct prefix_hit *h = arg;

	(void)s;
	if (name && strncmp(name, h->prefix, strlen(h->prefix)) == 0) {
		h->found = true;
		return 1;
	}
	return 0;
}

/* Does elf need a library whose name starts with prefix (DT_NEEDED)? */
static bool needs_library(Elf *elf, const char *prefix)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_DYNAMIC ||
		    !sh.sh_entsize)
			continue;
		Elf_Data *d = elf_getdata(scn, NULL);
		size_t n = d ? sh.sh_size / sh.sh_entsize : 0;
		for (size_t i = 0; i < n; i++) {
			GElf_Dyn dyn;
			const char *lib;
			if (gelf_getdyn(d, (int)i, &dyn) &&
			    dyn.d_tag == DT_NEEDED &&
			    (lib = elf_strptr(elf, sh.sh_link, dyn.d_un.d_val)) &&
			    strncmp(lib, prefix, strlen(prefix)) == 0)
				return true;
		}
	}
	return false;
}

/* The leak checker elf's DT_NEEDED entries bring. */
static int needed_runtime(Elf *elf)
{
	if (needs_library(elf, "libasan.so"))
		return SC_SANITIZER_ASAN;
	if (needs_library(elf, "liblsan.so"))
		return SC_SANITIZER_LSAN;
	return SC_SANITIZER_NONE;
}

/* fn on the ELF at path (opened read-only); false when it cannot be
 * read. */
static bool with_elf(const char *path, void (*fn)(Elf *elf, void *arg),
		     void *arg)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	Elf *elf;

	if (fd < 0)
		return false;
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ, NULL);
	if (elf) {
		fn(elf, arg);
		elf_end(elf);
	}
	close(fd);
	return elf != NULL;
}

static void find_leak_checker(Elf *elf, void *arg)
{
	int *found = arg;

	*found = needed_runtime(elf);
	if (*found == SC_SANITIZER_NONE)
		sc_elf_symbols(elf, runtime_symbol, found);
}

int sc_leak_sanitizer(const char *path)
{
	int found = SC_SANITIZER_NONE;

	with_elf(path, find_leak_checker, &found);
	return found;
}

static void find_ubsan(Elf *elf, void *arg)
{
	struct prefix_hit *h = arg;

	h->found = needs_library(elf, "libubsan.so");
	if (!h->found)
		sc_elf_symbols(elf, has_prefix_symbol, h);
}

bool sc_ubsan_runtime(const char *path)
{
	struct prefix_hit h = { "__ubsan_handle_", false };

	with_elf(path, find_ubsan, &h);
	return h.found;
}
