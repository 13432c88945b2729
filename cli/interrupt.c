/*
 * interrupt.c - Ctrl-C stops the session, not just the CLI (cli.h).
 *
 * Killing the CLI would also stop the session (the worker sees the
 * connection close), but the shell prompt would come back while the
 * worker is still killing its targets.  Instead the first SIGINT only
 * half-closes the connection: the worker sees EOF, cancels its runs, and
 * its exit closes the connection; the CLI returns then, with nothing of
 * the session left running.
 */
#include "config.h"

#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#include "cli.h"

volatile sig_atomic_t cli_interrupted;
static int session_fd = -1;

static void on_interrupt(int sig)
{
	struct sigaction dfl;

	cli_interrupted = 1;
	if (session_fd >= 0)
		shutdown(session_fd, SHUT_WR);
	/* A second Ctrl-C: the user really wants out. */
	memset(&dfl, 0, sizeof(dfl));
	dfl.sa_handler = SIG_DFL;
	sigaction(sig, &dfl, NULL);
}

static struct sigaction old_int, old_term;
static bool handlers_set;

void cli_stop_on_interrupt(int fd)
{
	struct sigaction sa;

	session_fd = fd;
	memset(&sa, 0, sizeof(sa));
	sigemptyset(&sa.sa_mask);
	sa.sa_handler = on_interrupt;
	sigaction(SIGINT, &sa, &old_int);
	sigaction(SIGTERM, &sa, &old_term);
	handlers_set = true;
}

void cli_interrupt_restore(void)
{
	if (!handlers_set)
		return;
	session_fd = -1;
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGTERM, &old_term, NULL);
	handlers_set = false;
}

int cli_report_interrupted(const char *session)
{
	if (session)
		cli_error("interrupted: session %s stopped (schedctl results %s)",
			  session, session);
	else
		cli_error("interrupted");
	return 130;
}
