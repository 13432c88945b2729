/* worker_common.c - what launch and replay workers share (worker.h). */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "reply.h"
#include "worker.h"

volatile int sc_worker_cancel;
volatile int sc_worker_client_gone;
volatile int sc_worker_stop_requested;
volatile int sc_worker_terminated;
static int client_fd = -1;
static bool detached;

/* The client sends nothing after its request, so readable means gone
 * (EOF) or misbehaving: either way stop. */
static void probe_client(void)
{
	char b;
	ssize_t n;

	if (detached || client_fd < 0)
		return;
	n = recv(client_fd, &b, 1, MSG_PEEK | MSG_DONTWAIT);

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

/* The daemon that forked this worker: when it is no longer our parent,
 * it did not shut down, it ended (killed). */
static pid_t daemon_pid;

/* Whether a signal came from a process this worker traces: the program,
 * whose parent we are, sending its "parent" a signal (kill(getppid(),
 * SIGUSR1) to say it is ready, a script's kill -USR1 $PPID).  Natively
 * that reaches the shell or harness that started it; here it would stop
 * or kill the session.  Async-signal-safe: /proc/PID/status's TracerPid
 * read with open and read only. */
static bool sent_by_tracee(const siginfo_t *si)
{
	char path[32] = "/proc/", buf[1024], digits[12];
	size_t n = 0, len = 6;
	pid_t pid = si->si_pid, self = getpid();

	if ((si->si_code != SI_USER && si->si_code != SI_TKILL &&
	     si->si_code != SI_QUEUE) || pid <= 0 || pid == daemon_pid ||
	    pid == self)
		return false;
	for (pid_t v = pid; v && n < sizeof(digits); v /= 10)
		digits[n++] = (char)('0' + v % 10);
	while (n)
		path[len++] = digits[--n];
	memcpy(path + len, "/status", 8);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	ssize_t got = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (got <= 0)
		return false;
	buf[got] = '\0';
	const char *tp = strstr(buf, "TracerPid:");
	if (!tp)
		return false;
	pid_t tracer = 0;
	for (tp += 10; *tp == '\t' || *tp == ' '; tp++)
		;
	for (; *tp >= '0' && *tp <= '9'; tp++)
		tracer = tracer * 10 + (*tp - '0');
	return tracer == self;
}

/* SIGTERM and SIGINT: the daemon shuts down or stops us; SIGUSR1:
 * schedctl stop, end the session cleanly.  Not when the program sent it. */
static void on_control(int sig, siginfo_t *si, void *uc)
{
	int saved = errno;

	(void)uc;
	if (!sent_by_tracee(si)) {
		if (sig == SIGUSR1)
			sc_worker_stop_requested = 1;
		else
			sc_worker_terminated = 1;
		sc_worker_cancel = 1;
	}
	errno = saved;
}

/* Another signal whose default action ends the worker (SIGUSR2, SIGALRM,
 * real-time signals...): ignored when the program sent it, the default
 * action otherwise (raised again, delivered when the handler returns). */
static void on_other(int sig, siginfo_t *si, void *uc)
{
	int saved = errno;

	(void)uc;
	if (!sent_by_tracee(si)) {
		signal(sig, SIG_DFL);
		raise(sig);
	}
	errno = saved;
}

/* The signals on_other takes. */
static const int other_signals[] = {
	SIGUSR2, SIGALRM, SIGVTALRM, SIGPROF, SIGQUIT, SIGSTKFLT, SIGPWR,
	SIGXCPU, SIGXFSZ, SIGSYS, SIGTRAP,
};

const char *sc_worker_cancel_reason(void)
{
	return getppid() == daemon_pid ? " (schedctld is shutting down)"
				       : " (schedctld ended)";
}

void sc_worker_init(int conn)
{
	struct sigaction sa;
	sigset_t none;

	daemon_pid = getppid();
	client_fd = conn;
	memset(&sa, 0, sizeof(sa));
	sigemptyset(&sa.sa_mask);
	/* Restart interrupted system calls: the engine must not see EINTR
	 * from our bookkeeping signals. */
	sa.sa_flags = SA_RESTART | SA_SIGINFO;
	sa.sa_sigaction = on_control;
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGUSR1, &sa, NULL);
	sa.sa_sigaction = on_other;
	for (size_t i = 0; i < sizeof(other_signals) / sizeof(*other_signals); i++)
		sigaction(other_signals[i], &sa, NULL);
	for (int sig = SIGRTMIN; sig <= SIGRTMAX; sig++)
		sigaction(sig, &sa, NULL);
	sa.sa_flags = SA_RESTART;
	sa.sa_handler = on_sigio;
	sigaction(SIGIO, &sa, NULL);
	sa.sa_handler = SIG_IGN;
	sigaction(SIGPIPE, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	sa.sa_handler = SIG_DFL;
	sigaction(SIGCHLD, &sa, NULL);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	/* A daemon killed with -9 takes its sessions down with it (they
	 * end "interrupted") instead of leaving orphans that nobody can
	 * stop. */
	prctl(PR_SET_PDEATHSIG, SIGTERM);
	if (getppid() == 1) {
		sc_worker_terminated = 1;
		sc_worker_cancel = 1;
	}
	/* SIGIO when the client closes its end. */
	if (fcntl(conn, F_SETOWN, getpid()) == 0)
		fcntl(conn, F_SETFL, fcntl(conn, F_GETFL) | O_ASYNC);
}

void sc_worker_check_client(int conn)
{
	(void)conn;
	probe_client();
}

void sc_worker_detach(int conn)
{
	int null = open("/dev/null", O_RDWR | O_CLOEXEC);

	detached = true;
	client_fd = -1;
	fcntl(conn, F_SETFL, fcntl(conn, F_GETFL) & ~O_ASYNC);
	/* The client may have closed its end as soon as it had the id,
	 * before we got here: that is no reason to stop. */
	sc_worker_client_gone = 0;
	sc_worker_cancel = sc_worker_terminated || sc_worker_stop_requested;
	/* Close the connection but keep the descriptor number taken, so
	 * that the final close(conn) cannot hit a file opened since. */
	if (null >= 0) {
		dup3(null, conn, O_CLOEXEC);
		close(null);
	}
}

bool sc_worker_detached(void)
{
	return detached;
}

void sc_worker_forget_client(void)
{
	client_fd = -1;
	/* A job of a detached session still reports to its session. */
	detached = false;
	sc_worker_client_gone = 0;
}

int sc_worker_send(int conn, const Scctl__Reply *r)
{
	if (detached)
		return 0;
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
