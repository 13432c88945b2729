/* env_pack.c - the environment in a trace header, zlib-compressed.
 *
 * The environment shapes the target's initial stack, so replay needs it;
 * stored as plain strings it would cost more than the events of a short
 * run.  Packed: the strings joined with NUL bytes, deflated.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "tracer.h"

#define ENV_MAX_BYTES (1u << 20)    /* refuse to inflate beyond 1 MiB */

/* The last environment packed, and its packing: every run of a session
 * writes the same one into its trace, and deflating it cost more than
 * the rest of the header. */
static struct {
	char *joined;
	size_t raw;
	uint8_t *z;
	size_t zlen;
} last;

/* *out = a copy of the last packing when joined is the same; true then. */
static bool reuse_last(const char *joined, size_t raw, uint8_t **out,
		       size_t *out_len)
{
	if (!last.joined || last.raw != raw ||
	    memcmp(last.joined, joined, raw) != 0)
		return false;
	*out = malloc(last.zlen);
	if (!*out)
		return false;
	memcpy(*out, last.z, last.zlen);
	*out_len = last.zlen;
	return true;
}

static void remember(char *joined, size_t raw, const uint8_t *z, size_t zlen)
{
	uint8_t *copy = malloc(zlen);

	if (!copy) {
		free(joined);
		return;
	}
	memcpy(copy, z, zlen);
	free(last.joined);
	free(last.z);
	last.joined = joined;
	last.raw = raw;
	last.z = copy;
	last.zlen = zlen;
}

int sc_env_pack(char *const *env, uint8_t **out, size_t *out_len,
		uint32_t *raw_len)
{
	size_t raw = 0;

	*out = NULL;
	*out_len = 0;
	*raw_len = 0;
	for (char *const *v = env; v && *v; v++)
		raw += strlen(*v) + 1;
	if (raw == 0)
		return 0;
	if (raw > ENV_MAX_BYTES)
		return -1;
	char *joined = malloc(raw);
	uLongf zlen = compressBound((uLong)raw);
	uint8_t *z = malloc(zlen);
	if (!joined || !z) {
		free(joined);
		free(z);
		return -1;
	}
	char *p = joined;
	for (char *const *v = env; v && *v; v++) {
		size_t n = strlen(*v) + 1;
		memcpy(p, *v, n);
		p += n;
	}
	if (reuse_last(joined, raw, out, out_len)) {
		free(joined);
		free(z);
		*raw_len = (uint32_t)raw;
		return 0;
	}
	int rc = compress2(z, &zlen, (const Bytef *)joined, (uLong)raw, 6);
	if (rc != Z_OK) {
		free(joined);
		free(z);
		return -1;
	}
	remember(joined, raw, z, zlen);
	*out = z;
	*out_len = zlen;
	*raw_len = (uint32_t)raw;
	return 0;
}

int sc_env_unpack(const uint8_t *z, size_t zlen, uint32_t raw_len,
		  char ***env)
{
	*env = NULL;
	if (raw_len == 0 || raw_len > ENV_MAX_BYTES)
		return -1;
	char *raw = malloc(raw_len);
	if (!raw)
		return -1;
	uLongf got = raw_len;
	if (uncompress((Bytef *)raw, &got, z, (uLong)zlen) != Z_OK ||
	    got != raw_len || raw[raw_len - 1] != '\0') {
		free(raw);
		return -1;
	}
	size_t n = 0;
	for (uint32_t i = 0; i < raw_len; i++)
		n += raw[i] == '\0';
	char **v = calloc(n + 1, sizeof(*v));
	if (!v) {
		free(raw);
		return -1;
	}
	size_t k = 0;
	for (uint32_t i = 0; i < raw_len; i += (uint32_t)strlen(raw + i) + 1) {
		v[k] = strdup(raw + i);
		if (!v[k]) {
			for (size_t j = 0; j < k; j++)
				free(v[j]);
			free(v);
			free(raw);
			return -1;
		}
		k++;
	}
	free(raw);
	*env = v;
	return 0;
}
