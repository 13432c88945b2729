/*
 * main.c - schedctl: global options, then one subcommand.
 */
#include "config.h"

#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"

static const char main_usage[] =
"Usage: schedctl [--socket PATH] COMMAND [OPTIONS] [ARGS...]\n"
"Find and reproduce concurrency bugs in unmodified Linux programs.\n"
"\n"
"Commands:\n"
"  launch [OPTIONS] -- PROGRAM [ARGS...]\n"
"                          run PROGRAM many times under controlled schedules\n"
"  replay [OPTIONS] TRACE  reproduce a recorded run\n"
"  minimize [OPTIONS] TRACE\n"
"                          shrink a failing run to its fewest preemptions\n"
"                          and name the racing pair\n"
"  attach PID [OPTIONS]    control a running process for a while\n"
"  list                    list the sessions\n"
"  status [SESSION]        runs done, bugs, rate and time left\n"
"  results SESSION         the bugs a session found, with replay commands\n"
"  stop SESSION            stop a running session cleanly\n"
"  export TRACE --format json|chrome|dot [-o FILE]\n"
"                          decode a trace file (no daemon needed)\n"
"  analyze SESSION-DIR... | TRACE... [--json]\n"
"                          partial orders, coverage and data races of\n"
"                          recorded runs (no daemon needed)\n"
"  ping                    check that the daemon answers\n"
"  shutdown                stop the daemon\n"
"\n"
"Options:\n"
"      --socket PATH       daemon control socket (default: $SCHEDCTL_SOCKET,\n"
"                          else /run/schedctl/schedctld.sock for root,\n"
"                          $XDG_RUNTIME_DIR/schedctl/schedctld.sock, or\n"
"                          /tmp/schedctl-UID/schedctld.sock)\n"
"  -h, --help              show this help and exit\n"
"  -V, --version           show the version and exit\n"
"\n"
"'schedctl COMMAND --help' describes a command.  The daemon (schedctld) is\n"
"started when needed.\n"
"Exit status of launch and replay: 0 no bug, 1 bug found (replay: bug\n"
"reproduced), 2 usage error, 3 the tool or the program could not run.\n";

static const struct {
	const char *name;
	int (*run)(int argc, char **argv);
} commands[] = {
	{ "launch", cmd_launch },
	{ "replay", cmd_replay },
	{ "minimize", cmd_minimize },
	{ "export", cmd_export },
	{ "analyze", cmd_analyze },
	{ "attach", cmd_attach },
	{ "list", cmd_list },
	{ "status", cmd_status },
	{ "results", cmd_results },
	{ "stop", cmd_stop },
	{ "ping", cmd_ping },
	{ "shutdown", cmd_shutdown },
};

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "socket", required_argument, NULL, OPT_SOCKET },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	opterr = 0;
	/* '+': stop at the subcommand; its options are its own. */
	while ((c = getopt_long(argc, argv, "+:hV", opts, NULL)) != -1) {
		switch (c) {
		case 'h':
			fputs(main_usage, stdout);
			return cli_stdout_checked(0);
		case 'V':
			printf("schedctl %s\n", PACKAGE_VERSION);
			return cli_stdout_checked(0);
		case OPT_SOCKET:
			cli_socket = optarg;
			break;
		default:
			return cli_bad_option(c, argv);
		}
	}
	if (optind >= argc)
		return cli_usage_error("no command given");
	/* --json among the command's own options (not the program's, after
	 * "--"): errors then also print a JSON object on stdout. */
	for (int i = optind + 1; i < argc && strcmp(argv[i], "--"); i++)
		if (strcmp(argv[i], "--json") == 0)
			cli_json_mode = true;
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (strcmp(argv[optind], commands[i].name) == 0) {
			cli_command = commands[i].name;
			int code = commands[i].run(argc - optind, argv + optind);
			cli_json_error(code);
			return cli_stdout_checked(code);
		}
	int code = cli_usage_error("unknown command '%s'", argv[optind]);
	cli_json_error(code);
	return code;
}
