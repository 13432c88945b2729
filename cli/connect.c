/*
 * connect.c - reach schedctld, starting it when nobody listens.
 *
 * The daemon is found as $SCHEDCTLD, else next to this schedctl binary,
 * else ../daemon/schedctld from it (the build tree), else in SC_BINDIR.
 * It is started with --socket PATH --idle-exit 600 and detaches by itself;
 * its original process exits once it listens.  Two CLIs starting it at once
 * end with one daemon: the second one loses the socket's lock and exits 0,
 * and both CLIs connect to the winner.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "framing.h"
#include "paths.h"

#ifndef SC_BINDIR
#define SC_BINDIR "/usr/local/bin"
#endif

#define AUTOSTART_IDLE_EXIT "600"
#define CONNECT_RETRY_MS 5000

static int try_connect(const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

	if (fd < 0)
		return -1;
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		int e = errno;

		close(fd);
		errno = e;
		return -1;
	}
	return fd;
}

static bool executable(const char *path)
{
	return access(path, X_OK) == 0;
}

/* Where schedctld is; false when nowhere. */
static bool find_daemon(char *buf, size_t len)
{
	const char *env = getenv("SCHEDCTLD");
	char self[PATH_MAX], dir[PATH_MAX];
	ssize_t n;

	if (env && *env) {
		snprintf(buf, len, "%s", env);
		return true;    /* the user said so: errors will name it */
	}
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n > 0) {
		self[n] = '\0';
		sc_dirname(self, dir, sizeof(dir));
		if ((size_t)snprintf(buf, len, "%s/schedctld", dir) < len &&
		    executable(buf))
			return true;
		if ((size_t)snprintf(self, sizeof(self), "%s/../daemon/schedctld",
				     dir) < sizeof(self) && executable(self) &&
		    realpath(self, buf))
			return true;
	}
	snprintf(buf, len, "%s/schedctld", SC_BINDIR);
	return executable(buf);
}

/* Run the daemon and wait until it is listening (its first process exits
 * then).  Returns 0 or -1 after printing why. */
static int start_daemon(const char *sock)
{
	char daemon[PATH_MAX];
	pid_t pid;
	int status;

	if (!find_daemon(daemon, sizeof(daemon))) {
		cli_error("cannot find schedctld (set SCHEDCTLD to its path)");
		return -1;
	}
	/* Said here, not by the child, so that --json carries it. */
	if (access(daemon, X_OK) != 0) {
		cli_error("cannot run schedctld %s: %s (set SCHEDCTLD to its "
			  "path)", daemon, strerror(errno));
		return -1;
	}
	/* Its stderr until it detaches: why it could not start, said in
	 * our one error line (QA: its line and ours made two). */
	int why[2];
	if (pipe2(why, O_CLOEXEC) < 0) {
		cli_error("pipe: %s", strerror(errno));
		return -1;
	}
	pid = fork();
	if (pid < 0) {
		cli_error("fork: %s", strerror(errno));
		close(why[0]);
		close(why[1]);
		return -1;
	}
	if (pid == 0) {
		int null = open("/dev/null", O_RDWR);

		if (null >= 0) {
			dup2(null, STDIN_FILENO);
			dup2(null, STDOUT_FILENO);
		}
		dup2(why[1], STDERR_FILENO);
		execl(daemon, "schedctld", "--socket", sock, "--idle-exit",
		      AUTOSTART_IDLE_EXIT, (char *)NULL);
		fprintf(stderr, "%s: %s\n", daemon, strerror(errno));
		_exit(127);
	}
	close(why[1]);
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR) {
			cli_error("waitpid: %s", strerror(errno));
			close(why[0]);
			return -1;
		}
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		/* The first line it wrote, without its "schedctld: ". */
		char msg[512] = "";
		fcntl(why[0], F_SETFL, O_NONBLOCK);
		ssize_t n = read(why[0], msg, sizeof(msg) - 1);
		msg[n > 0 ? n : 0] = '\0';
		msg[strcspn(msg, "\n")] = '\0';
		const char *text = strncmp(msg, "schedctld: ", 11) == 0
				   ? msg + 11 : msg;
		if (*text)
			cli_error("could not start %s: %s", daemon, text);
		else
			cli_error("could not start %s", daemon);
		close(why[0]);
		return -1;
	}
	close(why[0]);
	return 0;
}

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

