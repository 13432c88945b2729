/* maps.c - reading /proc/PID/maps: the one parser behind libc lookup,
 * module instrumentation, symbolisation and the trace's module map.
 *
 * A report unwinds and names a stopped thread's stack frame by frame, and
 * each frame asked the maps again (27 reads of /proc/PID/maps for one
 * failing run's stack): sc_maps_hold() reads them once and serves them
 * from memory until sc_maps_release(), while the process cannot map
 * anything because it is stopped. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* A non-empty maps file at path, rewound; NULL otherwise. */
static FILE *open_nonempty(const char *path)
{
	FILE *f = fopen(path, "re");
	int c;

	if (!f)
		return NULL;
	c = fgetc(f);
	if (c == EOF) {
		fclose(f);
		return NULL;
	}
	ungetc(c, f);
	return f;
}

/* pid's memory map.  A process whose main thread ended with pthread_exit
 * (a zombie leader: its other threads run on) shows an empty
 * /proc/PID/maps; the map is read through one of its live threads. */
static FILE *open_maps(pid_t pid)
{
	char path[96];
	FILE *f;
	DIR *d;
	struct dirent *de;

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	if ((f = open_nonempty(path)))
		return f;
	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	d = opendir(path);
	if (!d)
		return NULL;
	while (!f && (de = readdir(d))) {
		if (de->d_name[0] < '0' || de->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%d/task/%.16s/maps",
			 (int)pid, de->d_name);
		f = open_nonempty(path);
	}
	closedir(d);
	return f;
}

/* One line of a maps file: its file-backed mapping into *m (path into
 * file, 4096 bytes); false for anonymous ones ([heap], [stack], [vdso])
 * and lines that do not parse. */
static bool parse_line(const char *line, struct sc_map_entry *m, char *file)
{
	unsigned long start, end, off;
	char perms[8] = "";

	file[0] = '\0';
	if (sscanf(line, "%lx-%lx %7s %lx %*s %*s %4095[^\n]", &start, &end,
		   perms, &off, file) < 4 || file[0] != '/')
		return false;
	*m = (struct sc_map_entry){ start, end, off, file, perms[2] == 'x' };
	return true;
}

/* The maps of one stopped process, held by sc_maps_hold: the text (for
 * sc_maps_addr_shared, which looks at anonymous mappings too) and its
 * file-backed mappings parsed once, since a stack asks for them per
 * frame. */
static struct {
	pid_t pid;
	char *text;
	size_t len;
	struct sc_map_entry *entries;   /* paths malloc'ed */
	size_t n;
	unsigned depth;         /* nested holds of pid */
} held;

static void drop_held(void)
{
	for (size_t i = 0; i < held.n; i++)
		free((char *)held.entries[i].path);
	free(held.entries);
	free(held.text);
	held.entries = NULL;
	held.n = 0;
	held.text = NULL;
	held.len = 0;
	held.depth = 0;
}

static bool is_held(pid_t pid)
{
	return held.depth && held.pid == pid;
}

static FILE *open_held_or_maps(pid_t pid)
{
	if (is_held(pid))
		return fmemopen(held.text, held.len, "r");
	return open_maps(pid);
}

/* The whole text of f (NUL-terminated, malloc'ed; *len without the NUL);
 * NULL when empty or out of memory. */
static char *slurp(FILE *f, size_t *len)
{
	char *text = NULL;
	size_t cap = 0, n;

	*len = 0;
	do {
		if (cap - *len < 4096) {
			char *grown = realloc(text, cap + 65536);
			if (!grown) {
				free(text);
				return NULL;
			}
			text = grown;
			cap += 65536;
		}
		n = fread(text + *len, 1, cap - *len - 1, f);
		*len += n;
	} while (n > 0);
	if (*len == 0) {        /* fmemopen wants a non-empty buffer */
		free(text);
		return NULL;
	}
	text[*len] = '\0';
	return text;
}

/* Parse held.text into held.entries; -1: out of memory. */
static int parse_held(void)
{
	size_t cap = 0;
	char file[4096];

	for (char *line = held.text; line && *line;) {
		char *nl = strchr(line, '\n');
		struct sc_map_entry m;
		if (nl)
			*nl = '\0';
		bool ok = parse_line(line, &m, file);
		if (nl)
			*nl = '\n';
		line = nl ? nl + 1 : NULL;
		if (!ok)
			continue;
		if (held.n == cap) {
			cap = cap ? 2 * cap : 64;
			struct sc_map_entry *v = realloc(held.entries,
							 cap * sizeof(*v));
			if (!v)
				return -1;
			held.entries = v;
		}
		if (!(m.path = strdup(file)))
			return -1;
		held.entries[held.n++] = m;
	}
	return 0;
}

