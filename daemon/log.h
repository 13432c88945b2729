/* log.h - schedctld's log lines: "2026-11-22 03:15:00 schedctld[42]: ..."
 * on stderr (a log file in the state directory once daemonized). */
#ifndef SCHEDCTL_LOG_H
#define SCHEDCTL_LOG_H

void sc_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif /* SCHEDCTL_LOG_H */
