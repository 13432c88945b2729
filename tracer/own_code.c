/* own_code.c - which code of a module is the program's own, for the
 * breakpoints planted on its instructions (mem granularity, and the
 * atomics at sync granularity).
 *
 * A dynamically linked program's own code is its executable and the
 * shared objects it brings along; the system's libraries (libc, libstdc++,
 * the loader) are not: their synchronisation is seen at the pthread
 * entries and futexes, and their internal atomics (malloc's arenas, stdio
 * locks, reference counts) would only add points.
 *
 * A static binary of a runtime carries the runtime inside the executable.
 * A Go binary (it has a .go.buildinfo section) holds the whole Go runtime
 * and scheduler, whose atomics and memory accesses run thousands of times
 * in a 2 ms program: only the functions of package main (symbols "main."
 * and their closures "main.f.func1") are the program's own.
 */
#include <fcntl.h>
#include <limits.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"

bool sc_system_library(const char *path)
{
	static const char *const dirs[] = {
		"/lib/", "/lib64/", "/lib32/", "/usr/lib/", "/usr/lib64/",
		"/usr/lib32/", "/usr/libexec/",
	};
	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++)
		if (strncmp(path, dirs[i], strlen(dirs[i])) == 0)
			return true;
	return false;
}

bool sc_system_program(const char *path)
{
	static const char *const dirs[] = {
		"/bin/", "/sbin/", "/usr/bin/", "/usr/sbin/", "/usr/games/",
	};
	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++)
		if (strncmp(path, dirs[i], strlen(dirs[i])) == 0)
			return true;
	return sc_system_library(path);
}

/* A shell or a language runtime: the program it runs is the user's, not
 * its own code. */
static bool interpreter(const char *path)
{
	static const char *const names[] = {
		"sh", "bash", "dash", "zsh", "ksh", "mksh", "busybox", "env",
		"python", "perl", "ruby", "node", "nodejs", "java", "lua",
		"tclsh", "php", "Rscript", "make", "timeout", "nice", "nohup",
		"stdbuf", "xargs",
	};
	const char *slash = strrchr(path, '/');
	const char *base = slash ? slash + 1 : path;

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		size_t n = strlen(names[i]);
		/* python3.11, perl5.36.0: a version after the name. */
		if (strncmp(base, names[i], n) == 0 &&
		    (base[n] == '\0' || (base[n] >= '0' && base[n] <= '9')))
			return true;
	}
	return false;
}

bool sc_runtime_library(const char *exe, const char *lib)
{
	if (!interpreter(exe))
		return false;
	/* The installation's prefix: /root/.pyenv/versions/3.11.7/ of
	 * .../bin/python3 holds lib/libpython3.11.so and lib-dynload's
	 * modules.  A C extension of the user's, elsewhere, is not the
	 * runtime's. */
	const char *bin = strrchr(exe, '/');
	size_t len = 0;
	if (bin && bin > exe) {
		const char *up = bin - 1;
		while (up > exe && *up != '/')
			up--;
		len = (size_t)(up - exe) + 1;
	}
	return len > 1 && strncmp(lib, exe, len) == 0;
}

bool sc_process_is_own(const struct sc_engine *e, const struct sc_process *p)
{
	char link[64], exe[PATH_MAX];

	snprintf(link, sizeof(link), "/proc/%d/exe", (int)p->pid);
	ssize_t n = readlink(link, exe, sizeof(exe) - 1);
	if (n <= 0)
		return true;    /* unknown: as before */
	exe[n] = '\0';
	return sc_exe_is_own(e, p, exe);
}

/* Does the program the user named start with "#!"? */
static bool named_a_script(const struct sc_engine *e)
{
	char head[2] = "";
	const char *prog = e->cfg->argv ? e->cfg->argv[0] : NULL;
	int fd = prog ? open(prog, O_RDONLY | O_CLOEXEC) : -1;

	if (fd < 0)
		return false;
	ssize_t n = read(fd, head, sizeof(head));
	close(fd);
	return n == 2 && head[0] == '#' && head[1] == '!';
}

bool sc_exe_is_own(const struct sc_engine *e, const struct sc_process *p,
		   const char *exe)
{
	/* Wherever it is installed: pyenv's, a venv's or setup-python's
	 * python3 is the runtime as much as /usr/bin's (instrumented, a
	 * correct script took 31 s instead of 0.4 s). */
	if (interpreter(exe))
		return false;
	if (!sc_system_program(exe))
		return true;
	/* pigz, sort, xz named on the command line: the program under test,
	 * though Debian installed it. */
	return p == e->main_proc && p->images <= 1 && !interpreter(exe) &&
	       !named_a_script(e);
}

