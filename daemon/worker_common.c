/* worker_common.c - what launch and replay workers share (worker.h). */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "reply.h"
#include "worker.h"

volatile int sc_worker_cancel;
volatile int sc_worker_client_gone;
static int client_fd = -1;

/* The client sends nothing after its request, so readable means gone
 * (EOF) or misbehaving: either way stop. */
static void probe_client(void)
{
	char b;
	ssize_t n = recv(client_fd, &b, 1, MSG_PEEK | MSG_DONTWAIT);

	if (n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK &&
		       errno != EINTR)) {
		sc_worker_client_gone = 1;
		sc_worker_cancel = 1;
	}
}

static void on_sigio(int sig)
{
	int saved = errno;

	(void)sig;
	probe_client();
	errno = saved;
}

static void on_sigterm(int sig)
{
	(void)sig;
	sc_worker_cancel = 1;
}

void sc_worker_init(int conn)
{
	struct sigaction sa;
	sigset_t none;

	client_fd = conn;
	memset(&sa, 0, sizeof(sa));
	sigemptyset(&sa.sa_mask);
	/* Restart interrupted system calls: the engine must not see EINTR
	 * from our bookkeeping signals. */
	sa.sa_flags = SA_RESTART;
	sa.sa_handler = on_sigterm;
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sa.sa_handler = on_sigio;
	sigaction(SIGIO, &sa, NULL);
	sa.sa_handler = SIG_IGN;
	sigaction(SIGPIPE, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	sa.sa_handler = SIG_DFL;
	sigaction(SIGCHLD, &sa, NULL);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	/* SIGIO when the client closes its end. */
	if (fcntl(conn, F_SETOWN, getpid()) == 0)
		fcntl(conn, F_SETFL, fcntl(conn, F_GETFL) | O_ASYNC);
}

void sc_worker_check_client(int conn)
{
	(void)conn;
	probe_client();
}

int sc_worker_send(int conn, const Scctl__Reply *r)
{
	if (sc_worker_client_gone)
		return -1;
	if (sc_send_reply(conn, r) < 0) {
		sc_worker_client_gone = 1;
		sc_worker_cancel = 1;
		return -1;
	}
	return 0;
}

char **sc_strv(char **v, size_t n)
{
	char **out = calloc(n + 1, sizeof(*out));

	if (out)
		for (size_t i = 0; i < n; i++)
			out[i] = v[i];
	return out;
}

void sc_shell_quote(const char *s, char *buf, size_t len)
{
	size_t o = 0;
	bool safe = *s != '\0';

	for (const char *p = s; *p; p++)
		if (!strchr("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
			     "0123456789_./:@%+=,-", *p))
			safe = false;
	if (safe) {
		snprintf(buf, len, "%s", s);
		return;
	}
	/* 'it'\''s' */
#define PUT(c) do { if (o + 1 < len) buf[o++] = (c); } while (0)
	PUT('\'');
	for (const char *p = s; *p; p++) {
		if (*p == '\'') {
			PUT('\'');
			PUT('\\');
			PUT('\'');
		}
		PUT(*p);
	}
	PUT('\'');
#undef PUT
	if (len)
		buf[o < len ? o : len - 1] = '\0';
}
