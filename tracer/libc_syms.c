/* libc_syms.c - find the pthread/C11 synchronisation functions of the
 * loaded libc with libelf and plant a breakpoint at each entry.
 *
 * Called when the target reaches its entry point: by then the dynamic
 * loader has mapped libc.  The object of each event is the first argument
 * (the lock's address).  Versioned duplicates (pthread_cond_wait@GLIBC_2.2.5
 * and @@GLIBC_2.3.2) get a breakpoint each; aliases at one address get one.
 *
 * A session runs the same program, so the same libc, hundreds of times:
 * what the symbol table gave (file offsets of the functions) is kept for
 * the file last read, known by device, inode, size and mtime, and a run
 * only adds the load address (comparing each of libc's thousands of
 * symbol names with these was a tenth of the supervisor's time per run).
 */
#include <elf.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"

struct sync_fn {
	const char *name;
	uint16_t kind;
	uint8_t access;
	/* Functions with hidden static state (memory events, rules 5): the
	 * function that names the state they share. */
	const char *state;
};

static const struct sync_fn sync_fns[] = {
	{ "pthread_mutex_lock", SC_EV_MUTEX_LOCK, SC_ACC_RMW, NULL },
	{ "pthread_mutex_timedlock", SC_EV_MUTEX_LOCK, SC_ACC_RMW, NULL },
	{ "pthread_mutex_clocklock", SC_EV_MUTEX_LOCK, SC_ACC_RMW, NULL },
	{ "pthread_mutex_trylock", SC_EV_MUTEX_TRYLOCK, SC_ACC_RMW, NULL },
	{ "pthread_mutex_unlock", SC_EV_MUTEX_UNLOCK, SC_ACC_RMW, NULL },
	{ "pthread_cond_wait", SC_EV_COND_WAIT, SC_ACC_RMW, NULL },
	{ "pthread_cond_timedwait", SC_EV_COND_WAIT, SC_ACC_RMW, NULL },
	{ "pthread_cond_clockwait", SC_EV_COND_WAIT, SC_ACC_RMW, NULL },
	{ "pthread_cond_signal", SC_EV_COND_SIGNAL, SC_ACC_WRITE, NULL },
	{ "pthread_cond_broadcast", SC_EV_COND_BROADCAST, SC_ACC_WRITE, NULL },
	{ "pthread_rwlock_rdlock", SC_EV_RWLOCK_RDLOCK, SC_ACC_READ, NULL },
	{ "pthread_rwlock_tryrdlock", SC_EV_RWLOCK_RDLOCK, SC_ACC_READ, NULL },
	{ "pthread_rwlock_timedrdlock", SC_EV_RWLOCK_RDLOCK, SC_ACC_READ, NULL },
	{ "pthread_rwlock_clockrdlock", SC_EV_RWLOCK_RDLOCK, SC_ACC_READ, NULL },
	{ "pthread_rwlock_wrlock", SC_EV_RWLOCK_WRLOCK, SC_ACC_WRITE, NULL },
	{ "pthread_rwlock_trywrlock", SC_EV_RWLOCK_WRLOCK, SC_ACC_WRITE, NULL },
	{ "pthread_rwlock_timedwrlock", SC_EV_RWLOCK_WRLOCK, SC_ACC_WRITE, NULL },
	{ "pthread_rwlock_clockwrlock", SC_EV_RWLOCK_WRLOCK, SC_ACC_WRITE, NULL },
	{ "pthread_rwlock_unlock", SC_EV_RWLOCK_UNLOCK, SC_ACC_WRITE, NULL },
	{ "sem_wait", SC_EV_SEM_WAIT, SC_ACC_RMW, NULL },
	{ "sem_trywait", SC_EV_SEM_WAIT, SC_ACC_RMW, NULL },
	{ "sem_timedwait", SC_EV_SEM_WAIT, SC_ACC_RMW, NULL },
	{ "sem_clockwait", SC_EV_SEM_WAIT, SC_ACC_RMW, NULL },
	{ "sem_post", SC_EV_SEM_POST, SC_ACC_RMW, NULL },
	{ "pthread_spin_lock", SC_EV_SPIN_LOCK, SC_ACC_RMW, NULL },
	{ "pthread_spin_trylock", SC_EV_SPIN_LOCK, SC_ACC_RMW, NULL },
	{ "pthread_spin_unlock", SC_EV_SPIN_UNLOCK, SC_ACC_WRITE, NULL },
	{ "pthread_barrier_wait", SC_EV_BARRIER_WAIT, SC_ACC_RMW, NULL },
	{ "pthread_once", SC_EV_ONCE, SC_ACC_RMW, NULL },
	{ "pthread_create", SC_EV_LIB_CREATE, SC_ACC_NONE, NULL },
	{ "pthread_join", SC_EV_LIB_JOIN, SC_ACC_READ, NULL },
	{ "pthread_timedjoin_np", SC_EV_LIB_JOIN, SC_ACC_READ, NULL },
	{ "pthread_clockjoin_np", SC_EV_LIB_JOIN, SC_ACC_READ, NULL },
	{ "pthread_tryjoin_np", SC_EV_LIB_JOIN, SC_ACC_READ, NULL },
	{ "mtx_lock", SC_EV_MUTEX_LOCK, SC_ACC_RMW, NULL },
	{ "mtx_timedlock", SC_EV_MUTEX_LOCK, SC_ACC_RMW, NULL },
	{ "mtx_trylock", SC_EV_MUTEX_TRYLOCK, SC_ACC_RMW, NULL },
	{ "mtx_unlock", SC_EV_MUTEX_UNLOCK, SC_ACC_RMW, NULL },
	{ "cnd_wait", SC_EV_COND_WAIT, SC_ACC_RMW, NULL },
	{ "cnd_timedwait", SC_EV_COND_WAIT, SC_ACC_RMW, NULL },
	{ "cnd_signal", SC_EV_COND_SIGNAL, SC_ACC_WRITE, NULL },
	{ "cnd_broadcast", SC_EV_COND_BROADCAST, SC_ACC_WRITE, NULL },
	{ "thrd_create", SC_EV_LIB_CREATE, SC_ACC_NONE, NULL },
	{ "thrd_join", SC_EV_LIB_JOIN, SC_ACC_READ, NULL },
	{ "call_once", SC_EV_ONCE, SC_ACC_RMW, NULL },
	/* Not thread-safe: each keeps its state in a static object of
	 * libc's, which a call from another thread changes under it.  Their
	 * calls are memory events on that state (dispatch.c,
	 * on_hidden_state). */
	{ "strtok", SC_EV_MEM_WRITE, SC_ACC_WRITE, "strtok" },
	{ "localtime", SC_EV_MEM_WRITE, SC_ACC_WRITE, "localtime" },
	{ "gmtime", SC_EV_MEM_WRITE, SC_ACC_WRITE, "localtime" },
	{ "ctime", SC_EV_MEM_WRITE, SC_ACC_WRITE, "asctime" },
	{ "asctime", SC_EV_MEM_WRITE, SC_ACC_WRITE, "asctime" },
	{ "inet_ntoa", SC_EV_MEM_WRITE, SC_ACC_WRITE, "inet_ntoa" },
	{ "strsignal", SC_EV_MEM_WRITE, SC_ACC_WRITE, "strsignal" },
	{ "getpwnam", SC_EV_MEM_WRITE, SC_ACC_WRITE, "getpwnam" },
	{ "getpwuid", SC_EV_MEM_WRITE, SC_ACC_WRITE, "getpwnam" },
	{ "getgrnam", SC_EV_MEM_WRITE, SC_ACC_WRITE, "getgrnam" },
	{ "getgrgid", SC_EV_MEM_WRITE, SC_ACC_WRITE, "getgrnam" },
	{ "gethostbyname", SC_EV_MEM_WRITE, SC_ACC_WRITE, "gethostbyname" },
	{ "getenv", SC_EV_MEM_READ, SC_ACC_READ, "getenv" },
	{ "setenv", SC_EV_MEM_WRITE, SC_ACC_WRITE, "getenv" },
	{ "unsetenv", SC_EV_MEM_WRITE, SC_ACC_WRITE, "getenv" },
	{ "putenv", SC_EV_MEM_WRITE, SC_ACC_WRITE, "getenv" },
	{ "clearenv", SC_EV_MEM_WRITE, SC_ACC_WRITE, "getenv" },
};

