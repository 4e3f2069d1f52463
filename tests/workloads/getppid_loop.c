/*
 * getppid_loop N | getppid_loop -t SECONDS - back-to-back getppid syscalls, for benchmarks.
 *
 *   build/workloads/getppid_loop 1000000     # exactly 1000000 calls
 *   build/workloads/getppid_loop -t 2        # as many as fit in 2 s (a multiple of 4096)
 *
 * Output, at the end on stdout: "calls=N ns=T", T the wall time of the loop in ns (so ns per
 * call = T / N). The clock is read through the vDSO, not by syscall.
 * Events (whole process):
 *   (1) syscalls:sys_enter_getppid: exactly N (the printed calls=), issued by raw syscall.
 *   (2) No other syscall during the loop: with -t the clock is checked every 4096 calls, in
 *       userspace.
 * Exit: 0 ok, 2 usage error.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static long arg(const char *s)
{
	char *end;
	long v = strtol(s, &end, 10);

	return (*s && !*end && v >= 0) ? v : -1;
}

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

int main(int argc, char **argv)
{
	long long start, stop, deadline = 0;
	long n = -1, secs = -1, calls = 0, i;

	if (argc == 2)
		n = arg(argv[1]);
	else if (argc == 3 && !strcmp(argv[1], "-t"))
		secs = arg(argv[2]);
	if (n < 0 && secs < 0) {
		fprintf(stderr, "usage: getppid_loop N | getppid_loop -t SECONDS\n");
		return 2;
	}
	start = now_ns();
	if (n >= 0) {
		for (; calls < n; calls++)
			syscall(SYS_getppid);
	} else {
		deadline = start + secs * 1000000000LL;
		do {
			for (i = 0; i < 4096; i++)
				syscall(SYS_getppid);
			calls += 4096;
		} while (now_ns() < deadline);
	}
	stop = now_ns();
	printf("calls=%ld ns=%lld\n", calls, stop - start);
	return 0;
}