int sc_maps_hold(pid_t pid)
{
	if (held.depth) {
		if (held.pid != pid)
			return -1;      /* one process at a time */
		held.depth++;
		return 0;
	}
	FILE *f = open_maps(pid);
	if (!f)
		return -1;
	held.text = slurp(f, &held.len);
	fclose(f);
	held.pid = pid;
	if (!held.text || parse_held() < 0) {
		drop_held();
		return -1;
	}
	held.depth = 1;
	return 0;
}

void sc_maps_release(void)
{
	if (held.depth == 1)
		drop_held();
	else if (held.depth)
		held.depth--;
}

int sc_maps_foreach(pid_t pid, int (*fn)(const struct sc_map_entry *m,
					 void *arg), void *arg)
{
	char line[4200], file[4096];
	int rc = 0;

	if (is_held(pid)) {
		for (size_t i = 0; !rc && i < held.n; i++)
			rc = fn(&held.entries[i], arg);
		return rc;
	}
	FILE *f = open_maps(pid);
	if (!f)
		return -1;
	while (!rc && fgets(line, sizeof(line), f)) {
		struct sc_map_entry m;
		if (parse_line(line, &m, file))
			rc = fn(&m, arg);
	}
	fclose(f);
	return rc;
}

struct find_arg {
	const char *path_equal;
	const char *const *prefixes;
	char *path;
	size_t len;
	uint64_t *base;
};

static int find_one(const struct sc_map_entry *m, void *arg)
{
	struct find_arg *a = arg;
	const char *name = strrchr(m->path, '/') + 1;
	bool match = false;

	if (m->offset != 0)
		return 0;
	if (a->path_equal)
		match = strcmp(m->path, a->path_equal) == 0;
	for (const char *const *p = a->prefixes; p && *p && !match; p++)
		match = strncmp(name, *p, strlen(*p)) == 0;
	if (!match)
		return 0;
	snprintf(a->path, a->len, "%s", m->path);
	*a->base = m->start;
	return 1;
}

int sc_maps_find_module(pid_t pid, const char *path_equal,
			const char *const *name_prefixes, char *path,
			size_t len, uint64_t *base)
{
	struct find_arg a = { path_equal, name_prefixes, path, len, base };

	return sc_maps_foreach(pid, find_one, &a) == 1 ? 0 : -1;
}

/* The mapping of pid that holds addr: its bounds, permissions ("rw-p")
 * and name (a path, "[stack]", "" when anonymous; 4096 bytes).  false
 * when none does or the maps cannot be read. */
static bool mapping_at(pid_t pid, uint64_t addr, uint64_t *lo, uint64_t *hi,
		       char perms[8], char *name)
{
	char line[4200];
	bool found = false;

	FILE *f = open_held_or_maps(pid);
	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f)) {
		unsigned long start, end;
		name[0] = '\0';
		if (sscanf(line, "%lx-%lx %7s %*s %*s %*s %4095[^\n]", &start,
			   &end, perms, name) < 3)
			continue;
		if (addr >= start && addr < end) {
			*lo = start;
			*hi = end;
			found = true;
		}
	}
	fclose(f);
	return found;
}

/* Is addr in a shared mapping of pid (MAP_SHARED: shm, a shared anonymous
 * mapping, a shared file), one another process may see as well?  false
 * when the maps cannot be read. */
bool sc_maps_addr_shared(pid_t pid, uint64_t addr)
{
	uint64_t lo, hi;
	char perms[8] = "", name[4096];

	return mapping_at(pid, addr, &lo, &hi, perms, name) && perms[3] == 's';
}

bool sc_maps_addr_executable(pid_t pid, uint64_t addr)
{
	uint64_t lo, hi;
	char perms[8] = "", name[4096];

	return mapping_at(pid, addr, &lo, &hi, perms, name) && perms[2] == 'x';
}

int sc_maps_stack_at(pid_t pid, uint64_t addr, uint64_t *lo, uint64_t *hi)
{
	char perms[8] = "", name[4096];

	/* A stack is the main thread's [stack] or an anonymous mapping (a
	 * thread's, a coroutine's); rsp in the heap (a stack malloc'ed for
	 * makecontext) would make every heap access a stack's. */
	if (!mapping_at(pid, addr, lo, hi, perms, name) ||
	    (name[0] && strcmp(name, "[stack]") != 0))
		return -1;
	return 0;
}
