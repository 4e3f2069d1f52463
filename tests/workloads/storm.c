/*
 * storm SECONDS [THREADS] - getppid syscalls as fast as possible from THREADS threads (default 1)
 * for SECONDS, to overflow ring buffers on purpose.
 *
 *   build/workloads/storm 2 2
 *
 * Output, at the end on stdout: "calls=TOTAL", the exact number of getppid calls summed over
 * the threads. The main thread only starts and joins the workers.
 * Events (whole process):
 *   (1) syscalls:sys_enter_getppid (and raw_syscalls:sys_enter with id 110 on x86-64): exactly
 *       TOTAL, so for a capture of this pid, received + lost == TOTAL.
 *   (2) Workers check the clock every 1024 calls through the vDSO: no other syscall in the loop.
 * Exit: 0 ok, 1 pthread_create failed, 2 usage error.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define MAX_THREADS 256

static long long deadline;

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void *worker(void *calls_out)
{
	long calls = 0;

	do {
		for (int i = 0; i < 1024; i++)
			syscall(SYS_getppid);
		calls += 1024;
	} while (now_ns() < deadline);
	*(long *)calls_out = calls;
	return NULL;
}

static long arg(const char *s)
{
	char *end;
	long v = strtol(s, &end, 10);

	return (*s && !*end && v >= 0) ? v : -1;
}

int main(int argc, char **argv)
{
	static long calls[MAX_THREADS];
	pthread_t tids[MAX_THREADS];
	long secs = -1, nr_threads = 1, total = 0;

	if (argc == 2 || argc == 3) {
		secs = arg(argv[1]);
		if (argc == 3)
			nr_threads = arg(argv[2]);
	}
	if (secs < 0 || nr_threads < 1 || nr_threads > MAX_THREADS) {
		fprintf(stderr, "usage: storm SECONDS [THREADS]\n");
		return 2;
	}
	deadline = now_ns() + secs * 1000000000LL;
	for (long i = 0; i < nr_threads; i++) {
		if (pthread_create(&tids[i], NULL, worker, &calls[i])) {
			fprintf(stderr, "storm: pthread_create failed\n");
			return 1;
		}
	}
	for (long i = 0; i < nr_threads; i++) {
		pthread_join(tids[i], NULL);
		total += calls[i];
	}
	printf("calls=%ld\n", total);
	return 0;
}
