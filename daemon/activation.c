/* activation.c - sd_listen_fds-style socket activation (activation.h). */
#include "config.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "activation.h"

#define SD_LISTEN_FDS_START 3

int sc_activation_fd(void)
{
	const char *pid = getenv("LISTEN_PID"), *fds = getenv("LISTEN_FDS");
	char *end;
	long p, n;
	int type = 0;
	socklen_t len = sizeof(type);

	if (!pid || !fds)
		return -1;
	p = strtol(pid, &end, 10);
	if (*end || p != (long)getpid())
		return -1;
	n = strtol(fds, &end, 10);
	unsetenv("LISTEN_PID");
	unsetenv("LISTEN_FDS");
	unsetenv("LISTEN_FDNAMES");
	if (*end || n != 1)
		return -1;
	/* It must be a listening stream socket, or we do not use it. */
	if (getsockopt(SD_LISTEN_FDS_START, SOL_SOCKET, SO_TYPE, &type, &len) < 0 ||
	    type != SOCK_STREAM)
		return -1;
	fcntl(SD_LISTEN_FDS_START, F_SETFD, FD_CLOEXEC);
	fcntl(SD_LISTEN_FDS_START, F_SETFL,
	      fcntl(SD_LISTEN_FDS_START, F_GETFL) | O_NONBLOCK);
	return SD_LISTEN_FDS_START;
}
