/*
 * pagetouch N - map N fresh anonymous pages and write one byte to each: exactly N page faults.
 *
 *   build/workloads/pagetouch 1000
 *
 * Output, at the end on stdout: "start=0x... end=0x..." (end = start + N*4096, exclusive).
 * Events:
 *   (1) exceptions:page_fault_user with start <= address < end: exactly N, one per page, in
 *       ascending address order, error_code 0x6 (user write to a not-present page).
 *   (2) The mapping is MAP_PRIVATE|MAP_ANONYMOUS without MAP_POPULATE, and madvise(MADV_NOHUGEPAGE)
 *       runs before the first touch, so THP cannot fill 512 pages with one fault; anonymous
 *       memory gets no fault-around.
 *   (3) Every one is a minor fault (software event minor-faults counts them; the process total
 *       also includes the faults of start-up and of printing).
 * Exit: 0 ok, 1 mmap/madvise failed, 2 usage error.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>

#define PAGE 4096L

int main(int argc, char **argv)
{
	volatile char *p;
	char *end;
	long n, i;

	n = argc == 2 ? strtol(argv[1], &end, 10) : -1;
	if (argc != 2 || !*argv[1] || *end || n <= 0 || n > (1L << 30)) {
		fprintf(stderr, "usage: pagetouch N\n");
		return 2;
	}
	p = mmap(NULL, n * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED) {
		perror("pagetouch: mmap");
		return 1;
	}
	if (madvise((void *)p, n * PAGE, MADV_NOHUGEPAGE)) {
		perror("pagetouch: madvise");
		return 1;
	}
	for (i = 0; i < n; i++)
		p[i * PAGE] = 1;
	printf("start=%p end=%p\n", (void *)p, (void *)(p + n * PAGE));
	return 0;
}
