/*
 * main.c - schedctld: options, daemonizing, then the server loop.
 *
 * Without --foreground the daemon sets up its socket first (so that errors
 * reach the caller's terminal), then detaches (fork, setsid, fork) with
 * its output going to STATE/schedctld.log; the original process exits 0
 * once the daemon has written its pid file, so a caller may connect at
 * once.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdarg.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "paths.h"
#include "server.h"

static const char usage_text[] =
"Usage: schedctld [OPTIONS]\n"
"The schedctl daemon: runs the sessions that schedctl launches.\n"
"\n"
"  -f, --foreground       stay in the foreground, log to stderr\n"
"      --socket PATH      control socket (default: $SCHEDCTL_SOCKET, else\n"
"                         /run/schedctl/schedctld.sock for root,\n"
"                         $XDG_RUNTIME_DIR/schedctl/schedctld.sock, or\n"
"                         /tmp/schedctl-UID/schedctld.sock)\n"
"      --state-dir DIR    sessions and log (default: $SCHEDCTL_STATE_DIR,\n"
"                         else /var/lib/schedctl for root,\n"
"                         $XDG_STATE_HOME/schedctl, or ~/.local/state/schedctl)\n"
"      --idle-exit SECONDS  exit after SECONDS without clients or work\n"
"                         (default 0: never)\n"
"  -h, --help             show this help and exit\n"
"  -V, --version          show the version and exit\n";

static void usage_error(const char *fmt, ...)
	__attribute__((format(printf, 1, 2), noreturn));

static void usage_error(const char *fmt, ...)
{
	va_list ap;

	fputs("schedctld: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputs("\nTry 'schedctld --help'.\n", stderr);
	exit(2);
}

static void parse_args(int argc, char **argv, struct sc_daemon *d,
		       const char **socket_opt, const char **state_opt)
{
	enum { OPT_SOCKET = 256, OPT_STATE, OPT_IDLE };
	static const struct option opts[] = {
		{ "foreground", no_argument, NULL, 'f' },
		{ "socket", required_argument, NULL, OPT_SOCKET },
		{ "state-dir", required_argument, NULL, OPT_STATE },
		{ "idle-exit", required_argument, NULL, OPT_IDLE },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	opterr = 0;
	while ((c = getopt_long(argc, argv, ":fhV", opts, NULL)) != -1) {
		char *end;
		unsigned long v;

		switch (c) {
		case 'f':
			d->foreground = true;
			break;
		case OPT_SOCKET:
			*socket_opt = optarg;
			break;
		case OPT_STATE:
			*state_opt = optarg;
			break;
		case OPT_IDLE:
			errno = 0;
			v = strtoul(optarg, &end, 10);
			if (errno || end == optarg || *end || optarg[0] == '-' ||
			    v > 365UL * 86400)
				usage_error("--idle-exit: invalid number of seconds '%s'",
					    optarg);
			d->idle_exit = (unsigned)v;
			break;
		case 'h':
			fputs(usage_text, stdout);
			exit(0);
		case 'V':
			printf("schedctld (schedctl) %s\n", PACKAGE_VERSION);
			exit(0);
		case ':':
			usage_error("option '%s' requires an argument",
				    argv[optind - 1]);
			break;
		default:
			usage_error("unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind < argc)
		usage_error("unexpected argument '%s'", argv[optind]);
}

/* Output of the detached daemon: STATE/schedctld.log, else /dev/null. */
static void redirect_stdio(const struct sc_daemon *d)
{
	char log[PATH_MAX + 16];
	int null = open("/dev/null", O_RDWR | O_CLOEXEC);
	int out = -1;

	if (sc_mkdir_p(d->state_dir, 0700) == 0) {
		snprintf(log, sizeof(log), "%s/schedctld.log", d->state_dir);
		out = open(log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
	}
	if (out < 0)
		out = null;
	if (null >= 0)
		dup2(null, STDIN_FILENO);
	if (out >= 0) {
		dup2(out, STDOUT_FILENO);
		dup2(out, STDERR_FILENO);
	}
	if (out >= 0 && out != null)
		close(out);
	if (null >= 0)
		close(null);
}

/* Detach; returns in the daemon only.  The caller's process exits when
 * the daemon reports ready through the pipe (or dies). */
static void daemonize(const struct sc_daemon *d, int ready[2])
{
	pid_t pid;
	char c;

	if (pipe2(ready, O_CLOEXEC) < 0) {
		fprintf(stderr, "schedctld: pipe: %s\n", strerror(errno));
		exit(1);
	}
	pid = fork();
	if (pid < 0) {
		fprintf(stderr, "schedctld: fork: %s\n", strerror(errno));
		exit(1);
	}
	if (pid > 0) {
		close(ready[1]);
		waitpid(pid, NULL, 0);
		/* A byte means ready; EOF without one means it died. */
		exit(read(ready[0], &c, 1) == 1 ? 0 : 1);
	}
	close(ready[0]);
	setsid();
	pid = fork();
	if (pid < 0)
		_exit(1);
	if (pid > 0)
		_exit(0);
	/* Keep no directory busy; our paths are absolute and workers chdir
	 * to their client's directory. */
	if (chdir("/") < 0) {
		/* keep going */
	}
	umask(022);
	redirect_stdio(d);
}

static int make_absolute(char *path, size_t len)
{
	char cwd[PATH_MAX], abs[PATH_MAX * 2];
	size_t n;

	if (path[0] == '/')
		return 0;
	if (!getcwd(cwd, sizeof(cwd)) ||
	    (n = (size_t)snprintf(abs, sizeof(abs), "%s/%s", cwd, path)) >= len) {
		fprintf(stderr, "schedctld: %s: path too long\n", path);
		return -1;
	}
	memcpy(path, abs, n + 1);
	return 0;
}

int main(int argc, char **argv)
{
	struct sc_daemon d = { .listen_fd = -1, .lock_fd = -1 };
	const char *socket_opt = NULL, *state_opt = NULL;
	char err[PATH_MAX + 128];
	int ready[2] = { -1, -1 };
	int rc;

	parse_args(argc, argv, &d, &socket_opt, &state_opt);
	if (sc_socket_path(socket_opt, d.socket_path, sizeof(d.socket_path),
			   err, sizeof(err)) < 0 ||
	    sc_state_dir(state_opt, d.state_dir, sizeof(d.state_dir), err,
			 sizeof(err)) < 0) {
		fprintf(stderr, "schedctld: %s\n", err);
		return 1;
	}
	/* Paths must not depend on our cwd once detached. */
	if (make_absolute(d.state_dir, sizeof(d.state_dir)) < 0 ||
	    make_absolute(d.socket_path, sizeof(d.socket_path)) < 0)
		return 1;
	/* A state directory that cannot hold sessions fails every launch:
	 * say so now rather than serve (QA: a daemon on /proc/nope
	 * answered ping and failed each launch with exit 3). */
	if (sc_mkdir_p(d.state_dir, 0700) < 0 ||
	    access(d.state_dir, W_OK | X_OK) < 0) {
		fprintf(stderr, "schedctld: %s: %s (the state directory)\n",
			d.state_dir, strerror(errno));
		return 1;
	}
	if (strlen(d.socket_path) > SC_SOCKET_PATH_MAX) {
		fprintf(stderr, "schedctld: %s: socket path longer than %d bytes\n",
			d.socket_path, SC_SOCKET_PATH_MAX);
		return 1;
	}
	rc = sc_server_listen(&d);
	if (rc == 1) {
		/* Another daemon serves this socket: nothing to do. */
		if (d.foreground)
			fprintf(stderr, "schedctld: already running on %s\n",
				d.socket_path);
		return 0;
	}
	if (rc < 0)
		return 1;
	if (!d.foreground)
		daemonize(&d, ready);
	sc_server_write_pid(&d);
	if (ready[1] >= 0) {
		if (write(ready[1], "1", 1) < 0) {
			/* the caller is gone: fine */
		}
		close(ready[1]);
	}
	return sc_server_run(&d);
}
