/*
 * activation.h - systemd socket activation without libsystemd.
 *
 * systemd (contrib/systemd/schedctld.socket) passes the listening socket
 * as descriptor 3 with LISTEN_FDS=1 and LISTEN_PID=our pid (the
 * sd_listen_fds(3) protocol).  The daemon then serves that socket instead
 * of binding one, and leaves the path to systemd at exit.
 */
#ifndef SCHEDCTL_ACTIVATION_H
#define SCHEDCTL_ACTIVATION_H

/* The activated listening socket (made close-on-exec and non-blocking),
 * or -1 when we were not socket-activated.  Unsets the variables so that
 * our children do not inherit them. */
int sc_activation_fd(void);

#endif /* SCHEDCTL_ACTIVATION_H */
