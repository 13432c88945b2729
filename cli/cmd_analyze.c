/*
 * cmd_analyze.c - schedctl analyze [--json] [--no-files] SESSION-DIR... |
 * TRACE...
 *
 * Offline, without the daemon: reads every run's trace (*.sctrace in each
 * session directory, or the trace files given), prints the figures of
 * docs/schedctl.1 (ANALYZE) and writes the coverage curve as coverage.csv
 * and coverage.svg into the first session directory (or beside the first
 * trace).  Several directories are analysed as one session (shards).
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "analysis.h"
#include "cli.h"

static const char analyze_usage[] =
"Usage: schedctl analyze [OPTIONS] SESSION-DIR... | TRACE...\n"
"Partial orders, coverage, verdicts and data races of recorded runs\n"
"(no daemon needed).  A SESSION-DIR holds one *.sctrace file per run\n"
"(launch --keep-traces all --out DIR); several are analysed together.\n"
"\n"
"      --json              print one JSON object instead of the report\n"
"      --no-files          do not write coverage.csv and coverage.svg\n"
"      --events WHICH      what partial orders are made of: all (default:\n"
"                          every event, libc's futex traffic included) or\n"
"                          program (the program's pthread/C11 calls and\n"
"                          memory accesses only)\n"
"  -h, --help              show this help and exit\n"
"\n"
"Exit status: 0 done, 2 usage error, 3 unreadable or corrupt trace.\n";

enum { OPT_JSON = 1100, OPT_NO_FILES, OPT_EVENTS };

static const struct option analyze_opts[] = {
	{ "json", no_argument, NULL, OPT_JSON },
	{ "no-files", no_argument, NULL, OPT_NO_FILES },
	{ "events", required_argument, NULL, OPT_EVENTS },
	{ "socket", required_argument, NULL, OPT_SOCKET },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

struct paths {
	char **v;
	size_t n, cap;
};

static int add_path(struct paths *p, const char *dir, const char *name)
{
	if (p->n == p->cap) {
		size_t c = p->cap ? p->cap * 2 : 64;
		char **v = realloc(p->v, c * sizeof(*v));
		if (!v)
			return -1;
		p->v = v;
		p->cap = c;
	}
	char *s;
	if (dir) {
		size_t len = strlen(dir) + strlen(name) + 2;
		s = malloc(len);
		if (s)
			snprintf(s, len, "%s/%s", dir, name);
	} else {
		s = strdup(name);
	}
	if (!s)
		return -1;
	p->v[p->n++] = s;
	return 0;
}

/* A run's trace: not minimize's output (run-N.min.sctrace), which is a
 * replay of run N, not another run of the session. */
static int is_trace_name(const struct dirent *d)
{
	size_t len = strlen(d->d_name);
	return d->d_name[0] != '.' && len > 8 &&
	       strcmp(d->d_name + len - 8, ".sctrace") == 0 &&
	       !(len > 12 && strcmp(d->d_name + len - 12, ".min.sctrace") == 0);
}

/* The traces of a session directory, in name order.  0, or EXIT_FAIL. */
static int list_dir(struct paths *p, const char *dir)
{
	struct dirent **names;
	int n = scandir(dir, &names, is_trace_name, alphasort);
	if (n < 0) {
		cli_error("%s: %s", dir, strerror(errno));
		return EXIT_FAIL;
	}
	int rc = n ? 0 : EXIT_FAIL;
	if (!n)
		cli_error("%s: no trace files (*.sctrace) in this directory "
			  "(launch --keep-traces all --out DIR keeps them)", dir);
	for (int i = 0; i < n; i++) {
		if (!rc && add_path(p, dir, names[i]->d_name) < 0) {
			cli_error("out of memory");
			rc = EXIT_FAIL;
		}
		free(names[i]);
	}
	free(names);
	return rc;
}

/* Where the coverage files go: the first directory, else the directory
 * of the first trace.  malloc'ed. */
static char *files_dir(const char *first, bool is_dir)
{
	if (is_dir)
		return strdup(first);
	const char *slash = strrchr(first, '/');
	if (!slash)
		return strdup(".");
	if (slash == first)
		return strdup("/");
	return strndup(first, (size_t)(slash - first));
}

