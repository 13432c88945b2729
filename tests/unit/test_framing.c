/*
 * test_framing.c - the control protocol framing, and schedctld's answer
 * to garbage.
 *
 * Part 1 (in process, socketpair): frames round-trip, descriptors travel,
 * and a truncated frame, an oversized length, EOF and a timeout are told
 * apart.  Part 2: a schedctld started in the foreground on a temporary
 * socket gets garbage, an oversized length, a truncated frame, an empty
 * request and silent clients; it answers each with an error Reply and
 * still answers a ping afterwards; then it shuts down on request.
 * The daemon is $SCHEDCTLD, else daemon/schedctld (make check runs in the
 * top build directory).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "control.pb-c.h"
#include "framing.h"
#include "tap.h"

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

static int write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len) {
		ssize_t n = write(fd, p, len);

		if (n <= 0)
			return -1;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/* ---- part 1: framing alone ---- */

static void test_roundtrip(void)
{
	Scctl__Request req = SCCTL__REQUEST__INIT;
	Scctl__Request *got;
	struct sc_frame f;
	int sv[2], pipefd[2], fds[1], st;
	char buf[8] = "";

	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) < 0 || pipe(pipefd) < 0)
		bail_out("socketpair/pipe");
	req.has_ping = req.ping = 1;
	fds[0] = pipefd[1];
	ok(sc_frame_send_fds(sv[0], &req.base, fds, 1) == 0, "send a ping with a descriptor");
	st = sc_frame_recv(sv[1], &f, 0, 1000);
	is_int(st, SC_FRAME_OK, "receive it");
	got = st == SC_FRAME_OK ? scctl__request__unpack(NULL, f.len, f.data) : NULL;
	ok(got && got->has_ping && got->ping, "it unpacks as a ping");
	if (got)
		scctl__request__free_unpacked(got, NULL);
	is_int((long long)f.nfds, 1, "one descriptor came along");
	if (f.nfds == 1) {
		ok(write(f.fds[0], "hi", 2) == 2 && read(pipefd[0], buf, 2) == 2 &&
		   memcmp(buf, "hi", 2) == 0, "the descriptor is the pipe's write end");
	} else {
		skip(1, "no descriptor");
	}
	sc_frame_release(&f);

	/* A request with no field set packs to zero bytes: still a frame. */
	req.has_ping = req.ping = 0;
	sc_frame_send(sv[0], &req.base);
	st = sc_frame_recv(sv[1], &f, 0, 1000);
	ok(st == SC_FRAME_OK && f.len == 0, "an empty message is a valid frame");
	sc_frame_release(&f);

	is_int(sc_frame_recv(sv[1], &f, 0, 50), SC_FRAME_TIMEOUT,
	       "nothing sent: timeout");
	write_all(sv[0], "\x7f\xff\xff\xff", 4);
	is_int(sc_frame_recv(sv[1], &f, 0, 1000), SC_FRAME_TOO_BIG,
	       "length 2 GiB: too big");
	write_all(sv[0], "\0\0\0\x10" "abc", 7);
	close(sv[0]);
	is_int(sc_frame_recv(sv[1], &f, 0, 1000), SC_FRAME_TRUNCATED,
	       "peer closed inside a frame: truncated");
	is_int(sc_frame_recv(sv[1], &f, 0, 1000), SC_FRAME_EOF,
	       "then end of stream");
	close(sv[1]);
	close(pipefd[0]);
	close(pipefd[1]);
}

/* ---- part 2: the daemon ---- */

static char sock_path[108];

static int connect_daemon(void)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_STREAM, 0);

	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", sock_path);
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		close(fd);
		return -1;
	}
	return fd;
}

/* The daemon's reply on fd, or NULL. */
static Scctl__Reply *read_reply(int fd)
{
	struct sc_frame f;
	Scctl__Reply *r;

	if (sc_frame_recv(fd, &f, 0, 10000) != SC_FRAME_OK)
		return NULL;
	r = scctl__reply__unpack(NULL, f.len, f.data);
	sc_frame_release(&f);
	return r;
}

/* Send raw bytes (then maybe shut our writing side) and expect an error
 * reply followed by the end of the connection. */
