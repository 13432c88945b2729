/*
 * server.c - schedctld's main process (server.h).
 *
 * The main process only accepts, checks the peer's uid, reads one request
 * (with a deadline), answers ping and shutdown itself and forks a worker
 * for launch and replay.  It never runs a target: a session that crashes
 * takes its worker down, not the daemon.  Garbage on the socket gets an
 * error reply and a closed connection.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "activation.h"
#include "control.pb-c.h"
#include "framing.h"
#include "log.h"
#include "mono_clock.h"
#include "paths.h"
#include "reply.h"
#include "server.h"
#include "store.h"
#include "worker.h"

/* A request must arrive this soon after connecting: the main process
 * reads it, so a silent client must not hold the others up for long. */
#define REQUEST_TIMEOUT_MS 5000
/* Launch requests carry argv and the environment: the framing cap. */
#define REQUEST_MAX SC_FRAME_MAX
#define MAX_WORKERS 64
/* How long shutdown waits for workers after SIGTERM before SIGKILL. */
#define SHUTDOWN_GRACE_S 10

static int sig_pipe[2] = { -1, -1 };
static volatile sig_atomic_t got_term;

static pid_t workers[MAX_WORKERS];
static size_t nworkers;

static void on_signal(int sig)
{
	int saved = errno;
	char c = (char)sig;

	if (sig == SIGTERM || sig == SIGINT)
		got_term = 1;
	/* Wake poll(); a full pipe already has a wake-up pending. */
	if (write(sig_pipe[1], &c, 1) < 0) {
		/* nothing to do */
	}
	errno = saved;
}

static int setup_signals(void)
{
	struct sigaction sa;

	if (pipe2(sig_pipe, O_CLOEXEC | O_NONBLOCK) < 0)
		return -1;
	memset(&sa, 0, sizeof(sa));
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = SA_RESTART;
	sa.sa_handler = on_signal;
	sigaction(SIGCHLD, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sa.sa_handler = SIG_IGN;
	sigaction(SIGPIPE, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	return 0;
}

static void lock_path(const struct sc_daemon *d, char *buf, size_t len,
		      const char *suffix)
{
	snprintf(buf, len, "%s.%s", d->socket_path, suffix);
}

int sc_server_listen(struct sc_daemon *d)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	char lock[PATH_MAX + 8], err[PATH_MAX + 128];
	int fd;

	d->listen_fd = d->lock_fd = -1;
	if (sc_socket_dir_prepare(d->socket_path, err, sizeof(err)) < 0) {
		fprintf(stderr, "schedctld: %s\n", err);
		return -1;
	}
	lock_path(d, lock, sizeof(lock), "lock");
	d->lock_fd = open(lock, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	if (d->lock_fd < 0) {
		fprintf(stderr, "schedctld: %s: %s\n", lock, strerror(errno));
		return -1;
	}
	/* One daemon per socket: whoever holds the lock owns the path. */
	if (flock(d->lock_fd, LOCK_EX | LOCK_NB) < 0) {
		int e = errno;

		close(d->lock_fd);
		d->lock_fd = -1;
		if (e == EWOULDBLOCK)
			return 1;
		fprintf(stderr, "schedctld: %s: %s\n", lock, strerror(e));
		return -1;
	}
	/* Socket activation: systemd owns the path and gave us the socket. */
	fd = sc_activation_fd();
	if (fd >= 0) {
		d->listen_fd = fd;
		d->activated = true;
		return 0;
	}
	/* Holding the lock, a socket file left behind is stale. */
	if (unlink(d->socket_path) < 0 && errno != ENOENT) {
		fprintf(stderr, "schedctld: %s: %s\n", d->socket_path,
			strerror(errno));
		goto fail;
	}
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0) {
		fprintf(stderr, "schedctld: socket: %s\n", strerror(errno));
		goto fail;
	}
	if (strlen(d->socket_path) >= sizeof(sa.sun_path)) {
		fprintf(stderr, "schedctld: %s: socket path too long\n",
			d->socket_path);
		close(fd);
		goto fail;
	}
	memcpy(sa.sun_path, d->socket_path, strlen(d->socket_path) + 1);
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 ||
	    chmod(d->socket_path, 0600) < 0 || listen(fd, 64) < 0) {
		fprintf(stderr, "schedctld: %s: %s\n", d->socket_path,
			strerror(errno));
		close(fd);
		unlink(d->socket_path);
		goto fail;
	}
	d->listen_fd = fd;
	return 0;
fail:
	close(d->lock_fd);
	d->lock_fd = -1;
	return -1;
}

