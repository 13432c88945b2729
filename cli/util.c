/* util.c - error lines and option value parsing for schedctl. */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "json_out.h"

const char *cli_socket;
const char *cli_command;
bool cli_json_mode;
bool cli_json_printed;

/* The last error line, for the JSON error object. */
static char last_error[1024];

static void error_line(const char *fmt, va_list ap, const char *tail)
{
	va_list copy;

	fflush(stdout);
	va_copy(copy, ap);
	vsnprintf(last_error, sizeof(last_error), fmt, copy);
	va_end(copy);
	fputs("schedctl: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputs(tail, stderr);
}

void cli_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	error_line(fmt, ap, "\n");
	va_end(ap);
}

/* Are a and b one file (a symlink or another name of it)?  An output
 * option naming the input trace would replace the recording (QA: export
 * -o, replay --record, minimize -o). */
bool cli_same_file(const char *a, const char *b)
{
	struct stat sa, sb;

	return a && b && stat(a, &sa) == 0 && stat(b, &sb) == 0 &&
	       sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

int cli_usage_error(const char *fmt, ...)
{
	char tail[96];
	va_list ap;

	/* The command's own help lists its options (QA: a --depth error
	 * pointed at the top-level help). */
	snprintf(tail, sizeof(tail), " (try 'schedctl %s%s--help')\n",
		 cli_command ? cli_command : "", cli_command ? " " : "");
	va_start(ap, fmt);
	error_line(fmt, ap, tail);
	va_end(ap);
	return EXIT_USAGE;
}

void cli_json_error(int exit_status)
{
	if (!cli_json_mode || cli_json_printed || exit_status == 0)
		return;
	fputs("{\"error\": ", stdout);
	json_write_escaped(stdout, last_error[0] ? last_error : "failed");
	printf(", \"exit_status\": %d}\n", exit_status);
	fflush(stdout);
	cli_json_printed = true;
}

int cli_stdout_checked(int code)
{
	/* A report written to a full disk or a closed pipe is lost: say
	 * so, as export and analyze do (QA: launch --json > /dev/full
	 * exited 1 with nothing said). */
	if (fflush(stdout) == 0 && !ferror(stdout))
		return code;
	int e = errno ? errno : EIO;
	/* Once: export and analyze said it already (QA: twice). */
	if (strncmp(last_error, "stdout: ", 8) != 0)
		fprintf(stderr, "schedctl: stdout: %s\n", strerror(e));
	return code == EXIT_USAGE ? code : EXIT_FAIL;
}

int cli_bad_option(int c, char **argv)
{
	const char *arg = argv[optind - 1];

	if (c == ':')
		return cli_usage_error("option '%s' requires an argument", arg);
	/* Short options: optopt names the letter (getopt leaves it 0 for
	 * an unknown long option).  argv[optind - 1] may be the argument of
	 * an earlier option ("-s random -j1"), not the bad option itself. */
	if (optopt > 0 && optopt < 256)
		return cli_usage_error("unknown option '-%c'", optopt);
	return cli_usage_error("unknown option '%s'", arg);
}

int cli_parse_u64(const char *opt, const char *s, uint64_t *out)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || end == s || *end || s[0] == '-' || s[0] == '+' ||
	    s[0] == ' ') {
		cli_usage_error("%s: invalid number '%s'", opt, s);
		return -1;
	}
	*out = v;
	return 0;
}

int cli_parse_u32(const char *opt, const char *s, uint32_t *out)
{
	uint64_t v;

	if (cli_parse_u64(opt, s, &v) < 0)
		return -1;
	if (v > UINT32_MAX) {
		cli_usage_error("%s: number too large '%s'", opt, s);
		return -1;
	}
	*out = (uint32_t)v;
	return 0;
}

int cli_parse_seed(const char *opt, const char *s, uint64_t *out)
{
	bool hex = s[0] == '0' && (s[1] == 'x' || s[1] == 'X');
	const char *digits = hex ? s + 2 : s;
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(digits, &end, hex ? 16 : 10);
	if (errno || end == digits || *end || digits[0] == '-' ||
	    digits[0] == '+' || digits[0] == ' ') {
		cli_usage_error("%s: invalid seed '%s' (decimal or 0x hex)", opt, s);
		return -1;
	}
	*out = v;
	return 0;
}

int cli_parse_seconds(const char *opt, const char *s, uint32_t *ms)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || *end || !isfinite(v) || v < 0 ||
	    v * 1000.0 > (double)UINT32_MAX) {
		cli_usage_error("%s: invalid number of seconds '%s'", opt, s);
		return -1;
	}
	/* Milliseconds are what the engine counts: a tiny positive value
	 * would silently become 1 ms (or 0, "none"). */
	if (v > 0 && v < 0.001) {
		cli_usage_error("%s: '%s' is below the resolution of 0.001 "
				"seconds", opt, s);
		return -1;
	}
	*ms = (uint32_t)llround(v * 1000.0);
	return 0;
}

int cli_parse_shard(const char *s, uint32_t *index, uint32_t *count)
{
	unsigned long i, n;
	char *end, *slash;

	errno = 0;
	i = strtoul(s, &slash, 10);
	if (errno || slash == s || *slash != '/' || s[0] == '-' ||
	    s[0] == '+')
		goto bad;
	n = strtoul(slash + 1, &end, 10);
	if (errno || end == slash + 1 || *end || slash[1] == '-' ||
	    slash[1] == '+')
		goto bad;
	if (n < 1 || n > UINT32_MAX || i < 1 || i > n) {
		cli_usage_error("--shard %s: I must be from 1 to N", s);
		return -1;
	}
	*index = (uint32_t)i;
	*count = (uint32_t)n;
	return 0;
bad:
	cli_usage_error("--shard: invalid value '%s' (I/N, e.g. 2/4)", s);
	return -1;
}

extern char **environ;

char **cli_environment(size_t *n)
{
	size_t count = 0, k = 0;
	char **out;

	while (environ[count])
		count++;
	out = calloc(count + 1, sizeof(*out));
	if (!out)
		return NULL;
	for (size_t i = 0; i < count; i++)
		if (strncmp(environ[i], "_=", 2) != 0)
			out[k++] = environ[i];
	*n = k;
	return out;
}

const char *cli_visible(const char *s, char *buf, size_t len)
{
	size_t used = 0;

	if (len == 0)
		return "";
	for (; s && *s && used + 5 < len; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '\n')
			used += (size_t)snprintf(buf + used, len - used, "\\n");
		else if (c == '\t')
			used += (size_t)snprintf(buf + used, len - used, "\\t");
		else if (c < 0x20 || c == 0x7f)
			used += (size_t)snprintf(buf + used, len - used,
						 "\\x%02x", c);
		else
			buf[used++] = (char)c;
	}
	buf[used] = '\0';
	return buf;
}

void cli_print_rate(FILE *f, double runs_per_s)
{
	if (runs_per_s >= 0.95)
		fprintf(f, "%.1f runs/s", runs_per_s);
	else if (runs_per_s > 0)
		fprintf(f, "a run every %.2g s", 1.0 / runs_per_s);
	else
		fprintf(f, "no run finished yet");
}
