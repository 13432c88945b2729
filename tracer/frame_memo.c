/* frame_memo.c - see frame_memo.h. */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "frame_memo.h"

/* Distinct frames of the stacks a session reports: a few hundred at most
 * in practice; the least recently used one makes room. */
#define MEMO_ENTRIES 512

struct memo_entry {
	char *path;                     /* NULL: free */
	dev_t dev;
	ino_t ino;
	off_t size;
	struct timespec mtime;
	uint64_t vaddr;
	int type;
	bool with_module;
	size_t max;
	uint64_t used;                  /* tick of the last use */
	struct sc_frame_names names;
};

static struct memo_entry *memo;
static uint64_t ticks;

static bool same_file(const struct memo_entry *m, const struct stat *st)
{
	return m->dev == st->st_dev && m->ino == st->st_ino &&
	       m->size == st->st_size &&
	       m->mtime.tv_sec == st->st_mtim.tv_sec &&
	       m->mtime.tv_nsec == st->st_mtim.tv_nsec;
}

static struct memo_entry *find(const struct sc_frame_query *q)
{
	for (size_t i = 0; memo && i < MEMO_ENTRIES; i++) {
		struct memo_entry *m = &memo[i];
		if (m->path && m->vaddr == q->vaddr && m->type == q->type &&
		    m->with_module == q->with_module && m->max == q->max &&
		    strcmp(m->path, q->path) == 0)
			return m;
	}
	return NULL;
}

const struct sc_frame_names *sc_frame_memo_get(const struct sc_frame_query *q)
{
	struct memo_entry *m = find(q);
	struct stat st;

	if (!m || stat(q->path, &st) < 0 || !same_file(m, &st))
		return NULL;
	m->used = ++ticks;
	return &m->names;
}

void sc_frame_memo_put(const struct sc_frame_query *q,
		       const struct sc_frame_names *names)
{
	struct memo_entry *m = find(q);
	struct stat st;

	if (stat(q->path, &st) < 0)
		return;
	if (!memo && !(memo = calloc(MEMO_ENTRIES, sizeof(*memo))))
		return;
	if (!m) {
		m = &memo[0];
		for (size_t i = 0; i < MEMO_ENTRIES && m->path; i++)
			if (!memo[i].path || memo[i].used < m->used)
				m = &memo[i];
		free(m->path);
		m->path = strdup(q->path);
		if (!m->path)
			return;
	}
	m->dev = st.st_dev;
	m->ino = st.st_ino;
	m->size = st.st_size;
	m->mtime = st.st_mtim;
	m->vaddr = q->vaddr;
	m->type = q->type;
	m->with_module = q->with_module;
	m->max = q->max;
	m->used = ++ticks;
	m->names = *names;
}
