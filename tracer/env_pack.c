/* env_pack.c - the environment in a trace header, zlib-compressed.
 *
 * The environment shapes the target's initial stack, so replay needs it;
 * stored as plain strings it would cost more than the events of a short
 * run.  Packed: the strings joined with NUL bytes, deflated.
 */
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "tracer.h"

#define ENV_MAX_BYTES (1u << 20)    /* refuse to inflate beyond 1 MiB */

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
	int rc = compress2(z, &zlen, (const Bytef *)joined, (uLong)raw, 6);
	free(joined);
	if (rc != Z_OK) {
		free(z);
		return -1;
	}
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
