/* chess_hb.c - happens-before fingerprints of run prefixes (chess_hb.h). */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "strategy/chess_hb.h"
#include "strategy/strategy.h"

void sc_chess_hb_init(struct sc_chess_hb *h)
{
	memset(h, 0, sizeof(*h));
	u64map_init(&h->objects);
}

void sc_chess_hb_free(struct sc_chess_hb *h)
{
	free(h->index);
	free(h->obj);
	u64map_free(&h->objects);
	memset(h, 0, sizeof(*h));
}

/* The slot of object, made on first use; NULL when out of memory. */
static struct sc_chess_hb_object *object_of(struct sc_chess_hb *h,
					    uint64_t object)
{
	int added = 0;
	int64_t slot;

	if (h->nobj == h->capobj) {
		size_t cap = h->capobj ? h->capobj * 2 : 64;
		struct sc_chess_hb_object *o = realloc(h->obj, cap * sizeof(*o));

		if (!o)
			return NULL;
		h->obj = o;
		h->capobj = cap;
	}
	slot = u64map_get_or_add(&h->objects, object, (uint32_t)h->nobj,
				 &added);
	if (slot < 0)
		return NULL;
	if (added)
		memset(&h->obj[h->nobj++], 0, sizeof(h->obj[0]));
	return &h->obj[slot];
}

/* Events that come and go with timing (a slice expiry, a slow syscall's
 * return) say nothing about the partial order of the program's
 * synchronisation: leaving them out lets a state reached with and without
 * them match. */
static bool timing_event(uint16_t kind)
{
	return kind == SC_EV_PREEMPT || kind == SC_EV_SYSCALL_RETURN;
}

/* The fingerprint term of ev given the state so far, and the id of ev;
 * o is ev's object slot (NULL: object 0, or never touched). */
static uint64_t term_of(const struct sc_chess_hb *h, const struct sc_event *ev,
			const struct sc_chess_hb_object *o, uint64_t *idp)
{
	uint32_t index = ev->thread < h->nindex ? h->index[ev->thread] : 0;
	/* +1: an id is never 0, which marks "no writer yet". */
	uint64_t id = u64_mix(((uint64_t)ev->thread << 32 | index) + 1);
	uint64_t term = u64_mix(id ^ ((uint64_t)ev->kind << 48) ^
				u64_mix(ev->object));

	if (ev->object) {
		term = u64_mix(term ^ u64_mix((o ? o->last_write : 0) + 0x9e37));
		/* A write follows the reads since the last write. */
		if (ev->access != SC_ACC_READ)
			term = u64_mix(term ^ u64_mix(o ? o->reads + o->nreads
							: 0));
	}
	/* Which waiters a wake released is part of the state. */
	for (uint32_t i = 0; ev->woken && i < ev->nwoken; i++)
		term = u64_mix(term ^ ((uint64_t)ev->woken[i] + 0x2545f4914f6cdd1dULL));
	*idp = id;
	return term;
}

uint64_t sc_chess_hb_after(const struct sc_chess_hb *h,
			   const struct sc_event *ev)
{
	const struct sc_chess_hb_object *o = NULL;
	uint64_t id;
	int64_t slot;

	if (timing_event(ev->kind))
		return h->sum;
	if (ev->object) {
		slot = u64map_get(&h->objects, ev->object);
		o = slot >= 0 ? &h->obj[slot] : NULL;
	}
	return h->sum + term_of(h, ev, o, &id);
}

void sc_chess_hb_event(struct sc_chess_hb *h, const struct sc_event *ev)
{
	struct sc_chess_hb_object *o = NULL;
	uint64_t id, term;

	if (h->failed || timing_event(ev->kind))
		return;
	if (sc_grow_table((void **)&h->index, &h->nindex, ev->thread,
			  sizeof(*h->index)) < 0) {
		h->failed = 1;
		return;
	}
	if (ev->object) {
		o = object_of(h, ev->object);
		if (!o) {
			h->failed = 1;
			return;
		}
	}
	term = term_of(h, ev, o, &id);
	h->index[ev->thread]++;
	if (o && ev->access == SC_ACC_READ) {
		o->reads += id;
		o->nreads++;
	} else if (o) {
		o->last_write = id;
		o->reads = 0;
		o->nreads = 0;
	}
	h->sum += term;
}
