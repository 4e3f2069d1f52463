/*
 * bp_probe [N] - does this machine deliver hardware breakpoint hits? Opens a write breakpoint
 * (PERF_TYPE_BREAKPOINT, HW_BREAKPOINT_W, 8 bytes) on a variable of its own, stores to it N
 * times (default 100), reads the count.
 *
 *   build/workloads/bp_probe && echo "breakpoints fire here"
 *
 * Some VMs accept the breakpoint (perf_event_open succeeds) but never fire it: the guest's
 * debug registers are not wired to anything. A test of breakpoint tables runs this first and
 * skips with its line when it fails.
 * Output: one line, "breakpoint hits: N of N" or what failed.
 * Exit: 0 every store was counted, 1 not (the line says why), 2 usage error.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/hw_breakpoint.h>
#include <linux/perf_event.h>

volatile long probed = -1;

int main(int argc, char **argv)
{
	struct perf_event_attr a;
	uint64_t count = 0;
	char *end;
	long n = 100;
	int fd;

	if (argc > 2 || (argc == 2 && ((n = strtol(argv[1], &end, 10)) <= 0 || *end))) {
		fprintf(stderr, "usage: bp_probe [N]\n");
		return 2;
	}
	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_BREAKPOINT;
	a.bp_type = HW_BREAKPOINT_W;
	a.bp_addr = (uintptr_t)&probed;
	a.bp_len = HW_BREAKPOINT_LEN_8;
	a.disabled = 1;
	a.exclude_kernel = 1;
	a.exclude_hv = 1;
	fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, 0);
	if (fd < 0) {
		printf("hardware breakpoints cannot be opened here: perf_event_open: %s\n",
		       strerror(errno));
		return 1;
	}
	ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
	for (long i = 0; i < n; i++)
		probed = i;
	ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
	if (read(fd, &count, sizeof(count)) != (ssize_t)sizeof(count)) {
		printf("hardware breakpoint count unreadable: %s\n", strerror(errno));
		return 1;
	}
	if (count != (uint64_t)n) {
		printf("hardware breakpoints do not fire on this machine: %llu hits of %ld stores "
		       "to a watched variable\n",
		       (unsigned long long)count, n);
		return 1;
	}
	printf("breakpoint hits: %ld of %ld\n", n, n);
	return 0;
}
