/* site_cache.c - the instrumentation sites of a module, decoded once per
 * job process instead of once per run.
 *
 * Finding the atomic read-modify-writes (every run at sync granularity)
 * or the memory accesses (mem granularity, race granularity's pilot runs)
 * disassembles a module's whole text with Capstone: milliseconds per run
 * for a real program, for the same answer every time.  Entries are keyed
 * by the file's identity (device, inode, size, modification time), the
 * kind of sites and the source filter, and hold addresses relative to
 * the module's load bias, so that a module mapped elsewhere (a library
 * under --follow-forks) still hits.  A rebuilt file changes its key.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fnv.h"
#include "internal.h"

#define SITE_CACHE_ENTRIES 32

struct site_entry {
	struct sc_site_key key;
	struct sc_module_sites sites;   /* .v is ours */
	bool used;
};

static struct site_entry cache[SITE_CACHE_ENTRIES];
static size_t next_victim;

static uint64_t hash_sources(const char *const *sources)
{
	uint64_t h = SC_FNV_OFFSET;

	for (const char *const *s = sources; s && *s; s++)
		h = sc_fnv_bytes(sc_fnv_str(h, *s), "\xff", 1); /* separator */
	return h;
}

int sc_site_key_of(const char *path, enum sc_sites which, uint32_t rules,
		   const char *const *sources, struct sc_site_key *k)
{
	struct stat st;

	if (stat(path, &st) < 0)
		return -1;
	memset(k, 0, sizeof(*k));
	k->dev = st.st_dev;
	k->ino = st.st_ino;
	k->size = st.st_size;
	k->mtime_s = st.st_mtim.tv_sec;
	k->mtime_ns = st.st_mtim.tv_nsec;
	k->which = which;
	k->rules = rules;
	k->sources = which == SC_SITES_MEMORY ? hash_sources(sources) : 0;
	return 0;
}

static bool same_key(const struct sc_site_key *a, const struct sc_site_key *b)
{
	return a->dev == b->dev && a->ino == b->ino && a->size == b->size &&
	       a->mtime_s == b->mtime_s && a->mtime_ns == b->mtime_ns &&
	       a->which == b->which && a->rules == b->rules &&
	       a->sources == b->sources;
}

bool sc_site_cache_get(const struct sc_site_key *k, struct sc_module_sites *out)
{
	for (size_t i = 0; i < SITE_CACHE_ENTRIES; i++) {
		if (cache[i].used && same_key(&cache[i].key, k)) {
			*out = cache[i].sites;
			return true;
		}
	}
	return false;
}

void sc_site_cache_put(const struct sc_site_key *k,
		       const struct sc_module_sites *in)
{
	struct sc_mem_site *copy = NULL;

	if (in->n) {
		copy = malloc(in->n * sizeof(*copy));
		if (!copy)
			return;   /* only a cache: the next run decodes again */
		memcpy(copy, in->v, in->n * sizeof(*copy));
	}
	/* Round robin: a job sees a handful of modules, so the oldest
	 * entry is as good a victim as any. */
	struct site_entry *e = &cache[next_victim];
	next_victim = (next_victim + 1) % SITE_CACHE_ENTRIES;
	free((void *)e->sites.v);
	*e = (struct site_entry){ .key = *k, .sites = *in, .used = true };
	e->sites.v = copy;
}
