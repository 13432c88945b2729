/* reply.c - Reply helpers over proto/framing. */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>

#include "framing.h"
#include "reply.h"

int sc_send_reply(int fd, const Scctl__Reply *r)
{
	return sc_frame_send(fd, &r->base);
}

int sc_reply_error(int fd, int exit_code, const char *fmt, ...)
{
	Scctl__Reply r = SCCTL__REPLY__INIT;
	char msg[2048];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	r.has_ok = 1;
	r.ok = 0;
	r.error = msg;
	r.has_exit_code = 1;
	r.exit_code = exit_code;
	return sc_send_reply(fd, &r);
}

int sc_reply_notice(int fd, const char *fmt, ...)
{
	Scctl__Reply r = SCCTL__REPLY__INIT;
	char msg[2048];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	r.has_ok = 1;
	r.ok = 1;
	r.notice = msg;
	return sc_send_reply(fd, &r);
}
