/*
 * server.h - schedctld's main process: the control socket, its lock and
 * pid file, accepting and checking clients, forking one worker per launch
 * or replay, reaping them, idle exit and shutdown.
 */
#ifndef SCHEDCTL_SERVER_H
#define SCHEDCTL_SERVER_H

#include <limits.h>
#include <stdbool.h>

struct sc_daemon {
	char socket_path[PATH_MAX];
	char state_dir[PATH_MAX];
	unsigned idle_exit;         /* seconds without work before exiting; 0: never */
	bool foreground;
	/* set up by sc_server_listen() */
	int listen_fd;
	int lock_fd;
	bool activated;             /* listen_fd came from systemd */
};

/* Take PATH.lock and listen on PATH.  Returns 0; 1 when another daemon
 * holds the lock (the caller exits 0 quietly); -1 after printing why. */
int sc_server_listen(struct sc_daemon *d);

/* Write PATH.pid (our pid). */
int sc_server_write_pid(const struct sc_daemon *d);

/* Serve until shutdown, SIGTERM/SIGINT or idle exit; returns the exit
 * status.  Removes the socket and the pid file. */
int sc_server_run(struct sc_daemon *d);

#endif /* SCHEDCTL_SERVER_H */