int sc_server_write_pid(const struct sc_daemon *d)
{
	char path[PATH_MAX + 8];
	FILE *f;

	lock_path(d, path, sizeof(path), "pid");
	f = fopen(path, "we");
	if (!f) {
		sc_log("%s: %s", path, strerror(errno));
		return -1;
	}
	fprintf(f, "%d\n", (int)getpid());
	return fclose(f) == 0 ? 0 : -1;
}

static void cleanup_files(const struct sc_daemon *d)
{
	char path[PATH_MAX + 8];

	if (!d->activated)
		unlink(d->socket_path);
	lock_path(d, path, sizeof(path), "pid");
	unlink(path);
	/* PATH.lock stays: removing it would let two daemons lock two
	 * different files of the same name. */
}

/* Sessions left "running" by a dead worker (pid > 0) or by a dead
 * daemon (pid 0: any whose worker is gone) become "interrupted". */
static void mark_interrupted(const struct sc_daemon *d, int pid)
{
	struct sc_store *st;
	char err[PATH_MAX + 256];
	int n;
	int rc = sc_store_open(d->state_dir, pid == 0, &st, err, sizeof(err));

	if (rc < 0)
		sc_log("%s", err);
	if (rc != 0)
		return;
	n = sc_store_mark_interrupted(st, pid, err, sizeof(err));
	if (n < 0)
		sc_log("%s", err);
	else if (n > 0)
		sc_log("%d session%s marked interrupted (%s)", n, n > 1 ? "s" : "",
		       pid ? "worker died" : "left running by a previous daemon");
	sc_store_close(st);
}

static void reap(const struct sc_daemon *d)
{
	int status;
	pid_t pid;

	while ((pid = waitpid(-1, &status, WNOHANG)) > 0)
		for (size_t i = 0; i < nworkers; i++)
			if (workers[i] == pid) {
				workers[i] = workers[--nworkers];
				if (WIFSIGNALED(status))
					sc_log("worker %d killed by signal %d",
					       (int)pid, WTERMSIG(status));
				/* Also after a normal exit: a worker whose
				 * last write to the store failed must not
				 * leave its session "running" for ever. */
				mark_interrupted(d, (int)pid);
				break;
			}
}

static void stop_workers(const struct sc_daemon *d)
{
	double deadline = sc_mono_seconds() + SHUTDOWN_GRACE_S;

	for (size_t i = 0; i < nworkers; i++)
		kill(workers[i], SIGTERM);
	while (nworkers > 0 && sc_mono_seconds() < deadline) {
		usleep(20000);
		reap(d);
	}
	for (size_t i = 0; i < nworkers; i++)
		kill(workers[i], SIGKILL);
	while (nworkers > 0) {
		int status;
		pid_t pid = waitpid(-1, &status, 0);

		if (pid < 0 && errno != EINTR)
			break;
		reap(d);
		for (size_t i = 0; pid > 0 && i < nworkers; i++)
			if (workers[i] == pid)
				workers[i] = workers[--nworkers];
	}
}

/* In the child: serve one launch or replay to the end. */
static void run_worker(struct sc_daemon *d, int conn, Scctl__Request *req,
		       struct sc_frame *frame)
{
	int code;

