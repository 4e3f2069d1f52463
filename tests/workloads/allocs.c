/*
 * allocs N FREE [SIZE] - sleep 200 ms (time for a tracer to attach), then call my_alloc(SIZE)
 * N times and my_free() on the first FREE of the results; the rest stay allocated until exit.
 *
 *   build/workloads/allocs 1000 600        # 1000 allocations of 64 bytes, 600 freed, 400 live
 *
 * my_alloc/my_free are global noinline wrappers of malloc/free, so uprobes on them see only our
 * calls (start-up and stdio never call them). SIZE defaults to 64. Prints nothing.
 * Events (uprobes on this static, non-PIE binary):
 *   (1) my_alloc: exactly N calls, arg0 = SIZE; its uretprobe returns N distinct non-NULL pointers.
 *   (2) my_free: exactly FREE calls, arg0 = the pointers of the first FREE my_alloc calls, in
 *       the same order, all made after the last my_alloc.
 *   (3) So a leak query (allocs with no matching free) finds N-FREE pointers, (N-FREE)*SIZE bytes.
 * Exit: 0 ok, 1 malloc/nanosleep failed, 2 usage error (FREE > N is one).
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

__attribute__((noinline, used)) void *my_alloc(size_t size) { return malloc(size); }

__attribute__((noinline, used)) void my_free(void *p) { free(p); }

static long arg(const char *s)
{
	char *end;
	long v = strtol(s, &end, 10);

	return (*s && !*end && v >= 0) ? v : -1;
}

int main(int argc, char **argv)
{
	struct timespec ts = { 0, 200 * 1000000L };
	long n = -1, nr_free = -1, size = 64, i;
	void **ptrs;

	if (argc == 3 || argc == 4) {
		n = arg(argv[1]);
		nr_free = arg(argv[2]);
		if (argc == 4)
			size = arg(argv[3]);
	}
	if (n < 0 || nr_free < 0 || nr_free > n || size <= 0) {
		fprintf(stderr, "usage: allocs N FREE [SIZE]\n");
		return 2;
	}
	ptrs = calloc(n + 1, sizeof(*ptrs));
	if (!ptrs || nanosleep(&ts, NULL)) {
		perror("allocs: setup");
		return 1;
	}
	for (i = 0; i < n; i++) {
		ptrs[i] = my_alloc(size);
		if (!ptrs[i]) {
			perror("allocs: my_alloc");
			return 1;
		}
	}
	for (i = 0; i < nr_free; i++)
		my_free(ptrs[i]);
	return 0;
}
