/*
 * burn SECONDS - spin on one CPU for SECONDS: burn_a() does twice the work of burn_b().
 *
 *   build/workloads/burn 2
 *
 * main() loops { burn_a(); burn_b(); } until SECONDS have passed (clock read through the vDSO,
 * no syscalls in the loop). Both are global, noinline and keep a frame pointer, so frame-pointer
 * stacks read "...;__libc_start_call_main;main;burn_a" and "...;main;burn_b".
 * Events:
 *   (1) cpu-clock / cycles samples: burn_a : burn_b ~ 2 : 1 (same loop body, 2x iterations);
 *       together they take nearly all of the samples of this pid.
 *   (2) The process stays on-CPU (no sleeps, prints nothing).
 * Exit: 0 ok, 2 usage error.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define UNIT 100000 /* loop iterations of burn_b: about 0.2 ms on this VM */

volatile unsigned long sink;

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/*
 * The counters are volatile locals on purpose: gcc 12 drops the frame pointer from a leaf that
 * uses no stack even under -fno-omit-frame-pointer, and then main vanishes from the stacks.
 */
__attribute__((noinline)) void burn_a(void)
{
	for (volatile unsigned long i = 0; i < 2 * UNIT; i++)
		sink += i;
}

__attribute__((noinline)) void burn_b(void)
{
	for (volatile unsigned long i = 0; i < UNIT; i++)
		sink += i;
}

int main(int argc, char **argv)
{
	long long deadline;
	char *end;
	long secs;

	secs = argc == 2 ? strtol(argv[1], &end, 10) : -1;
	if (argc != 2 || !*argv[1] || *end || secs < 0) {
		fprintf(stderr, "usage: burn SECONDS\n");
		return 2;
	}
	deadline = now_ns() + secs * 1000000000LL;
	while (now_ns() < deadline) {
		burn_a();
		burn_b();
	}
	return 0;
}
