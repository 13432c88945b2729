/*
 * trace_util.h - helpers shared by the trace unit tests: a scratch
 * directory, reading a file whole, and a deterministic PRNG.
 * Static functions: include from one source file per test program.
 */
#ifndef SCHEDCTL_TRACE_UTIL_H
#define SCHEDCTL_TRACE_UTIL_H

#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char tu_dir_[256];

/* Create a scratch directory under $TMPDIR (or /tmp); NULL on failure. */
__attribute__((unused))
static const char *tu_tmpdir(void)
{
	const char *base = getenv("TMPDIR");
	if (!base || !*base)
		base = "/tmp";
	snprintf(tu_dir_, sizeof(tu_dir_), "%s/sctrace-test-XXXXXX", base);
	return mkdtemp(tu_dir_) ? tu_dir_ : NULL;
}

/* Remove the scratch directory and the plain files in it. */
__attribute__((unused))
static void tu_cleanup(void)
{
	if (!tu_dir_[0])
		return;
	DIR *d = opendir(tu_dir_);
	if (d) {
		struct dirent *e;
		char p[512];
		while ((e = readdir(d))) {
			if (e->d_name[0] == '.')
				continue;
			snprintf(p, sizeof(p), "%s/%s", tu_dir_, e->d_name);
			unlink(p);
		}
		closedir(d);
	}
	rmdir(tu_dir_);
}

__attribute__((unused))
static char *tu_path(const char *name)
{
	static char p[512];
	snprintf(p, sizeof(p), "%s/%s", tu_dir_, name);
	return p;
}

/* Whole file in a malloc'ed buffer; NULL on error. */
__attribute__((unused))
static uint8_t *tu_slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	size_t cap = 4096, n = 0;
	uint8_t *buf = malloc(cap);
	while (buf) {
		if (n == cap) {
			uint8_t *p = realloc(buf, cap *= 2);
			if (!p) {
				free(buf);
				buf = NULL;
				break;
			}
			buf = p;
		}
		size_t r = fread(buf + n, 1, cap - n, f);
		if (r == 0)
			break;
		n += r;
	}
	fclose(f);
	*len = n;
	return buf;
}

__attribute__((unused))
static int tu_spit(const char *path, const void *buf, size_t len)
{
	FILE *f = fopen(path, "wb");
	if (!f)
		return -1;
	size_t w = fwrite(buf, 1, len, f);
	return fclose(f) == 0 && w == len ? 0 : -1;
}

/* xorshift64*: the same sequence on every machine. */
static uint64_t tu_rng_ = 0x9e3779b97f4a7c15ULL;

__attribute__((unused))
static void tu_seed(uint64_t s)
{
	tu_rng_ = s ? s : 1;
}

__attribute__((unused))
static uint64_t tu_rand(void)
{
	tu_rng_ ^= tu_rng_ >> 12;
	tu_rng_ ^= tu_rng_ << 25;
	tu_rng_ ^= tu_rng_ >> 27;
	return tu_rng_ * 0x2545f4914f6cdd1dULL;
}

/* Uniform-ish in [0, n). */
__attribute__((unused))
static uint32_t tu_below(uint32_t n)
{
	return (uint32_t)(tu_rand() % n);
}

#endif /* SCHEDCTL_TRACE_UTIL_H */
