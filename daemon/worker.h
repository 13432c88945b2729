/*
 * worker.h - the process forked for one launch, attach or replay request.
 *
 * A worker owns its client connection to the end (or, for launch
 * --detach, until its first reply): it streams Reply messages, has its
 * runs done by its job processes (jobs.h), records them in the session
 * index (store.h), and exits.  A session that crashes takes down its
 * worker only, never the daemon.  Cancellation: SIGTERM (daemon shutdown
 * or death: PR_SET_PDEATHSIG), SIGUSR1 (schedctl stop) or the client
 * going away (SIGIO on the connection, or a failed send) sets
 * sc_worker_cancel, which the engine checks between steps.
 */
#ifndef SCHEDCTL_WORKER_H
#define SCHEDCTL_WORKER_H

#include <stdbool.h>
#include <stddef.h>

#include "control.pb-c.h"
#include "server.h"

/* Non-zero once the run must stop (sc_run_config.cancel points here). */
extern volatile int sc_worker_cancel;
/* Non-zero when the client is gone (nobody to report to). */
extern volatile int sc_worker_client_gone;
/* SIGUSR1: `schedctl stop` asked to end the session (it ends "stopped"). */
extern volatile int sc_worker_stop_requested;
/* SIGTERM: the daemon is shutting down or died (the session ends
 * "interrupted"). */
extern volatile int sc_worker_terminated;

/* Why the session was cancelled, for a message: " (schedctld is
 * shutting down)" or, when the daemon died, " (schedctld ended)". */
const char *sc_worker_cancel_reason(void);

/* Signal set-up of a freshly forked worker serving conn. */
void sc_worker_init(int conn);

/* Poll the connection now: sets the flags when the client is gone. */
void sc_worker_check_client(int conn);

/* Send a reply; a failure marks the client gone and cancels.  After
 * sc_worker_detach() replies go nowhere (and succeed). */
int sc_worker_send(int conn, const Scctl__Reply *r);

/* launch --detach: close the client connection; the session goes on and
 * a vanished client no longer cancels it. */
void sc_worker_detach(int conn);
bool sc_worker_detached(void);
/* In a job process (jobs.h): the client is the session's, not ours to
 * watch. */
void sc_worker_forget_client(void);

/* Each returns the worker's exit status (0 ok, else the CLI's code). */
/* launch: fds[0] is the program's input when req->stdin_fd. */
int sc_worker_launch(int conn, const Scctl__LaunchRequest *req,
		     const int *fds, size_t nfds, const struct sc_daemon *d);
int sc_worker_replay(int conn, const Scctl__ReplayRequest *req,
		     const int *fds, size_t nfds, const struct sc_daemon *d);
int sc_worker_attach(int conn, const Scctl__AttachRequest *req,
		     const struct sc_daemon *d);

/* Build a NULL-terminated copy of a protobuf string list (pointers only;
 * free() the array).  NULL when out of memory. */
char **sc_strv(char **v, size_t n);

/* Single-quote s for a shell when it has unsafe characters. */
void sc_shell_quote(const char *s, char *buf, size_t len);

#endif /* SCHEDCTL_WORKER_H */
