/* framing.c - length-prefixed protobuf frames on a stream socket. */
#include "config.h"

#include <errno.h>
#include <poll.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "framing.h"

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* ---- sending ---- */

/* sendmsg() the whole buffer; the descriptors go with the first byte. */
static int send_all(int fd, const uint8_t *buf, size_t len, const int *fds,
		    size_t nfds)
{
	union {
		struct cmsghdr align;
		char buf[CMSG_SPACE(sizeof(int) * SC_FRAME_MAX_FDS)];
	} control;
	size_t off = 0;

	if (nfds > SC_FRAME_MAX_FDS) {
		errno = EINVAL;
		return -1;
	}
	while (off < len) {
		struct iovec iov = { (void *)(buf + off), len - off };
		struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
		ssize_t n;

		if (off == 0 && nfds > 0) {
			struct cmsghdr *cm;

			memset(&control, 0, sizeof(control));
			mh.msg_control = control.buf;
			mh.msg_controllen = CMSG_SPACE(sizeof(int) * nfds);
			cm = CMSG_FIRSTHDR(&mh);
			cm->cmsg_level = SOL_SOCKET;
			cm->cmsg_type = SCM_RIGHTS;
			cm->cmsg_len = CMSG_LEN(sizeof(int) * nfds);
			memcpy(CMSG_DATA(cm), fds, sizeof(int) * nfds);
		}
		n = sendmsg(fd, &mh, MSG_NOSIGNAL);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		off += (size_t)n;
	}
	return 0;
}

int sc_frame_send_fds(int fd, const ProtobufCMessage *msg, const int *fds,
		      size_t nfds)
{
	size_t len = protobuf_c_message_get_packed_size(msg);
	uint8_t *buf;
	int rc, saved;

	if (len > SC_FRAME_MAX) {
		errno = EMSGSIZE;
		return -1;
	}
	buf = malloc(4 + len);
	if (!buf)
		return -1;
	buf[0] = (uint8_t)(len >> 24);
	buf[1] = (uint8_t)(len >> 16);
	buf[2] = (uint8_t)(len >> 8);
	buf[3] = (uint8_t)len;
	protobuf_c_message_pack(msg, buf + 4);
	rc = send_all(fd, buf, 4 + len, fds, nfds);
	saved = errno;
	free(buf);
	errno = saved;
	return rc;
}

int sc_frame_send(int fd, const ProtobufCMessage *msg)
{
	return sc_frame_send_fds(fd, msg, NULL, 0);
}

/* ---- receiving ---- */

/* Keep the descriptors of one SCM_RIGHTS message; close what does not fit
 * (a peer cannot make us leak descriptors). */
static void take_fds(struct msghdr *mh, struct sc_frame *f)
{
	struct cmsghdr *cm;

	for (cm = CMSG_FIRSTHDR(mh); cm; cm = CMSG_NXTHDR(mh, cm)) {
		size_t n, i;

		if (cm->cmsg_level != SOL_SOCKET || cm->cmsg_type != SCM_RIGHTS)
			continue;
		n = (cm->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		for (i = 0; i < n; i++) {
			int got;

			memcpy(&got, CMSG_DATA(cm) + i * sizeof(int), sizeof(int));
			if (f->nfds < SC_FRAME_MAX_FDS)
				f->fds[f->nfds++] = got;
			else
				close(got);
		}
	}
}

/* Read exactly len bytes before deadline (-1: none).  Returns SC_FRAME_OK,
 * SC_FRAME_EOF when the peer closed before any of them, or an error. */
static int recv_exact(int fd, uint8_t *buf, size_t len, int64_t deadline,
		      struct sc_frame *f)
{
	union {
		struct cmsghdr align;
		char buf[CMSG_SPACE(sizeof(int) * SC_FRAME_MAX_FDS)];
	} control;
	size_t off = 0;

	while (off < len) {
		struct iovec iov = { buf + off, len - off };
		struct msghdr mh = {
			.msg_iov = &iov, .msg_iovlen = 1,
			.msg_control = control.buf,
			.msg_controllen = sizeof(control.buf),
		};
		ssize_t n;

		if (deadline >= 0) {
			struct pollfd pfd = { .fd = fd, .events = POLLIN };
			int64_t left = deadline - now_ms();
			int pr;

			if (left <= 0)
				return SC_FRAME_TIMEOUT;
			pr = poll(&pfd, 1, left > 60000 ? 60000 : (int)left);
			if (pr < 0 && errno != EINTR)
				return SC_FRAME_ERRNO;
			if (pr <= 0)
				continue;
		}
		n = recvmsg(fd, &mh, MSG_CMSG_CLOEXEC);
		if (n < 0) {
			if (errno == EAGAIN && deadline < 0) {
				/* non-blocking socket without a deadline */
				struct pollfd pfd = { .fd = fd, .events = POLLIN };

				(void)poll(&pfd, 1, -1);
				continue;
			}
			if (errno == EINTR || errno == EAGAIN)
				continue;
			return SC_FRAME_ERRNO;
		}
		take_fds(&mh, f);
		if (n == 0)
			return off == 0 ? SC_FRAME_EOF : SC_FRAME_TRUNCATED;
		off += (size_t)n;
	}
	return SC_FRAME_OK;
}

static void close_fds(struct sc_frame *f)
{
	for (size_t i = 0; i < f->nfds; i++)
		if (f->fds[i] >= 0)
			close(f->fds[i]);
	f->nfds = 0;
}

int sc_frame_recv(int fd, struct sc_frame *f, size_t maxlen, int timeout_ms)
{
	int64_t deadline = timeout_ms < 0 ? -1 : now_ms() + timeout_ms;
	uint8_t hdr[4];
	uint32_t len;
	int rc;

	memset(f, 0, sizeof(*f));
	if (maxlen == 0 || maxlen > SC_FRAME_MAX)
		maxlen = SC_FRAME_MAX;
	rc = recv_exact(fd, hdr, sizeof(hdr), deadline, f);
	if (rc != SC_FRAME_OK)
		goto fail;
	len = (uint32_t)hdr[0] << 24 | (uint32_t)hdr[1] << 16 |
	      (uint32_t)hdr[2] << 8 | hdr[3];
	if (len > maxlen) {
		rc = SC_FRAME_TOO_BIG;
		goto fail;
	}
	if (len > 0) {
		f->data = malloc(len);
		if (!f->data) {
			rc = SC_FRAME_NOMEM;
			goto fail;
		}
		rc = recv_exact(fd, f->data, len, deadline, f);
		if (rc == SC_FRAME_EOF)
			rc = SC_FRAME_TRUNCATED;
		if (rc != SC_FRAME_OK)
			goto fail;
	}
	f->len = len;
	return SC_FRAME_OK;
fail:
	{
		int saved = errno;

		free(f->data);
		f->data = NULL;
		close_fds(f);
		errno = saved;
	}
	return rc;
}

void sc_frame_release(struct sc_frame *f)
{
	free(f->data);
	f->data = NULL;
	f->len = 0;
	close_fds(f);
}

const char *sc_frame_strerror(int status)
{
	switch (status) {
	case SC_FRAME_OK: return "no error";
	case SC_FRAME_EOF: return "connection closed";
	case SC_FRAME_ERRNO: return strerror(errno);
	case SC_FRAME_TRUNCATED: return "connection closed inside a message";
	case SC_FRAME_TOO_BIG: return "message length above the limit (16 MiB)";
	case SC_FRAME_TIMEOUT: return "timed out waiting for a message";
	case SC_FRAME_NOMEM: return "out of memory";
	}
	return "unknown framing error";
}
