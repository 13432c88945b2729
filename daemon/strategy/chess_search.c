/* chess_search.c - chess's search tree and state cache (chess_search.h). */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "strategy/chess_search.h"

/* Entries of the state cache (16 bytes each, in the map's arrays). */
#define MAX_SEEN (8u << 20)

struct sc_chess_search *sc_chess_search_new(uint32_t bound, bool cache)
{
	struct sc_chess_search *s = calloc(1, sizeof(*s));
	const struct sc_chess_choice none = { 0 };

	if (!s)
		return NULL;
	s->bound = bound < 16 ? bound : 16;
	s->cache = cache;
	u64map_init(&s->seen);
	if (sc_chess_search_add(s, SC_CHESS_NO_NODE, &none, true, 0) ==
	    SC_CHESS_NO_NODE) {
		sc_chess_search_free(s);
		return NULL;
	}
	return s;
}

void sc_chess_search_free(struct sc_chess_search *s)
{
	if (!s)
		return;
	free(s->nodes);
	for (size_t i = 0; i < sizeof(s->stack) / sizeof(s->stack[0]); i++)
		free(s->stack[i]);
	u64map_free(&s->seen);
	free(s);
}

int sc_chess_search_level(const struct sc_chess_search *s)
{
	for (uint32_t c = 0; c <= s->bound; c++)
		if (s->nstack[c])
			return (int)c;
	return -1;
}

bool sc_chess_search_next(struct sc_chess_search *s, uint32_t *node)
{
	int c = sc_chess_search_level(s);

	if (c < 0)
		return false;
	/* The top: depth-first within one preemption count. */
	*node = s->stack[c][--s->nstack[c]];
	return true;
}

uint32_t sc_chess_search_prune(struct sc_chess_search *s)
{
	uint32_t dropped = 0;
	int c;

	while ((c = sc_chess_search_level(s)) >= 0) {
		const struct sc_chess_node *n =
			&s->nodes[s->stack[c][s->nstack[c] - 1]];

		if (!n->key || !sc_chess_search_known(s, n->key,
						      n->c.preemptions))
			break;
		s->nstack[c]--;
		dropped++;
	}
	return dropped;
}

long sc_chess_search_path(const struct sc_chess_search *s, uint32_t node,
			  struct sc_chess_choice **out)
{
	long n = 0;

	/* The root (index 0) holds no choice. */
	for (uint32_t i = node; i != 0 && i != SC_CHESS_NO_NODE;
	     i = s->nodes[i].parent)
		n++;
	*out = malloc(((size_t)n + 1) * sizeof(**out));
	if (!*out)
		return -1;
	long k = n;
	for (uint32_t i = node; i != 0 && i != SC_CHESS_NO_NODE;
	     i = s->nodes[i].parent)
		(*out)[--k] = s->nodes[i].c;
	return n;
}

static bool push(struct sc_chess_search *s, uint32_t level, uint32_t node)
{
	if (s->nstack[level] == s->capstack[level]) {
		size_t cap = s->capstack[level] ? s->capstack[level] * 2 : 64;
		uint32_t *st = realloc(s->stack[level], cap * sizeof(*st));

		if (!st)
			return false;
		s->stack[level] = st;
		s->capstack[level] = cap;
	}
	s->stack[level][s->nstack[level]++] = node;
	return true;
}

uint32_t sc_chess_search_add(struct sc_chess_search *s, uint32_t parent,
			     const struct sc_chess_choice *c, bool to_explore,
			     uint64_t key)
{
	uint32_t idx;

	if (s->nnodes >= SC_CHESS_MAX_NODES) {
		s->truncated = true;
		return SC_CHESS_NO_NODE;
	}
	if (s->nnodes == s->capnodes) {
		size_t cap = s->capnodes ? s->capnodes * 2 : 1024;
		struct sc_chess_node *n = realloc(s->nodes, cap * sizeof(*n));

		if (!n) {
			s->truncated = true;
			return SC_CHESS_NO_NODE;
		}
		s->nodes = n;
		s->capnodes = cap;
	}
	idx = (uint32_t)s->nnodes;
	s->nodes[idx] = (struct sc_chess_node){ .parent = parent, .c = *c,
						.key = key };
	if (to_explore && !push(s, c->preemptions, idx)) {
		s->truncated = true;
		return SC_CHESS_NO_NODE;
	}
	s->nnodes++;
	return idx;
}

bool sc_chess_search_seen(struct sc_chess_search *s, uint64_t key,
			  uint32_t preemptions)
{
	int added = 0;
	int64_t was;

	if (!s->cache)
		return false;
	/* A full cache only stops remembering: exploring a state twice
	 * costs runs, never coverage. */
	if (s->seen.len >= MAX_SEEN)
		return sc_chess_search_known(s, key, preemptions);
	was = u64map_get_or_add(&s->seen, key, preemptions, &added);
	if (was < 0 || added)
		return false;
	/* Reached before with more preemptions cannot happen: a run checks
	 * states only after its forced prefix, with the preemptions of the
	 * level it belongs to, and levels run in increasing order.  Were it
	 * to happen, exploring again is the safe answer. */
	return (uint32_t)was <= preemptions;
}

bool sc_chess_search_known(const struct sc_chess_search *s, uint64_t key,
			   uint32_t preemptions)
{
	int64_t was = s->cache ? u64map_get(&s->seen, key) : -1;

	return was >= 0 && (uint32_t)was <= preemptions;
}
