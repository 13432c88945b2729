/*
 * framing.h - length-prefixed protobuf messages on the control socket.
 *
 * Each message on the SOCK_STREAM Unix socket between schedctl and
 * schedctld is a 4-byte big-endian length followed by that many bytes of a
 * packed scctl.Request or scctl.Reply (proto/control.proto).  File
 * descriptors (the replay's stdout/stderr) may ride along with a frame as
 * SCM_RIGHTS ancillary data.
 *
 * The receiver never trusts the peer: lengths above a cap, a connection
 * closed inside a frame and timeouts are reported as distinct statuses, so
 * that the daemon can answer with an error Reply instead of crashing.
 * Whether the payload is a valid protobuf message is the caller's check
 * (unpack returns NULL on garbage).
 */
#ifndef SCHEDCTL_FRAMING_H
#define SCHEDCTL_FRAMING_H

#include <stddef.h>
#include <stdint.h>

#include <protobuf-c/protobuf-c.h>

/* Largest frame either side accepts (payload bytes). */
#define SC_FRAME_MAX (16u << 20)
/* Most descriptors accepted with one frame; extra ones are closed. */
#define SC_FRAME_MAX_FDS 4

/* A received frame.  data is malloc'd (NULL when len is 0). */
struct sc_frame {
	uint8_t *data;
	size_t len;
	int fds[SC_FRAME_MAX_FDS];  /* received descriptors, close-on-exec */
	size_t nfds;
};

/* sc_frame_recv() results. */
enum sc_frame_status {
	SC_FRAME_OK = 0,
	SC_FRAME_EOF = 1,           /* orderly close before the first byte */
	SC_FRAME_ERRNO = -1,        /* read failed; errno says why */
	SC_FRAME_TRUNCATED = -2,    /* connection closed inside a frame */
	SC_FRAME_TOO_BIG = -3,      /* length prefix above the cap */
	SC_FRAME_TIMEOUT = -4,      /* no whole frame before the deadline */
	SC_FRAME_NOMEM = -5,
};

/* Pack msg and send it as one frame; loops over short writes and EINTR,
 * never raises SIGPIPE.  Returns 0, or -1 with errno set (EMSGSIZE when the
 * packed message exceeds SC_FRAME_MAX). */
int sc_frame_send(int fd, const ProtobufCMessage *msg);

/* Same, with nfds descriptors passed as SCM_RIGHTS along with the frame. */
int sc_frame_send_fds(int fd, const ProtobufCMessage *msg, const int *fds,
		      size_t nfds);

/* Receive one frame of at most maxlen payload bytes (0: SC_FRAME_MAX).
 * timeout_ms bounds the whole frame; negative waits forever.  On
 * SC_FRAME_OK, *f holds the payload and any descriptors: release it with
 * sc_frame_release().  On any other status *f holds nothing. */
int sc_frame_recv(int fd, struct sc_frame *f, size_t maxlen, int timeout_ms);

/* Free the payload and close the descriptors still in f->fds (set an entry
 * to -1 to keep it). */
void sc_frame_release(struct sc_frame *f);

/* Text for a non-OK status ("connection closed inside a frame"...). */
const char *sc_frame_strerror(int status);

#endif /* SCHEDCTL_FRAMING_H */