static const struct sync_fn *lookup_sync_fn(const char *name)
{
	for (size_t i = 0; i < sizeof(sync_fns) / sizeof(sync_fns[0]); i++)
		if (strcmp(sync_fns[i].name, name) == 0)
			return &sync_fns[i];
	return NULL;
}

/* A sync function found in a libc file: its address relative to the
 * load bias (the symbol's value). */
struct found_fn {
	uint64_t value;
	const struct sync_fn *fn;
};

/* What the last libc file read gave. */
static struct {
	bool valid;
	dev_t dev;
	ino_t ino;
	off_t size;
	struct timespec mtime;
	bool is_dyn;
	struct found_fn *v;
	size_t n;
	uint64_t free_value;    /* free's symbol value, 0: none */
} cache;

static int remember(const struct sync_fn *fn, uint64_t value)
{
	struct found_fn *nv = realloc(cache.v, (cache.n + 1) * sizeof(*nv));

	if (!nv)
		return -1;
	cache.v = nv;
	cache.v[cache.n++] = (struct found_fn){ value, fn };
	return 0;
}

static int collect_symtab(Elf *elf, Elf_Scn *scn, GElf_Shdr *sh)
{
	Elf_Data *data = elf_getdata(scn, NULL);

	if (!data || sh->sh_entsize == 0)
		return 0;
	size_t n = sh->sh_size / sh->sh_entsize;
	for (size_t i = 0; i < n; i++) {
		GElf_Sym sym;
		if (!gelf_getsym(data, (int)i, &sym))
			continue;
		if (GELF_ST_TYPE(sym.st_info) != STT_FUNC || sym.st_value == 0 ||
		    sym.st_shndx == SHN_UNDEF)
			continue;
		const char *name = elf_strptr(elf, sh->sh_link, sym.st_name);
		if (name && strcmp(name, "free") == 0)
			cache.free_value = sym.st_value;
		const struct sync_fn *fn = name ? lookup_sync_fn(name) : NULL;
		if (fn && remember(fn, sym.st_value) < 0)
			return -1;
	}
	return 0;
}

