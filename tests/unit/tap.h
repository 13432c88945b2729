/*
 * tap.h - a minimal TAP producer for the unit tests (run by automake's TAP
 * driver under `make check`, or by hand: the output is readable as is).
 *
 *   plan(5);                       or nothing, and done_testing() at the end
 *   ok(x == 3, "x is %d", x);      returns the condition
 *   is_int(got, want, "name");     prints both values on failure
 *   is_str(got, want, "name");
 *   diag("bytes/event: %.2f", v);  a "# " comment line
 *   skip(n, "why");
 *   return done_testing();         exit status: 0 iff every test passed
 *
 * State is static: include it from one source file per test program.
 */
#ifndef SCHEDCTL_TAP_H
#define SCHEDCTL_TAP_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int tap_run_, tap_failed_, tap_planned_ = -1;

__attribute__((unused))
static void plan(int n)
{
	tap_planned_ = n;
	printf("1..%d\n", n);
	fflush(stdout);
}

__attribute__((unused, format(printf, 1, 2)))
static void diag(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fputs("# ", stdout);
	vprintf(fmt, ap);
	putchar('\n');
	va_end(ap);
	fflush(stdout);
}

__attribute__((unused))
static int tap_vok_(int cond, const char *fmt, va_list ap)
{
	tap_run_++;
	if (!cond)
		tap_failed_++;
	printf("%sok %d - ", cond ? "" : "not ", tap_run_);
	vprintf(fmt, ap);
	putchar('\n');
	fflush(stdout);
	return cond;
}

__attribute__((unused, format(printf, 2, 3)))
static int ok(int cond, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	tap_vok_(cond, fmt, ap);
	va_end(ap);
	return cond;
}

__attribute__((unused, format(printf, 3, 4)))
static int is_int(long long got, long long want, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int r = tap_vok_(got == want, fmt, ap);
	va_end(ap);
	if (!r)
		diag("  got %lld, want %lld", got, want);
	return r;
}

__attribute__((unused, format(printf, 3, 4)))
static int is_str(const char *got, const char *want, const char *fmt, ...)
{
	int same = got && want ? strcmp(got, want) == 0 : got == want;
	va_list ap;
	va_start(ap, fmt);
	int r = tap_vok_(same, fmt, ap);
	va_end(ap);
	if (!r)
		diag("  got \"%s\", want \"%s\"", got ? got : "(null)",
		     want ? want : "(null)");
	return r;
}

__attribute__((unused))
static void skip(int n, const char *why)
{
	for (int i = 0; i < n; i++)
		printf("ok %d # SKIP %s\n", ++tap_run_, why);
	fflush(stdout);
}

/* Stop the whole run (the TAP driver reports it as an error). */
__attribute__((unused, noreturn))
static void bail_out(const char *why)
{
	printf("Bail out! %s\n", why);
	fflush(stdout);
	exit(1);
}

__attribute__((unused))
static int done_testing(void)
{
	if (tap_planned_ < 0)
		printf("1..%d\n", tap_run_);
	else if (tap_planned_ != tap_run_)
		diag("planned %d tests but ran %d", tap_planned_, tap_run_);
	fflush(stdout);
	return tap_failed_ || (tap_planned_ >= 0 && tap_planned_ != tap_run_);
}

#endif /* SCHEDCTL_TAP_H */