static void write_file(const char *dir, const char *name,
		       const struct sc_analysis_result *r,
		       int (*fn)(const struct sc_analysis_result *, FILE *))
{
	char path[4096];
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	FILE *f = fopen(path, "we");
	if (!f) {
		cli_error("warning: %s: %s", path, strerror(errno));
		return;
	}
	int rc = fn(r, f);
	if (fclose(f) != 0 || rc < 0)
		cli_error("warning: %s: write error", path);
}

static int analyze(struct paths *traces, bool json, const char *out_dir,
		   enum sc_po_view view)
{
	struct sc_analysis *a = sc_analysis_new();
	char err[1024];
	int code = 0;

	if (!a) {
		cli_error("out of memory");
		return EXIT_FAIL;
	}
	sc_analysis_set_view(a, view);
	for (size_t i = 0; i < traces->n && !code; i++) {
		const char *path = traces->v[i];
		struct sc_trace t;
		if (sc_trace_load(path, &t, err, sizeof(err)) < 0) {
			if (strncmp(err, path, strlen(path)) == 0)
				cli_error("%s", err);
			else
				cli_error("%s: %s", path, err);
			code = EXIT_FAIL;
			break;
		}
		if (t.truncated)
			cli_error("warning: %s is truncated after %llu bytes; "
				  "analysing the records before that", path,
				  (unsigned long long)t.valid_bytes);
		if (sc_analysis_add(a, &t, path, err, sizeof(err)) < 0) {
			cli_error("%s: %s", path, err);
			code = EXIT_FAIL;
		}
		sc_trace_free(&t);
	}
	const struct sc_analysis_result *r = code ? NULL : sc_analysis_result(a);
	if (!code && !r) {
		cli_error("out of memory");
		code = EXIT_FAIL;
	}
	if (r) {
		if (out_dir) {
			write_file(out_dir, "coverage.csv", r,
				   sc_coverage_write_csv);
			write_file(out_dir, "coverage.svg", r,
				   sc_coverage_write_svg);
		}
		int w = json ? sc_analysis_write_json(r, stdout)
			     : sc_analysis_write_text(r, stdout);
		cli_json_printed |= json && w == 0;
		if (!json && out_dir && w == 0)
			printf("coverage: %s/coverage.csv, %s/coverage.svg\n",
			       out_dir, out_dir);
		if (w < 0 || fflush(stdout) != 0) {
			cli_error("stdout: %s", strerror(errno));
			code = EXIT_FAIL;
		}
	}
	sc_analysis_free(a);
	return code;
}

int cmd_analyze(int argc, char **argv)
{
	bool json = false, files = true;
	enum sc_po_view view = SC_PO_ALL;
	struct paths traces = { 0 };
	char *out_dir = NULL;
	int c, code = 0;

	opterr = 0;
	optind = 0;
	while ((c = getopt_long(argc, argv, ":h", analyze_opts, NULL)) != -1) {
		switch (c) {
		case 'h':
			fputs(analyze_usage, stdout);
			return 0;
		case OPT_JSON:
			json = true;
			break;
		case OPT_NO_FILES:
			files = false;
			break;
		case OPT_EVENTS:
			if (sc_po_view_parse(optarg, &view) < 0)
				return cli_usage_error("--events: unknown value "
						       "'%s' (known: all, program)",
						       optarg);
			break;
		case OPT_SOCKET:
			break;      /* accepted everywhere; no daemon here */
		default:
			return cli_bad_option(c, argv);
		}
	}
	if (optind >= argc)
		return cli_usage_error("analyze: no session directory or trace "
				       "given (schedctl analyze DIR)");
	for (int i = optind; i < argc && !code; i++) {
		struct stat st;
		if (stat(argv[i], &st) < 0) {
			cli_error("%s: %s", argv[i], strerror(errno));
			code = EXIT_FAIL;
		} else if (S_ISDIR(st.st_mode)) {
			code = list_dir(&traces, argv[i]);
		} else if (add_path(&traces, NULL, argv[i]) < 0) {
			cli_error("out of memory");
			code = EXIT_FAIL;
		}
		if (!code && i == optind && files) {
			out_dir = files_dir(argv[i], S_ISDIR(st.st_mode));
			if (!out_dir) {
				cli_error("out of memory");
				code = EXIT_FAIL;
			}
		}
	}
	if (!code)
		code = analyze(&traces, json, out_dir, view);
	for (size_t i = 0; i < traces.n; i++)
		free(traces.v[i]);
	free(traces.v);
	free(out_dir);
	return code;
}