	close(d->listen_fd);
	close(d->lock_fd);
	close(sig_pipe[0]);
	close(sig_pipe[1]);
	sc_worker_init(conn);
	if (req->launch)
		code = sc_worker_launch(conn, req->launch, frame->fds,
					frame->nfds, d);
	else if (req->attach)
		code = sc_worker_attach(conn, req->attach, d);
	else
		code = sc_worker_replay(conn, req->replay, frame->fds,
					frame->nfds, d);
	scctl__request__free_unpacked(req, NULL);
	sc_frame_release(frame);
	close(conn);
	_exit(code);
}

static void start_worker(struct sc_daemon *d, int conn, Scctl__Request *req,
			 struct sc_frame *frame)
{
	pid_t pid;

	if (nworkers == MAX_WORKERS) {
		sc_reply_error(conn, 3, "schedctld is busy: %d sessions running",
			       MAX_WORKERS);
		return;
	}
	pid = fork();
	if (pid < 0) {
		sc_reply_error(conn, 3, "schedctld: fork: %s", strerror(errno));
		return;
	}
	if (pid == 0)
		run_worker(d, conn, req, frame);
	workers[nworkers++] = pid;
}

static bool peer_allowed(int conn)
{
	struct ucred cred;
	socklen_t len = sizeof(cred);

	if (getsockopt(conn, SOL_SOCKET, SO_PEERCRED, &cred, &len) < 0)
		return false;
	return cred.uid == geteuid();
}

/* schedctl stop SESSION: SIGUSR1 to the session's worker, which ends
 * the session cleanly (the CLI waits for its state to change). */
static void stop_session(const struct sc_daemon *d, int conn,
			 const Scctl__StopRequest *stop)
{
	Scctl__Reply r = SCCTL__REPLY__INIT;
	struct sc_session_row *row = NULL;
	struct sc_store *st = NULL;
	char err[PATH_MAX + 256];
	size_t n = 0;
	int rc;

	if (!stop->session || !*stop->session) {
		sc_reply_error(conn, 2, "stop: no session given");
		return;
	}
	rc = sc_store_open(d->state_dir, false, &st, err, sizeof(err));
	if (rc == 1) {
		sc_reply_error(conn, 2, "no session '%s' (there is none yet)",
			       stop->session);
		return;
	}
	if (rc < 0 || sc_store_sessions(st, stop->session, &row, &n, err,
					sizeof(err)) < 0) {
		sc_reply_error(conn, rc < 0 ? 3 : 2, "%s", err);
		sc_store_close(st);
		return;
	}
	if (strcmp(row->state, "running") != 0) {
		sc_reply_error(conn, 2, "session %s is not running (%s)", row->id,
			       row->state);
	} else {
		bool ours = false;

		for (size_t i = 0; i < nworkers; i++)
			ours |= workers[i] == (pid_t)row->pid;
		if (ours && kill((pid_t)row->pid, SIGUSR1) == 0) {
			sc_log("session %s: stop requested", row->id);
			r.has_ok = r.ok = 1;
			r.session = row->id;
			sc_send_reply(conn, &r);
		} else {
			sc_store_mark_interrupted(st, row->pid, err, sizeof(err));
			sc_reply_error(conn, 3, "session %s: its worker (pid %d) is "
				       "gone; marked interrupted", row->id, row->pid);
		}
	}
	sc_store_rows_free(row, n);
	sc_store_close(st);
}

/* Handle one connection.  Returns true when the client asked for
 * shutdown; *shutdown_fd then keeps the connection to answer at the end. */
