/*
 * sizes N - one write to /dev/null of each size 1, 2, ..., N, in that order.
 *
 *   build/workloads/sizes 1000
 *
 * Events (whole process; it prints nothing and makes no other write):
 *   (1) syscalls:sys_enter_write: exactly N, one per count 1..N, all on the /dev/null fd.
 *   (2) So sum(count) = N*(N+1)/2 and, for N=1000, count percentiles are exact: the k-th smallest
 *       count is k (p50 is 500 or 501 by convention, p99 is 990 or 991, max is 1000).
 *   (3) N is 0..1048576.
 * Exit: 0 ok, 1 open/write failed, 2 usage error.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

#define MAX_N (1L << 20)

static char buf[MAX_N];

int main(int argc, char **argv)
{
	char *end;
	long n, i;
	int fd;

	n = argc == 2 ? strtol(argv[1], &end, 10) : -1;
	if (argc != 2 || !*argv[1] || *end || n < 0 || n > MAX_N) {
		fprintf(stderr, "usage: sizes N\n");
		return 2;
	}
	fd = open("/dev/null", O_WRONLY);
	if (fd < 0) {
		perror("sizes: open /dev/null");
		return 1;
	}
	for (i = 1; i <= n; i++) {
		if (syscall(SYS_write, fd, buf, i) != i) {
			perror("sizes: write /dev/null");
			return 1;
		}
	}
	return 0;
}
