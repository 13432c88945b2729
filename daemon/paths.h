/*
 * paths.h - where the control socket and the state directory live.
 * Shared by schedctl and schedctld so that both sides agree.
 *
 * Socket: --socket PATH, else $SCHEDCTL_SOCKET, else for root
 * /run/schedctl/schedctld.sock, else $XDG_RUNTIME_DIR/schedctl/schedctld.sock,
 * else /tmp/schedctl-UID/schedctld.sock.
 * State:  --state-dir DIR, else $SCHEDCTL_STATE_DIR, else for root
 * /var/lib/schedctl, else $XDG_STATE_HOME/schedctl, else
 * ~/.local/state/schedctl.
 */
#ifndef SCHEDCTL_PATHS_H
#define SCHEDCTL_PATHS_H

#include <stddef.h>
#include <sys/types.h>

/* Longest socket path a sockaddr_un holds, without the NUL. */
#define SC_SOCKET_PATH_MAX 107

/* Resolve the socket path (explicit may be NULL).  Returns 0, or -1 with a
 * one-line reason in err (path too long...). */
int sc_socket_path(const char *explicit_path, char *buf, size_t len,
		   char *err, size_t errlen);

/* Resolve the state directory (explicit may be NULL); does not create it. */
int sc_state_dir(const char *explicit_path, char *buf, size_t len,
		 char *err, size_t errlen);

/* mkdir -p: create missing components with mode.  Returns 0 when path is
 * (now) a directory, else -1 with errno set. */
int sc_mkdir_p(const char *path, mode_t mode);

/* Create the directory that holds the socket (mode 0700 when created) and
 * check that it is a directory owned by us that nobody else may write
 * into.  Returns 0 or -1 with a reason in err. */
int sc_socket_dir_prepare(const char *sock_path, char *err, size_t errlen);

/* Copy the directory part of path into buf ("." when there is none). */
void sc_dirname(const char *path, char *buf, size_t len);

#endif /* SCHEDCTL_PATHS_H */
