/* reply.h - sending scctl.Reply messages on a client connection. */
#ifndef SCHEDCTL_REPLY_H
#define SCHEDCTL_REPLY_H

#include "control.pb-c.h"

/* Send r; returns 0 or -1 (peer gone: errno EPIPE...). */
int sc_send_reply(int fd, const Scctl__Reply *r);

/* Reply{ok=false, error, exit_code}: one line naming the problem. */
int sc_reply_error(int fd, int exit_code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Reply{ok=true, notice}: an informative line the CLI prints on stderr. */
int sc_reply_notice(int fd, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#endif /* SCHEDCTL_REPLY_H */