static Elf_Scn *section_named(Elf *elf, size_t shstrndx, const char *want,
			      GElf_Shdr *sh)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(elf, scn))) {
		const char *name;
		if (!gelf_getshdr(scn, sh))
			continue;
		name = elf_strptr(elf, shstrndx, sh->sh_name);
		if (name && strcmp(name, want) == 0)
			return scn;
	}
	return NULL;
}

/* The functions of package main of a Go binary, from its symbol table. */
static int go_main_functions(Elf *elf, size_t shstrndx,
			     struct sc_addr_ranges *out)
{
	GElf_Shdr sh;
	Elf_Scn *scn = section_named(elf, shstrndx, ".symtab", &sh);
	Elf_Data *d = scn ? elf_getdata(scn, NULL) : NULL;

	if (!d || !sh.sh_entsize)
		return -1;      /* stripped: nothing tells main from runtime */
	size_t n = sh.sh_size / sh.sh_entsize;
	for (size_t i = 0; i < n; i++) {
		GElf_Sym s;
		const char *name;
		if (!gelf_getsym(d, (int)i, &s) ||
		    GELF_ST_TYPE(s.st_info) != STT_FUNC || !s.st_size)
			continue;
		name = elf_strptr(elf, sh.sh_link, s.st_name);
		if (name && strncmp(name, "main.", 5) == 0 &&
		    sc_addr_ranges_push(out, s.st_value, s.st_value + s.st_size) < 0)
			return -1;
	}
	return 0;
}

enum sc_runtime sc_own_code(Elf *elf, struct sc_addr_ranges *only)
{
	size_t shstrndx;
	GElf_Shdr sh;

	memset(only, 0, sizeof(*only));
	if (elf_getshdrstrndx(elf, &shstrndx) ||
	    !section_named(elf, shstrndx, ".go.buildinfo", &sh))
		return SC_RUNTIME_NONE;
	if (go_main_functions(elf, shstrndx, only) < 0 || only->n == 0) {
		sc_addr_ranges_free(only);
		return SC_RUNTIME_GO_STRIPPED;
	}
	return SC_RUNTIME_GO;
}

void sc_note_runtime(struct sc_engine *e, enum sc_runtime rt,
		     const char *path)
{
	const char *name = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;

	if (e->res->notice[0])
		return;
	if (rt == SC_RUNTIME_GO)
		snprintf(e->res->notice, sizeof(e->res->notice),
			 "%s is a Go binary: only the functions of package "
			 "main are instrumented, not the Go runtime", name);
	else if (rt == SC_RUNTIME_GO_STRIPPED)
		snprintf(e->res->notice, sizeof(e->res->notice),
			 "%s is a Go binary without symbols: its own code "
			 "cannot be told from the Go runtime, none of it is "
			 "instrumented", name);
}

/* Does the NUL-separated list of /proc/pid/FILE hold an entry that
 * contains what? */
static bool proc_list_has(pid_t pid, const char *file, const char *what)
{
	char path[64], buf[65536];
	int fd;
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%d/%s", (int)pid, file);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return false;
	buf[n] = '\0';
	for (ssize_t i = 0; i < n; i += (ssize_t)strlen(buf + i) + 1)
		if (strstr(buf + i, what))
			return true;
	return false;
}

/* A JVM keeps a perf data file in /tmp/hsperfdata_USER, named by its pid,
 * and reads the directory at start: the files other JVMs (and diverged
 * replays) leave there change what it does, so runs of one seed and
 * replays differ (QA: run 1 of a thread pool took 46270, 48685 and 49699
 * steps in three sessions).  Replay's divergence message says so; the
 * user hears it at launch too. */
void sc_note_jvm(struct sc_engine *e, const struct sc_process *p)
{
	char link[64], exe[PATH_MAX];
	const char *base;

	if (e->res->notice[0] || !p->controlled)
		return;
	snprintf(link, sizeof(link), "/proc/%d/exe", (int)p->pid);
	ssize_t n = readlink(link, exe, sizeof(exe) - 1);
	if (n <= 0)
		return;
	exe[n] = '\0';
	base = strrchr(exe, '/') ? strrchr(exe, '/') + 1 : exe;
	if (strcmp(base, "java") != 0 ||
	    proc_list_has(p->pid, "cmdline", "-XX:-UsePerfData") ||
	    proc_list_has(p->pid, "environ", "-XX:-UsePerfData"))
		return;
	snprintf(e->res->notice, sizeof(e->res->notice),
		 "notice: java keeps a file in /tmp/hsperfdata_$USER and reads "
		 "the ones other JVMs left there at its start, so runs of one "
		 "seed and replays may differ: run java with -XX:-UsePerfData");
}
