/*
 * core/bp_probe.c - does this machine deliver hardware breakpoint hits? Some hypervisors accept
 * a breakpoint event and never fire it (perf stat -e mem:ADDR:w counts 0 for a variable written
 * 1000 times), so a breakpoint table that got no rows may mean "no access" or "no hits here".
 *
 * (1) One write breakpoint on a variable of our own, counted (no sampling), user space only,
 *     this thread; BP_PROBE_WRITES writes; the count says which: all of them, or none.
 * (2) Run once per query that has a breakpoint table, before collecting (~10 us).
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <linux/hw_breakpoint.h>
#include <linux/perf_event.h>
#include "core/bp_probe.h"

#define BP_PROBE_WRITES 16

static volatile unsigned long probe_store;

int bp_probe__hits(void)
{
	struct perf_event_attr a = {
		.type = PERF_TYPE_BREAKPOINT,
		.size = sizeof(a),
		.bp_type = HW_BREAKPOINT_W,
		.bp_addr = (unsigned long)&probe_store,
		.bp_len = HW_BREAKPOINT_LEN_8,
		.exclude_kernel = 1,
		.exclude_hv = 1,
		.disabled = 1,
	};
	unsigned long long count = 0;
	int fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC), ret;

	if (fd < 0)
		return -errno;
	ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
	for (int i = 0; i < BP_PROBE_WRITES; i++)
		probe_store = (unsigned long)i;
	ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
	ret = read(fd, &count, sizeof(count)) == sizeof(count) ? (int)count : -EIO;
	close(fd);
	return ret;
}
