/*
 * alarm_compute (correct): setitimer(ITIMER_REAL, 20 ms), then compute
 * until its SIGALRM handler says stop, in one thread: a program that
 * works for a while and stops at a timer.  No system call, no other
 * thread: virtual time moves only by the computation's CPU budget
 * preemptions, which must then be steps (they were absorbed, virtual
 * time stood still and every run was a "hang" at the time budget).
 * Each turn of the loop is a long run of straight-line code, so that a
 * replay's last stretch, breakpoint hit by breakpoint, stays short, and
 * the loop counts its turns (the replay finds the recorded turn by a
 * register that counts).
 * Prints "stopped by the timer"; exit 0.
 */
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/time.h>

#include "mix_rounds.h"

static volatile sig_atomic_t stop;

static void on_alarm(int sig)
{
	(void)sig;
	stop = 1;
}

int main(void)
{
	struct sigaction sa = { .sa_handler = on_alarm };
	struct itimerval it = { .it_value = { 0, 20000 } };
	uint64_t x = 1, turns;

	sigaction(SIGALRM, &sa, NULL);
	setitimer(ITIMER_REAL, &it, NULL);
	for (turns = 0; !stop; turns++) {
		R1024(x)
	}
	printf("stopped by the timer%s\n", x && turns ? "" : " (x is 0)");
	return 0;
}