int cli_connect(bool autostart, bool *not_running)
{
	char path[PATH_MAX], err[PATH_MAX + 64];
	int fd, waited = 0, step = 10;

	if (not_running)
		*not_running = false;
	if (sc_socket_path(cli_socket, path, sizeof(path), err, sizeof(err)) < 0) {
		cli_error("%s", err);
		return -1;
	}
	fd = try_connect(path);
	if (fd >= 0)
		return fd;
	if (errno != ENOENT && errno != ECONNREFUSED) {
		cli_error("cannot connect to schedctld at %s: %s", path,
			  strerror(errno));
		return -1;
	}
	if (!autostart) {
		if (not_running)
			*not_running = true;
		return -1;
	}
	if (start_daemon(path) < 0)
		return -1;
	/* Normally listening already; a daemon that lost the start race to
	 * another one exits at once, and the winner may still be binding. */
	for (;;) {
		fd = try_connect(path);
		if (fd >= 0)
			return fd;
		if ((errno != ENOENT && errno != ECONNREFUSED) ||
		    waited >= CONNECT_RETRY_MS)
			break;
		sleep_ms(step);
		waited += step;
		if (step < 200)
			step *= 2;
	}
	cli_error("cannot connect to schedctld at %s: %s", path, strerror(errno));
	return -1;
}

int cli_send(int fd, const Scctl__Request *req, const int *fds, int nfds)
{
	if (sc_frame_send_fds(fd, &req->base, fds, (size_t)nfds) < 0) {
		int e = errno;
		struct sc_frame f;
		Scctl__Reply *r = NULL;

		/* The daemon may have refused us (another uid...) and closed
		 * before we sent: its error reply says why better than EPIPE. */
		if ((e == EPIPE || e == ECONNRESET) &&
		    sc_frame_recv(fd, &f, 0, 1000) == SC_FRAME_OK) {
			r = scctl__reply__unpack(NULL, f.len, f.data);
			sc_frame_release(&f);
		}
		if (r && r->error)
			cli_error("%s", r->error);
		else
			cli_error("sending to schedctld: %s", strerror(e));
		if (r)
			scctl__reply__free_unpacked(r, NULL);
		return -1;
	}
	return 0;
}

int cli_reply_wait_ms = -1;

static int64_t mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Wait until fd has something to read, within cli_reply_wait_ms (a
 * request answered at once) and STOP_GRACE_MS after an interrupt.  A
 * daemon that accepts and never answers (stopped, wedged) kept every
 * command waiting for good, and launch outlived CI's timeout, whose one
 * SIGTERM only asks the daemon to stop the session (QA). */
#define STOP_GRACE_MS 10000
static bool wait_readable(int fd)
{
	int64_t start = mono_ms(), interrupted_at = -1;

	for (;;) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		int n = poll(&p, 1, 200);
		int64_t now = mono_ms();

		if (n > 0 || (n < 0 && errno != EINTR))
			return true;    /* the read says what it is */
		if (cli_interrupted && interrupted_at < 0)
			interrupted_at = now;
		if (interrupted_at >= 0 && now - interrupted_at >= STOP_GRACE_MS) {
			cli_error("schedctld did not confirm the stop within "
				  "%d s; leaving (see its log)",
				  STOP_GRACE_MS / 1000);
			return false;
		}
		if (!cli_interrupted && cli_reply_wait_ms >= 0 &&
		    now - start >= cli_reply_wait_ms) {
			cli_error("schedctld does not answer (waited %d s; is "
				  "it stopped?)", cli_reply_wait_ms / 1000);
			return false;
		}
	}
}

Scctl__Reply *cli_recv(int fd)
{
	struct sc_frame f;
	Scctl__Reply *r;

	if (!wait_readable(fd))
		return NULL;
	int st = sc_frame_recv(fd, &f, 0, -1);

	if (st == SC_FRAME_EOF || st == SC_FRAME_TRUNCATED ||
	    (st == SC_FRAME_ERRNO && errno == ECONNRESET)) {
		/* After Ctrl-C, the end of the connection is the answer. */
		if (!cli_interrupted)
			cli_error("schedctld closed the connection (see its log)");
		return NULL;
	}
	if (st != SC_FRAME_OK) {
		cli_error("reading from schedctld: %s", sc_frame_strerror(st));
		return NULL;
	}
	r = scctl__reply__unpack(NULL, f.len, f.data);
	sc_frame_release(&f);
	if (!r)
		cli_error("malformed reply from schedctld");
	return r;
}
