/* maps.c - reading /proc/PID/maps: the one parser behind libc lookup,
 * module instrumentation, symbolisation and the trace's module map. */
#include <dirent.h>
#include <stdio.h>
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

int sc_maps_foreach(pid_t pid, int (*fn)(const struct sc_map_entry *m,
					 void *arg), void *arg)
{
	char line[4200];
	int rc = 0;

	FILE *f = open_maps(pid);
	if (!f)
		return -1;
	while (!rc && fgets(line, sizeof(line), f)) {
		unsigned long start, end, off;
		char perms[8] = "", file[4096] = "";
		if (sscanf(line, "%lx-%lx %7s %lx %*s %*s %4095[^\n]", &start,
			   &end, perms, &off, file) < 4 || file[0] != '/')
			continue;   /* anonymous, [heap], [stack], [vdso] */
		struct sc_map_entry m = { start, end, off, file,
					  perms[2] == 'x' };
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

/* Is addr in a shared mapping of pid (MAP_SHARED: shm, a shared anonymous
 * mapping, a shared file), one another process may see as well?  false
 * when the maps cannot be read. */
bool sc_maps_addr_shared(pid_t pid, uint64_t addr)
{
	char line[4200];
	bool shared = false;

	FILE *f = open_maps(pid);
	if (!f)
		return false;
	while (fgets(line, sizeof(line), f)) {
		unsigned long start, end;
		char perms[8] = "";
		if (sscanf(line, "%lx-%lx %7s", &start, &end, perms) != 3)
			continue;
		if (addr >= start && addr < end) {
			shared = perms[3] == 's';
			break;
		}
	}
	fclose(f);
	return shared;
}
