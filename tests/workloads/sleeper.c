/*
 * sleeper N MS - exactly N relative sleeps of MS milliseconds on CLOCK_MONOTONIC.
 *
 *   build/workloads/sleeper 10 20
 *
 * Events (whole process; it prints nothing):
 *   (1) syscalls:sys_enter_clock_nanosleep: exactly N, which_clock=CLOCK_MONOTONIC (1), flags=0,
 *       each requesting MS ms; issued by raw syscall, so glibc adds nothing.
 *   (2) For MS > 0: exactly N sched:sched_switch with prev_pid=ours and prev_state=S, and N
 *       sched:sched_wakeup of our pid, each sleep lasting at least MS ms (on-CPU time ~0).
 * Exit: 0 ok, 1 the sleep failed (a signal interrupts it: EINTR is a failure), 2 usage error.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static long arg(const char *s)
{
	char *end;
	long v = strtol(s, &end, 10);

	return (*s && !*end && v >= 0) ? v : -1;
}

int main(int argc, char **argv)
{
	struct timespec ts;
	long n, ms, i;

	if (argc != 3 || (n = arg(argv[1])) < 0 || (ms = arg(argv[2])) < 0) {
		fprintf(stderr, "usage: sleeper N MS\n");
		return 2;
	}
	ts.tv_sec = ms / 1000;
	ts.tv_nsec = (ms % 1000) * 1000000L;
	for (i = 0; i < n; i++) {
		if (syscall(SYS_clock_nanosleep, CLOCK_MONOTONIC, 0, &ts, NULL)) {
			perror("sleeper: clock_nanosleep");
			return 1;
		}
	}
	return 0;
}
