/*
 * fuzz_request.c - libFuzzer target for what schedctld does with the bytes
 * a client sends (tests/fuzz/run_request.sh builds and runs it): the
 * framing (proto/framing.c: length prefix, cap, truncation) read from a
 * real socket, then scctl.Request decoding.  Whatever the bytes, the
 * reader must return a status (never crash, leak or hang), a decoded
 * request must have its strings set and its repeated fields consistent,
 * and a reply naming what it asked for must pack and decode.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "control.pb-c.h"
#include "framing.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The frame cap of the fuzz run: small, so that "too big" is reachable. */
#define FUZZ_FRAME_MAX 4096

static void check_strings(char **v, size_t n)
{
	if (n && !v)
		abort();
	for (size_t i = 0; i < n; i++)
		if (!v[i])
			abort();
}

static void check_request(const Scctl__Request *r)
{
	uint8_t *buf;
	size_t len;
	Scctl__Reply *back;

	if (r->launch) {
		check_strings(r->launch->argv, r->launch->n_argv);
		check_strings(r->launch->env, r->launch->n_env);
	}
	if (r->replay)
		check_strings(r->replay->env, r->replay->n_env);
	/* What the daemon answers with must be packable: the reply to a
	 * request names its session (stop), so pack a Reply that carries
	 * the request's strings.  (No request round trip: protobuf-c keeps
	 * unknown fields, such as field number 0, and repacks them in a form
	 * it then rejects; the daemon never repacks a request.) */
	if (r->stop && r->stop->session) {
		Scctl__Reply rep = SCCTL__REPLY__INIT;

		rep.session = r->stop->session;
		len = scctl__reply__get_packed_size(&rep);
		buf = malloc(len ? len : 1);
		if (!buf)
			return;
		if (scctl__reply__pack(&rep, buf) != len)
			abort();
		back = scctl__reply__unpack(NULL, len, buf);
		if (!back)
			abort();
		scctl__reply__free_unpacked(back, NULL);
		free(buf);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sc_frame f;
	int sv[2], st;
	size_t off = 0;

	if (size > 65536)
		return 0;
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0)
		return 0;
	while (off < size) {
		ssize_t n = write(sv[1], data + off, size - off);

		if (n <= 0)
			break;
		off += (size_t)n;
	}
	/* A client that sends its bytes and closes, as the daemon sees it. */
	close(sv[1]);
	st = sc_frame_recv(sv[0], &f, FUZZ_FRAME_MAX, 1000);
	if (st == SC_FRAME_OK) {
		Scctl__Request *r;

		if (f.len > FUZZ_FRAME_MAX)
			abort();
		r = scctl__request__unpack(NULL, f.len, f.data);
		if (r) {
			check_request(r);
			scctl__request__free_unpacked(r, NULL);
		}
		sc_frame_release(&f);
	} else if (st > SC_FRAME_EOF || st < SC_FRAME_NOMEM ||
		   !sc_frame_strerror(st)) {
		abort();
	}
	close(sv[0]);
	return 0;
}
