/* threads.c - the table of traced threads and processes of one run.
 *
 * Threads stay sorted by creation (logical id for controlled ones), so a
 * policy sees them in the same order in every run with the same schedule.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"

struct sc_thread *sc_thread_by_tid(struct sc_engine *e, pid_t tid)
{
	for (size_t i = 0; i < e->nthreads; i++)
		if (e->threads[i]->tid == tid)
			return e->threads[i];
	return NULL;
}

struct sc_thread *sc_thread_by_logical(struct sc_engine *e, uint32_t logical)
{
	for (size_t i = 0; i < e->nthreads; i++)
		if (e->threads[i]->controlled && e->threads[i]->logical == logical)
			return e->threads[i];
	return NULL;
}

struct sc_process *sc_process_of_pid(struct sc_engine *e, pid_t pid)
{
	for (size_t i = 0; i < e->nprocs; i++)
		if (e->procs[i]->pid == pid)
			return e->procs[i];
	return NULL;
}

struct sc_process *sc_process_new(struct sc_engine *e, pid_t pid,
				  bool controlled)
{
	struct sc_process *p = calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	if (e->nprocs == e->cap_procs) {
		size_t cap = e->cap_procs ? 2 * e->cap_procs : 4;
		struct sc_process **np = realloc(e->procs, cap * sizeof(*np));
		if (!np) {
			free(p);
			return NULL;
		}
		e->procs = np;
		e->cap_procs = cap;
	}
	p->pid = pid;
	p->controlled = controlled;
	p->mem_fd = -1;
	e->procs[e->nprocs++] = p;
	return p;
}

struct sc_thread *sc_thread_new(struct sc_engine *e, pid_t tid,
				struct sc_process *p)
{
	struct sc_thread *t = calloc(1, sizeof(*t));
	if (!t)
		return NULL;
	if (e->nthreads == e->cap_threads) {
		size_t cap = e->cap_threads ? 2 * e->cap_threads : 16;
		struct sc_thread **nt = realloc(e->threads, cap * sizeof(*nt));
		if (!nt) {
			free(t);
			return NULL;
		}
		e->threads = nt;
		e->cap_threads = cap;
	}
	t->tid = tid;
	t->proc = p;
	t->stat_fd = -1;
	t->controlled = p->controlled;
	t->logical = p->controlled ? e->next_logical++ : UINT32_MAX;
	t->state = TH_NEW;
	if (p->controlled && ++p->threads_created > e->res->process_threads)
		e->res->process_threads = p->threads_created;
	if (p->controlled && p->threads_created == 1)
		p->first_logical = t->logical;
	/* A child process's threads (--follow-forks) are named in the
	 * trace, so that its addresses are not taken for the first
	 * process's memory. */
	if (p->controlled && p != e->main_proc && e->cfg->trace)
		sc_trace_thread_process(e->cfg->trace, t->logical,
					p->first_logical);
	e->threads[e->nthreads++] = t;
	return t;
}

void sc_thread_remove(struct sc_engine *e, struct sc_thread *t)
{
	if (e->ngone == e->cap_gone) {
		size_t cap = e->cap_gone ? e->cap_gone * 2 : 16;
		struct sc_gone_thread *g = realloc(e->gone, cap * sizeof(*g));
		if (g) {
			e->gone = g;
			e->cap_gone = cap;
		}
	}
	if (e->ngone < e->cap_gone)
		e->gone[e->ngone++] = (struct sc_gone_thread){ t->tid,
			t->proc->pid, t->logical };
	for (size_t i = 0; i < e->nthreads; i++) {
		if (e->threads[i] != t)
			continue;
		memmove(&e->threads[i], &e->threads[i + 1],
			(e->nthreads - i - 1) * sizeof(*e->threads));
		e->nthreads--;
		break;
	}
	if (e->running == t)
		e->running = NULL;
	if (t->stat_fd >= 0)
		close(t->stat_fd);
	free(t);
}

void sc_process_remove(struct sc_engine *e, struct sc_process *p)
{
	for (size_t i = 0; i < e->nprocs; i++) {
		if (e->procs[i] != p)
			continue;
		memmove(&e->procs[i], &e->procs[i + 1],
			(e->nprocs - i - 1) * sizeof(*e->procs));
		e->nprocs--;
		break;
	}
	sc_mem_close(p);
	free(p->bps);
	sc_code_forget(p);
	free(p);
}

bool sc_process_has_threads(struct sc_engine *e, struct sc_process *p)
{
	for (size_t i = 0; i < e->nthreads; i++)
		if (e->threads[i]->proc == p)
			return true;
	return false;
}

/* Has t's process a thread other than t that has not exited? */
bool sc_process_has_other_threads(struct sc_engine *e,
				  const struct sc_thread *t)
{
	for (size_t i = 0; i < e->nthreads; i++) {
		const struct sc_thread *o = e->threads[i];
		if (o != t && o->proc == t->proc && !o->exit_recorded &&
		    o->state != TH_EXITING)
			return true;
	}
	return false;
}

/* p is going away as a whole: stop scheduling its threads.  The run as a
 * whole only waits for deaths once the main process goes. */
void sc_process_exiting(struct sc_engine *e, struct sc_process *p)
{
	if (p->exiting)
		return;
	p->exiting = true;
	if (p == e->main_proc)
		e->exiting = true;
	for (size_t i = 0; i < e->nthreads; i++) {
		struct sc_thread *t = e->threads[i];
		if (t->proc == p && t->state != TH_RUNNING)
			t->state = TH_EXITING;
	}
}

void sc_engine_defer_status(struct sc_engine *e, pid_t tid, int status)
{
	if (e->norphans < sizeof(e->orphans) / sizeof(e->orphans[0])) {
		e->orphans[e->norphans].tid = tid;
		e->orphans[e->norphans].status = status;
		e->norphans++;
	}
}

/* Take a deferred status for tid (or any known tid when tid is 0). */
bool sc_take_deferred(struct sc_engine *e, pid_t tid, pid_t *out_tid,
		      int *status)
{
	for (size_t i = 0; i < e->norphans; i++) {
		pid_t ot = e->orphans[i].tid;
		if (tid ? ot != tid : !sc_thread_by_tid(e, ot))
			continue;
		*out_tid = ot;
		*status = e->orphans[i].status;
		memmove(&e->orphans[i], &e->orphans[i + 1],
			(e->norphans - i - 1) * sizeof(e->orphans[0]));
		e->norphans--;
		return true;
	}
	return false;
}
