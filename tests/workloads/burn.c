/*
 * burn SECONDS [cpu] - spin on one CPU for SECONDS: burn_a() does twice the work of burn_b().
 * With "cpu", SECONDS are of the process's own CPU time (CLOCK_PROCESS_CPUTIME_ID, one system
 * call per round), so a sampler at HZ sees HZ * SECONDS samples of it however loaded the machine.
 *
 *   build/workloads/burn 2
 *
 * main() loops { burn_a(2n); burn_b(n); } until SECONDS have passed (clock read through the
 * vDSO, no syscalls in the loop), n drawn anew each round from UNIT/2..3*UNIT/2: a loop of fixed
 * length aliases with a fixed sampling period (1 ms against a 0.6 ms loop visits three phases
 * only), and two samplers started at different phases then disagree on the split. Both are
 * global, noinline and keep a frame pointer, so frame-pointer stacks read
 * "...;__libc_start_call_main;main;burn_a" and "...;main;burn_b".
 * Events:
 *   (1) cpu-clock / cycles samples: burn_a : burn_b ~ 2 : 1 in work (same loop body, 2x
 *       iterations; in time it depends on the CPU); together they take nearly all of the samples
 *       of this pid.
 *   (2) The process stays on-CPU (no sleeps, prints nothing).
 * Exit: 0 ok, 2 usage error.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define UNIT 100000 /* loop iterations of burn_b: about 0.2 ms on this VM */

volatile unsigned long sink;

static clockid_t clock_id = CLOCK_MONOTONIC;

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(clock_id, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/*
 * The counters are volatile locals on purpose: gcc 12 drops the frame pointer from a leaf that
 * uses no stack even under -fno-omit-frame-pointer, and then main vanishes from the stacks.
 */
__attribute__((noinline)) void burn_a(unsigned long n)
{
	for (volatile unsigned long i = 0; i < 2 * n; i++)
		sink += i;
}

__attribute__((noinline)) void burn_b(unsigned long n)
{
	for (volatile unsigned long i = 0; i < n; i++)
		sink += i;
}

/* xorshift64: a round length from UNIT/2 to 3*UNIT/2 */
static unsigned long round_len(unsigned long long *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return UNIT / 2 + *x % UNIT;
}

int main(int argc, char **argv)
{
	unsigned long long x = 0x9e3779b97f4a7c15ULL;
	long long deadline;
	unsigned long n;
	char *end;
	long secs;

	secs = argc == 2 || argc == 3 ? strtol(argv[1], &end, 10) : -1;
	if (argc == 3 && !strcmp(argv[2], "cpu"))
		clock_id = CLOCK_PROCESS_CPUTIME_ID;
	else if (argc == 3)
		secs = -1;
	if (secs < 0 || !*argv[1] || *end) {
		fprintf(stderr, "usage: burn SECONDS [cpu]\n");
		return 2;
	}
	deadline = now_ns() + secs * 1000000000LL;
	while (now_ns() < deadline) {
		n = round_len(&x);
		burn_a(n);
		burn_b(n);
	}
	return 0;
}
