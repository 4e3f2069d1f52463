/*
 * watch [-s] N - print where the global "volatile long watched" lives, wait 300 ms (time for a
 * tracer to set a hardware breakpoint), then store to it exactly N times and load it N times.
 *
 *   build/workloads/watch 1000       # prints "0x4c67f0" (the address) then runs
 *   build/workloads/watch -s 1000    # prints "watched" (the symbol) then runs
 *
 * Output, first, on stdout (flushed before the sleep): the address as 0x%lx, or with -s the
 * symbol name "watched". Nothing is printed afterwards.
 * Events (after the sleep; the variable is not touched before it):
 *   (1) A write breakpoint (mem:ADDR:w, HW_BREAKPOINT_W, len 8) fires exactly N times.
 *   (2) A read/write breakpoint (mem:ADDR:rw) fires exactly 2N times: iteration i stores i, then
 *       loads it back in a separate instruction (x86 has no read-only breakpoints).
 * Exit: 0 ok, 1 nanosleep failed, 2 usage error.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* initialized, so in .data: exec zeroes the tail of .bss in kernel mode, 8 more breakpoint hits */
volatile long watched = -1;
volatile long sink;

int main(int argc, char **argv)
{
	struct timespec ts = { 0, 300 * 1000000L };
	int sym = argc == 3 && !strcmp(argv[1], "-s");
	char *end;
	long n, i;

	n = argc == 2 + sym ? strtol(argv[1 + sym], &end, 10) : -1;
	if (n < 0 || !*argv[1 + sym] || *end) {
		fprintf(stderr, "usage: watch [-s] N\n");
		return 2;
	}
	if (sym)
		printf("watched\n");
	else
		printf("0x%lx\n", (unsigned long)&watched);
	fflush(stdout);
	if (nanosleep(&ts, NULL)) {
		perror("watch: nanosleep");
		return 1;
	}
	for (i = 0; i < n; i++) {
		watched = i;
		sink += watched;
	}
	return 0;
}
