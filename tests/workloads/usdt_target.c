/*
 * usdt_target N - fires the USDT probe perfsql:tick(i, 2 * i) for i = 0..N-1, after a 200 ms
 * pause (for a tracer to attach), then prints sum=S (the sum of i).
 *   perf-sql --usdt perfsql:tick@build/workloads/usdt_target \
 *            "select count(*), sum(arg0), sum(arg1) from usdt_tick" -- build/workloads/usdt_target 1000
 *   gives 1000, 499500, 999000.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <sys/sdt.h>

int main(int argc, char **argv)
{
	struct timespec pause = { 0, 200 * 1000 * 1000 };
	long n = argc > 1 ? atol(argv[1]) : 0, sum = 0;

	if (argc != 2 || n < 0) {
		fprintf(stderr, "usage: usdt_target N\n");
		return 2;
	}
	nanosleep(&pause, NULL);
	for (long i = 0; i < n; i++) {
		long twice = 2 * i;

		DTRACE_PROBE2(perfsql, tick, i, twice);
		sum += i;
	}
	printf("sum=%ld\n", sum);
	return 0;
}
