/*
 * cli.h - what the schedctl subcommands share.
 *
 * Exit status (launch and replay): 0 no bug, 1 bug found (replay: bug
 * reproduced), 2 usage error, 3 the tool or the target could not run.
 * Errors are one line "schedctl: ..." on stderr.
 */
#ifndef SCHEDCTL_CLI_H
#define SCHEDCTL_CLI_H

#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stddef.h>
#include <stdint.h>

#include "control.pb-c.h"

enum {
	EXIT_NO_BUG = 0,
	EXIT_BUG = 1,
	EXIT_USAGE = 2,
	EXIT_FAIL = 3,
};

/* Long-option values shared by all subcommands. */
enum {
	OPT_SOCKET = 1000,
};

/* --socket given before the subcommand (or in it); NULL: default. */
extern const char *cli_socket;
/* The command being run ("launch"), or NULL: usage errors name its help. */
extern const char *cli_command;

/* "s" unless n is 1: "1 run", "2 runs". */
/* s with its control characters written as C escapes (\n, \t, \x1b),
 * cut to fit buf: a program argument holding a newline must not split
 * a row of `schedctl list`. */
const char *cli_visible(const char *s, char *buf, size_t len);

static inline const char *cli_s(uint64_t n)
{
	return n == 1 ? "" : "s";
}

void cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* --json on the command line: an error then also prints a JSON object
 * {"error": "...", "exit_status": N} on stdout (cli_json_error), unless
 * the command printed its own JSON object (cli_json_printed). */
extern bool cli_json_mode;
extern bool cli_json_printed;
void cli_json_error(int exit_status);
/* Print the problem and "Try 'schedctl --help'."; returns EXIT_USAGE. */
int cli_usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
bool cli_same_file(const char *a, const char *b);
/* replay --gdb/--stop-at: debug the process the daemon left stopped
 * (gdb -p PID GDB-ARGS, or the command printed and Enter awaited). */
/* json: stdout carries the JSON result only, gdb writes to stderr.
 * tid (or 0): the thread that failed, which gdb selects first. */
int cli_debug_stopped(int pid, int tid, bool gdb, bool json, int gdb_argc,
		      char **gdb_argv);
/* The getopt_long error ('?' or ':') as a usage error; returns EXIT_USAGE. */
int cli_bad_option(int c, char **argv);

/* Number parsing for options: 0 or -1 after printing a usage error. */
int cli_parse_u32(const char *opt, const char *s, uint32_t *out);
int cli_parse_u64(const char *opt, const char *s, uint64_t *out);
/* Decimal, or hexadecimal with 0x. */
int cli_parse_seed(const char *opt, const char *s, uint64_t *out);
/* Seconds, fractions allowed, into milliseconds (0 allowed). */
int cli_parse_seconds(const char *opt, const char *s, uint32_t *ms);

/* The environment passed to the program: ours without "_", which the
 * shell sets to the last command and would make every replay's
 * environment differ from the recorded one.  free() the array only. */
char **cli_environment(size_t *n);

/* connect.c: connect to the daemon, starting it when none listens and
 * autostart is set.  Returns the socket or -1 after printing why
 * (*not_running set when there was simply no daemon). */
int cli_connect(bool autostart, bool *not_running);
/* Send a request (with descriptors, may be none). 0 or -1 (printed). */
int cli_send(int fd, const Scctl__Request *req, const int *fds, int nfds);
/* How long cli_recv waits for a reply that comes at once (ping, stop,
 * shutdown): -1 (the default) for as long as the session lasts. */
extern int cli_reply_wait_ms;
#define CLI_QUICK_REPLY_MS 15000
/* The next reply, or NULL after printing why (daemon gone...). */
Scctl__Reply *cli_recv(int fd);
/* code, or EXIT_FAIL (saying why) when stdout could not be written. */
int cli_stdout_checked(int code);

/* Shard "I/N" (1 <= I <= N): 0 or -1 after printing a usage error. */
int cli_parse_shard(const char *s, uint32_t *index, uint32_t *count);

/* interrupt.c: Ctrl-C during a launch or attach stops the session
 * cleanly: the first SIGINT (or SIGTERM) half-closes the connection, the
 * worker notices and stops its runs (no target left running) and closes
 * its end; a second SIGINT kills the CLI as usual. */
extern volatile sig_atomic_t cli_interrupted;
void cli_stop_on_interrupt(int fd);
/* Put back the dispositions cli_stop_on_interrupt replaced. */
void cli_interrupt_restore(void);
/* What the CLI says once the worker is gone; returns 130. */
int cli_report_interrupted(const char *session);

/* Subcommands: argv[0] is the subcommand name. */
int cmd_launch(int argc, char **argv);
int cmd_replay(int argc, char **argv);
int cmd_minimize(int argc, char **argv);
int cmd_export(int argc, char **argv);
int cmd_analyze(int argc, char **argv);
int cmd_shutdown(int argc, char **argv);
int cmd_ping(int argc, char **argv);
int cmd_list(int argc, char **argv);
int cmd_status(int argc, char **argv);
int cmd_results(int argc, char **argv);
int cmd_stop(int argc, char **argv);
int cmd_attach(int argc, char **argv);

/* Print a session's pace: "12.3 runs/s", or for slow ones (a run of a
 * real program can take a minute) "a run every 45 s", not "0.0 runs/s". */
void cli_print_rate(FILE *f, double runs_per_s);

/* launch: the program's standard input.  file: --stdin FILE ("-": ours),
 * or NULL for ours unless it is a terminal or /dev/null.  Sets *fd to the
 * descriptor to pass (-1: none, the program gets /dev/null); returns 0 or
 * the exit status after printing why. */
int cli_launch_stdin(const char *file, int *fd);

#endif /* SCHEDCTL_CLI_H */