static void expect_error(const char *bytes, size_t len, bool shut_wr,
			 const char *name)
{
	int fd = connect_daemon();
	Scctl__Reply *r;
	char c;

	if (fd < 0) {
		ok(0, "%s: connect", name);
		return;
	}
	write_all(fd, bytes, len);
	if (shut_wr)
		shutdown(fd, SHUT_WR);
	r = read_reply(fd);
	ok(r && r->has_ok && !r->ok && r->error && r->error[0],
	   "%s: error reply (%s)", name, r && r->error ? r->error : "none");
	ok(read(fd, &c, 1) == 0, "%s: then the daemon closes", name);
	if (r)
		scctl__reply__free_unpacked(r, NULL);
	close(fd);
}

static int ping(void)
{
	Scctl__Request req = SCCTL__REQUEST__INIT;
	Scctl__Reply *r;
	int fd = connect_daemon(), pong;

	if (fd < 0)
		return 0;
	req.has_ping = req.ping = 1;
	sc_frame_send(fd, &req.base);
	r = read_reply(fd);
	pong = r && r->has_pong && r->pong;
	if (r)
		scctl__reply__free_unpacked(r, NULL);
	close(fd);
	return pong;
}

static pid_t start_daemon(const char *dir)
{
	const char *daemon = getenv("SCHEDCTLD");
	char state[256];
	pid_t pid;

	if (!daemon || !*daemon)
		daemon = "daemon/schedctld";
	snprintf(sock_path, sizeof(sock_path), "%s/sock", dir);
	snprintf(state, sizeof(state), "%s/state", dir);
	pid = fork();
	if (pid == 0) {
		int null = open("/dev/null", O_WRONLY);

		dup2(null, STDERR_FILENO);   /* its log lines */
		execl(daemon, "schedctld", "--foreground", "--socket", sock_path,
		      "--state-dir", state, (char *)NULL);
		_exit(127);
	}
	for (int i = 0; i < 500; i++) {
		int fd = connect_daemon();

		if (fd >= 0) {
			close(fd);
			return pid;
		}
		if (waitpid(pid, NULL, WNOHANG) == pid)
			return -1;
		sleep_ms(10);
	}
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	return -1;
}

/* Wait up to 10 s for pid; its exit status, or -1. */
static int wait_exit(pid_t pid)
{
	int status;

	for (int i = 0; i < 1000; i++) {
		if (waitpid(pid, &status, WNOHANG) == pid)
			return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
		sleep_ms(10);
	}
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	return -1;
}

static int remove_entry(const char *path, const struct stat *st, int flag,
			struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	remove(path);
	return 0;
}

static void test_daemon(void)
{
	char dir[] = "/tmp/schedctl-test-framing-XXXXXX";
	Scctl__Request req = SCCTL__REQUEST__INIT;
	Scctl__Reply *r;
	struct stat st;
	pid_t pid;
	int fd;

	if (!mkdtemp(dir))
		bail_out("mkdtemp");
	pid = start_daemon(dir);
	if (pid < 0) {
		skip(14, "schedctld did not start (set SCHEDCTLD?)");
		rmdir(dir);
		return;
	}
	ok(stat(sock_path, &st) == 0 && (st.st_mode & 0777) == 0600,
	   "socket is mode 0600");
	ok(ping(), "ping answers");
	expect_error("\0\0\0\x0c\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff",
		     16, false, "garbage payload");
	expect_error("\xff\xff\xff\xff", 4, false, "oversized length");
	expect_error("\0\0\0\x64" "0123456789", 14, true, "truncated frame");
	expect_error("\0\0\0\0", 4, false, "empty request");
	/* Silent clients: one closes at once, one sends half a header. */
	fd = connect_daemon();
	close(fd);
	fd = connect_daemon();
	write_all(fd, "\0\0", 2);
	close(fd);
	ok(ping(), "the daemon still answers after all that");

	fd = connect_daemon();
	req.has_shutdown = req.shutdown = 1;
	sc_frame_send(fd, &req.base);
	r = read_reply(fd);
	ok(r && r->has_ok && r->ok, "shutdown acknowledged");
	if (r)
		scctl__reply__free_unpacked(r, NULL);
	close(fd);
	is_int(wait_exit(pid), 0, "the daemon exits with status 0");
	ok(access(sock_path, F_OK) < 0, "and removes its socket");

	/* Clean the temporary directory: the daemon's state directory
	 * holds its log, index and sessions by now. */
	nftw(dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

int main(void)
{
	signal(SIGPIPE, SIG_IGN);
	test_roundtrip();
	test_daemon();
	return done_testing();
}