static bool handle_conn(struct sc_daemon *d, int conn, int *shutdown_fd)
{
	struct sc_frame frame;
	Scctl__Request *req;
	int st;

	if (!peer_allowed(conn)) {
		sc_reply_error(conn, 3, "permission denied: schedctld serves uid %u only",
			       (unsigned)geteuid());
		sc_log("refused a client of another uid");
		return false;
	}
	st = sc_frame_recv(conn, &frame, REQUEST_MAX, REQUEST_TIMEOUT_MS);
	if (st == SC_FRAME_EOF)
		return false;   /* connect-and-close probes */
	if (st != SC_FRAME_OK) {
		sc_reply_error(conn, 2, "bad request: %s", sc_frame_strerror(st));
		return false;
	}
	req = scctl__request__unpack(NULL, frame.len, frame.data);
	if (!req) {
		sc_reply_error(conn, 2, "bad request: not a valid scctl.Request message");
		sc_frame_release(&frame);
		return false;
	}
	if (req->launch || req->replay || req->attach) {
		start_worker(d, conn, req, &frame);
	} else if (req->stop) {
		stop_session(d, conn, req->stop);
	} else if (req->has_ping && req->ping) {
		Scctl__Reply r = SCCTL__REPLY__INIT;

		r.has_ok = r.ok = 1;
		r.has_pong = r.pong = 1;
		sc_send_reply(conn, &r);
	} else if (req->has_shutdown && req->shutdown) {
		*shutdown_fd = dup(conn);
	} else {
		sc_reply_error(conn, 2, "bad request: no command in it");
	}
	scctl__request__free_unpacked(req, NULL);
	sc_frame_release(&frame);
	return *shutdown_fd >= 0;
}

static void accept_all(struct sc_daemon *d, int *shutdown_fd)
{
	for (;;) {
		int conn = accept4(d->listen_fd, NULL, NULL, SOCK_CLOEXEC);

		if (conn < 0)
			return;     /* EAGAIN: no more pending */
		/* The listening socket is non-blocking; the connection
		 * must not be (workers write to it plainly). */
		fcntl(conn, F_SETFL, fcntl(conn, F_GETFL) & ~O_NONBLOCK);
		handle_conn(d, conn, shutdown_fd);
		close(conn);
		if (*shutdown_fd >= 0)
			return;
	}
}

int sc_server_run(struct sc_daemon *d)
{
	double last_busy = sc_mono_seconds();
	int shutdown_fd = -1;
	const char *why = "shutdown requested";

	if (setup_signals() < 0) {
		sc_log("pipe: %s", strerror(errno));
		return 1;
	}
	sc_log("listening on %s%s (state %s, idle exit %us)", d->socket_path,
	       d->activated ? " (socket-activated)" : "", d->state_dir,
	       d->idle_exit);
	mark_interrupted(d, 0);
	while (shutdown_fd < 0) {
		struct pollfd pfd[2] = {
			{ .fd = d->listen_fd, .events = POLLIN },
			{ .fd = sig_pipe[0], .events = POLLIN },
		};
		int timeout = -1;
		char drain[64];

		if (got_term) {
			why = "terminated by signal";
			break;
		}
		if (d->idle_exit && nworkers == 0) {
			double left = last_busy + (double)d->idle_exit -
				      sc_mono_seconds();

			if (left <= 0) {
				why = "idle";
				break;
			}
			timeout = (int)(left * 1000);
		}
		if (poll(pfd, 2, timeout) < 0 && errno != EINTR) {
			sc_log("poll: %s", strerror(errno));
			break;
		}
		while (read(sig_pipe[0], drain, sizeof(drain)) > 0)
			;
		/* Busy until now if a worker ran (it may have just ended)
		 * or a client came. */
		if (nworkers > 0 || pfd[0].revents)
			last_busy = sc_mono_seconds();
		reap(d);
		if (pfd[0].revents & POLLIN)
			accept_all(d, &shutdown_fd);
	}
	sc_log("exiting: %s", why);
	/* No new clients from here on. */
	close(d->listen_fd);
	cleanup_files(d);
	stop_workers(d);
	if (shutdown_fd >= 0) {
		Scctl__Reply r = SCCTL__REPLY__INIT;

		r.has_ok = r.ok = 1;
		sc_send_reply(shutdown_fd, &r);
		close(shutdown_fd);
	}
	close(d->lock_fd);
	return 0;
}
