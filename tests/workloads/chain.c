/*
 * chain SECONDS - spin on one CPU for SECONDS in a known call chain main -> chain_a -> chain_b
 * -> chain_c, built WITHOUT frame pointers (the Makefile builds it -O2 -fomit-frame-pointer,
 * dynamically linked, with -g; plus chain.stripped and chain.debug, its debug file split out).
 *
 *   build/workloads/chain 1
 *
 * (1) Nearly every sample of this pid is in chain_c or in chain_spin(), which is inlined into
 *     chain_c: its stack, unwound through CFI, reads
 *     chain_c <- chain_b <- chain_a <- main <- __libc_start_call_main <- __libc_start_main <- _start.
 * (2) Each function keeps a different amount of stack (a volatile array), so every frame has
 *     its own CFA offset from rsp, and calls the next one in the middle of its body (not a tail
 *     call): the frames stay.
 * (3) The clock is read every 256 rounds only (~2 ms), so few samples fall in the vDSO.
 * (4) At exit the global sink holds the sum of every loop's values: the work done, for
 *     bench/unwind.sh (bench/burn_rounds.c reads it).
 * Exit: 0 ok, 2 usage error.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

volatile unsigned long sink;
static long long deadline;

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static inline __attribute__((always_inline)) void chain_spin(volatile unsigned long *v)
{
	for (int i = 0; i < 20000; i++)
		sink += v[i & 3] +
			(unsigned long)i; /* chain_spin's line: the line of most samples */
}

__attribute__((noinline, noclone)) int chain_c(int x)
{
	volatile unsigned long v[4] = { 1, 2, 3, (unsigned long)x };
	int rounds = 0;

	do {
		chain_spin(v);
		rounds++;
	} while ((rounds & 255) || now_ns() < deadline);
	return rounds + (int)v[3];
}

__attribute__((noinline, noclone)) int chain_b(int x)
{
	volatile char pad[40] = { (char)x };
	int r = chain_c(x + pad[0]);

	return r + pad[1];
}

__attribute__((noinline, noclone)) int chain_a(int x)
{
	volatile char pad[200] = { (char)x };
	int r = chain_b(x + pad[0]);

	return r + pad[7];
}

int main(int argc, char **argv)
{
	char *end;
	long secs = argc == 2 ? strtol(argv[1], &end, 10) : -1;

	if (argc != 2 || !*argv[1] || *end || secs < 0) {
		fprintf(stderr, "usage: chain SECONDS\n");
		return 2;
	}
	deadline = now_ns() + secs * 1000000000LL;
	sink += (unsigned long)chain_a((int)secs);
	return 0;
}
