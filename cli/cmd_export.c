/*
 * cmd_export.c - schedctl export TRACE --format json|chrome|dot [-o FILE]
 *
 * Decodes a trace file without the daemon: plain JSON of everything,
 * Chrome trace-event JSON (Perfetto, chrome://tracing) of the schedule,
 * or Graphviz DOT of the partial order.  A truncated trace (a killed
 * supervisor leaves a valid prefix) is exported with a warning.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "analysis.h"
#include "cli.h"

static const char export_usage[] =
"Usage: schedctl export [OPTIONS] TRACE\n"
"Write the contents of a trace file in another format.\n"
"\n"
"  -f, --format FORMAT     json (default): the whole trace as JSON;\n"
"                          chrome: a Chrome trace-event file (Perfetto,\n"
"                          chrome://tracing), one track per thread;\n"
"                          dot: the partial order as a Graphviz digraph\n"
"  -o, --output FILE       write to FILE instead of stdout\n"
"  -h, --help              show this help and exit\n"
"\n"
"Exit status: 0 done, 2 usage error, 3 unreadable trace or output error.\n";

static const struct option export_opts[] = {
	{ "format", required_argument, NULL, 'f' },
	{ "output", required_argument, NULL, 'o' },
	{ "socket", required_argument, NULL, OPT_SOCKET },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

static int check_format(const char *f)
{
	if (strcmp(f, "json") == 0 || strcmp(f, "chrome") == 0 ||
	    strcmp(f, "dot") == 0)
		return 0;
	return cli_usage_error("--format: unknown format '%s' (known: json, "
			       "chrome, dot)", f);
}

static int write_format(const struct sc_trace *t, const char *format,
			FILE *out)
{
	char err[256];
	int rc;

	if (strcmp(format, "json") == 0)
		return sc_trace_export_json(t, out);
	struct sc_symbolizer *sym = sc_symbolizer_new();
	if (!sym)
		return -1;
	if (strcmp(format, "chrome") == 0) {
		rc = sc_trace_export_chrome(t, sym, out);
	} else {
		rc = sc_trace_export_dot(t, sym, 0, out, err, sizeof(err));
		if (rc < 0) {
			cli_error("dot: %s", err);
			rc = -2;
		}
	}
	sc_symbolizer_free(sym);
	return rc;
}

/* Is path missing or a regular file (not a device, a FIFO, a symlink),
 * so that a file renamed over it can take its place? */
static bool replaceable(const char *path)
{
	struct stat st;

	return lstat(path, &st) != 0 ? errno == ENOENT : S_ISREG(st.st_mode);
}

/* The output goes to a temporary file beside out_path, renamed over it
 * once complete: an export that fails (a graph too large to draw, a full
 * disk) leaves an existing file as it was, not emptied.  Anything else
 * (/dev/stdout, a FIFO, a symlink) is written as it is. */
static int export_to(const struct sc_trace *t, const char *format,
		     const char *out_path)
{
	char tmp[PATH_MAX];
	FILE *out = stdout;
	int rc, fd = -1;

	if (out_path && strcmp(out_path, "-") != 0 && !replaceable(out_path)) {
		out = fopen(out_path, "we");
		if (!out) {
			cli_error("%s: %s", out_path, strerror(errno));
			return EXIT_FAIL;
		}
		tmp[0] = '\0';
	} else if (out_path && strcmp(out_path, "-") != 0) {
		if (snprintf(tmp, sizeof(tmp), "%s.XXXXXX", out_path) >=
		    (int)sizeof(tmp)) {
			cli_error("%s: %s", out_path, strerror(ENAMETOOLONG));
			return EXIT_FAIL;
		}
		fd = mkostemp(tmp, O_CLOEXEC);
		out = fd >= 0 ? fdopen(fd, "w") : NULL;
		if (!out) {
			cli_error("%s: %s", out_path, strerror(errno));
			if (fd >= 0) {
				close(fd);
				unlink(tmp);
			}
			return EXIT_FAIL;
		}
		/* mkostemp's 0600, widened as fopen's would be (umask). */
		mode_t mask = umask(0);
		umask(mask);
		fchmod(fd, 0666 & ~mask);
	}
	errno = 0;
	rc = write_format(t, format, out);
	if (fflush(out) != 0 && rc == 0)
		rc = -1;
	if (rc == -1)
		cli_error("%s: %s", out == stdout ? "stdout" : out_path,
			  errno ? strerror(errno) : "write error");
	if (out != stdout && fclose(out) != 0 && rc == 0) {
		cli_error("%s: %s", out_path, strerror(errno));
		rc = -1;
	}
	if (out != stdout && tmp[0]) {
		if (rc == 0 && rename(tmp, out_path) != 0) {
			cli_error("%s: %s", out_path, strerror(errno));
			rc = -1;
		}
		if (rc != 0)
			unlink(tmp);
	}
	return rc < 0 ? EXIT_FAIL : 0;
}

int cmd_export(int argc, char **argv)
{
	const char *format = "json", *out_path = NULL, *path;
	struct sc_trace t;
	char err[1024];
	int c, code;

	opterr = 0;
	/* 0, not 1: glibc then re-reads the optstring's ordering flag. */
	optind = 0;
	while ((c = getopt_long(argc, argv, ":f:o:h", export_opts, NULL)) != -1) {
		switch (c) {
		case 'h':
			fputs(export_usage, stdout);
			return 0;
		case 'f':
			format = optarg;
			break;
		case 'o':
			out_path = optarg;
			break;
		case OPT_SOCKET:
			break;      /* accepted everywhere; no daemon here */
		default:
			return cli_bad_option(c, argv);
		}
	}
	code = check_format(format);
	if (code)
		return code;
	if (optind >= argc)
		return cli_usage_error("export: no trace given (schedctl export "
				       "TRACE --format json)");
	if (argc - optind > 1)
		return cli_usage_error("export: unexpected argument '%s'",
				       argv[optind + 1]);
	path = argv[optind];
	/* export T -o T replaced the trace with its export (QA). */
	if (cli_same_file(path, out_path))
		return cli_usage_error("export: -o %s is the trace itself",
				       out_path);
	if (sc_trace_load(path, &t, err, sizeof(err)) < 0) {
		if (strncmp(err, path, strlen(path)) == 0)
			cli_error("%s", err);
		else
			cli_error("%s: %s", path, err);
		return EXIT_FAIL;
	}
	if (t.truncated)
		cli_error("warning: %s is truncated after %llu bytes; exporting "
			  "the records before that", path,
			  (unsigned long long)t.valid_bytes);
	code = export_to(&t, format, out_path);
	sc_trace_free(&t);
	return code;
}