/* Fill the cache from the libc file at path (open as fd, whose stat is
 * st). */
static int read_libc(int fd, const struct stat *st)
{
	Elf *elf;
	GElf_Ehdr eh;
	Elf_Scn *scn = NULL;
	int rc = 0;

	cache.valid = false;
	cache.n = 0;
	cache.free_value = 0;
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ, NULL);
	if (!elf)
		return -1;
	cache.is_dyn = gelf_getehdr(elf, &eh) && eh.e_type == ET_DYN;
	while (rc == 0 && (scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_DYNSYM)
			rc = collect_symtab(elf, scn, &sh);
	}
	elf_end(elf);
	if (rc < 0)
		return -1;
	cache.dev = st->st_dev;
	cache.ino = st->st_ino;
	cache.size = st->st_size;
	cache.mtime = st->st_mtim;
	cache.valid = true;
	return 0;
}

static bool cache_is_of(const struct stat *st)
{
	return cache.valid && cache.dev == st->st_dev &&
	       cache.ino == st->st_ino && cache.size == st->st_size &&
	       cache.mtime.tv_sec == st->st_mtim.tv_sec &&
	       cache.mtime.tv_nsec == st->st_mtim.tv_nsec;
}

/* Find p's libc and make the cache its; *bias: what symbol values add.
 * 1 done, 0 no libc (a static binary), -1 error. */
static int load_libc(struct sc_process *p, uint64_t *bias)
{
	char path[4096];
	uint64_t base;
	struct stat st;

	static const char *const libc_names[] = { "libc.so", "libc-", NULL };
	if (sc_maps_find_module(p->pid, NULL, libc_names, path, sizeof(path),
				&base) < 0)
		return 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) < 0 || (!cache_is_of(&st) && read_libc(fd, &st) < 0)) {
		close(fd);
		return -1;
	}
	close(fd);
	*bias = cache.is_dyn ? base : 0;
	return 1;
}

int sc_plant_free_breakpoint(struct sc_process *p)
{
	uint64_t bias;

	if (load_libc(p, &bias) <= 0 || !cache.free_value)
		return -1;
	if (sc_bp_add(p, bias + cache.free_value, SC_EV_FREE, SC_ACC_WRITE,
		      "free") < 0)
		return -1;
	p->free_bp = bias + cache.free_value;
	return 0;
}

/* The symbol value of the function that names a hidden state (the
 * state's pseudo-address: reports call it by that function); own, when
 * that function is not in this libc. */
static uint64_t state_value(const char *state, uint64_t own)
{
	for (size_t i = 0; i < cache.n; i++)
		if (strcmp(cache.v[i].fn->name, state) == 0)
			return cache.v[i].value;
	return own;
}

int sc_plant_libc_breakpoints(struct sc_process *p)
{
	uint64_t bias;
	int planted = 0;
	int found = load_libc(p, &bias);

	if (found <= 0)
		return found;   /* 0: static binary or no libc, syscalls only */
	for (size_t i = 0; i < cache.n; i++) {
		const struct sync_fn *fn = cache.v[i].fn;
		uint64_t at = bias + cache.v[i].value;
		if (sc_bp_add(p, at, fn->kind, fn->access, fn->name) < 0)
			continue;
		planted++;
		if (fn->state)
			sc_bp_find(p, at)->hidden_state =
				bias + state_value(fn->state, cache.v[i].value);
	}
	return planted;
}

/* AT_ENTRY of the current image: where the program proper starts, after
 * the dynamic loader has mapped its libraries. */
uint64_t sc_auxv_entry(pid_t pid)
{
	return sc_auxv_value(pid, AT_ENTRY);
}

uint64_t sc_auxv_value(pid_t pid, uint64_t type)
{
	char path[64];
	/* The whole vector in one read (a few dozen entries), not one
	 * read per entry: this is asked in every run. */
	Elf64_auxv_t av[128];
	uint64_t entry = 0;

	snprintf(path, sizeof(path), "/proc/%d/auxv", (int)pid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	ssize_t got = read(fd, av, sizeof(av));
	close(fd);
	for (size_t i = 0; got > 0 && i < (size_t)got / sizeof(av[0]); i++) {
		if (av[i].a_type == AT_NULL)
			break;
		if (av[i].a_type == type) {
			entry = av[i].a_un.a_val;
			break;
		}
	}
	return entry;
}
