/*
 * cmd_shutdown.c - schedctl shutdown, schedctl ping.
 *
 * Neither starts a daemon.  shutdown returns once the daemon has stopped
 * its workers and removed its socket (it answers last).
 */
#include "config.h"

#include <getopt.h>
#include <stdio.h>
#include <unistd.h>

#include "cli.h"

static const char shutdown_usage[] =
"Usage: schedctl shutdown\n"
"Ask schedctld to stop its sessions and exit.  Nothing to do (exit 0) when\n"
"it is not running.\n"
"\n"
"      --socket PATH       daemon control socket\n"
"  -h, --help              show this help and exit\n";

static const char ping_usage[] =
"Usage: schedctl ping\n"
"Check that schedctld answers (exit 0), or say it is not running (exit 3).\n"
"\n"
"      --socket PATH       daemon control socket\n"
"  -h, --help              show this help and exit\n";

static const struct option simple_opts[] = {
	{ "socket", required_argument, NULL, OPT_SOCKET },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

/* Options of a command without arguments; -1 to go on, else exit code. */
static int parse_simple(int argc, char **argv, const char *usage)
{
	int c;

	opterr = 0;
	/* 0, not 1: glibc then re-reads the optstring's ordering flag. */
	optind = 0;
	while ((c = getopt_long(argc, argv, "+:h", simple_opts, NULL)) != -1) {
		if (c == 'h') {
			fputs(usage, stdout);
			return 0;
		}
		if (c != OPT_SOCKET)
			return cli_bad_option(c, argv);
		cli_socket = optarg;
	}
	if (optind < argc)
		return cli_usage_error("%s: unexpected argument '%s'", argv[0],
				       argv[optind]);
	return -1;
}

/* Send req and wait for its one reply: 0 ok, else an exit code. */
static int request(Scctl__Request *req, bool *not_running)
{
	Scctl__Reply *r;
	int fd = cli_connect(false, not_running), code = 0;

	if (fd < 0)
		return EXIT_FAIL;
	if (cli_send(fd, req, NULL, 0) < 0) {
		close(fd);
		return EXIT_FAIL;
	}
	cli_reply_wait_ms = CLI_QUICK_REPLY_MS;
	r = cli_recv(fd);
	if (!r)
		code = EXIT_FAIL;
	else if (r->has_ok && !r->ok) {
		cli_error("%s", r->error ? r->error : "request refused");
		code = r->has_exit_code ? r->exit_code : EXIT_FAIL;
	}
	if (r)
		scctl__reply__free_unpacked(r, NULL);
	close(fd);
	return code;
}

int cmd_shutdown(int argc, char **argv)
{
	Scctl__Request req = SCCTL__REQUEST__INIT;
	bool not_running;
	int code = parse_simple(argc, argv, shutdown_usage);

	if (code >= 0)
		return code;
	req.has_shutdown = req.shutdown = 1;
	code = request(&req, &not_running);
	return not_running ? 0 : code;
}

int cmd_ping(int argc, char **argv)
{
	Scctl__Request req = SCCTL__REQUEST__INIT;
	bool not_running;
	int code = parse_simple(argc, argv, ping_usage);

	if (code >= 0)
		return code;
	req.has_ping = req.ping = 1;
	code = request(&req, &not_running);
	if (not_running)
		cli_error("schedctld is not running");
	else if (code == 0)
		puts("schedctld is running");
	return code;
}
