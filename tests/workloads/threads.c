/*
 * threads N K SIZE - N threads that each do K writes of SIZE bytes and K sleeps of 1 ms, all
 * at once, when the process gets SIGUSR1: a process to attach to with -p before it works.
 *
 *   build/workloads/threads 500 10 7 > ready &   # prints "ready PID" when the N threads exist
 *   ...attach...; kill -USR1 PID                  # they work, exit, and the process exits 0
 *
 * Events after SIGUSR1 (the process has N + 1 threads; the main thread only waits):
 *   (1) syscalls:sys_enter_write: exactly N x K, count=SIZE, K from each of the N threads, none
 *       from the main thread; all to the /dev/null descriptor.
 *   (2) sched:sched_switch: each of the N threads switches out asleep (prev_state S) at least K
 *       times (the sleeps; waiting for the start may add some).
 * Exit: 0 ok, 1 a thread, open or write failed, 2 usage error.
 */
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define MAX_THREADS 4096
#define MAX_SIZE 4096

static long k, size;
static int fd;
static char buf[MAX_SIZE];
static pthread_barrier_t start;

static long arg(const char *s, long max)
{
	char *end;
	long v = strtol(s, &end, 10);

	return (*s && !*end && v >= 0 && v <= max) ? v : -1;
}

static void *work(void *unused)
{
	struct timespec ms = { 0, 1000000 };
	long failed = 0;

	pthread_barrier_wait(&start);
	for (long i = 0; i < k; i++) {
		failed |= syscall(SYS_write, fd, buf, size) != size;
		failed |= syscall(SYS_clock_nanosleep, CLOCK_MONOTONIC, 0, &ms, NULL) != 0;
	}
	return (void *)failed;
}

int main(int argc, char **argv)
{
	static pthread_t tids[MAX_THREADS];
	long n = argc == 4 ? arg(argv[1], MAX_THREADS) : -1, failed = 0;
	char line[64];
	sigset_t usr1;
	int sig, len;

	k = argc == 4 ? arg(argv[2], 1L << 30) : -1;
	size = argc == 4 ? arg(argv[3], MAX_SIZE) : -1;
	if (n < 1 || k < 0 || size < 0) {
		fprintf(stderr, "usage: threads N K SIZE (N 1..%d, SIZE 0..%d)\n", MAX_THREADS,
			MAX_SIZE);
		return 2;
	}
	fd = open("/dev/null", O_WRONLY);
	sigemptyset(&usr1);
	sigaddset(&usr1, SIGUSR1);
	/* blocked before the threads exist, so they inherit it and only sigwait takes it */
	if (fd < 0 || pthread_sigmask(SIG_BLOCK, &usr1, NULL) ||
	    pthread_barrier_init(&start, NULL, (unsigned)n + 1))
		return 1;
	for (long i = 0; i < n; i++)
		if (pthread_create(&tids[i], NULL, work, NULL))
			return 1;
	len = snprintf(line, sizeof(line), "ready %d\n", (int)getpid());
	if (write(1, line, (size_t)len) != len || sigwait(&usr1, &sig))
		return 1;
	pthread_barrier_wait(&start);
	for (long i = 0; i < n; i++) {
		void *ret;

		if (pthread_join(tids[i], &ret) || ret)
			failed = 1;
	}
	return (int)failed;
}
