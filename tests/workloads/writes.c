/*
 * writes N SIZE [M OTHER_SIZE] - exactly N writes of SIZE bytes and M of OTHER_SIZE to /dev/null.
 *
 *   build/workloads/writes 1000 64          # 1000 x write(fd, buf, 64)
 *   build/workloads/writes 1000 64 10 4096  # plus 10 x write(fd, buf, 4096), interleaved
 *
 * Events (whole process; it prints nothing and makes no other write):
 *   (1) syscalls:sys_enter_write: exactly N+M; N with count=SIZE, M with count=OTHER_SIZE, all on
 *       the same fd (the /dev/null descriptor, normally 3).
 *   (2) Order: round i (0..max(N,M)-1) writes SIZE if i < N, then OTHER_SIZE if i < M.
 *   (3) Every write returns its full count; SIZE and OTHER_SIZE are 0..1048576.
 * Exit: 0 ok, 1 open/write failed, 2 usage error.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

#define MAX_SIZE (1L << 20)

static char buf[MAX_SIZE];

static long arg(const char *s, long max)
{
	char *end;
	long v = strtol(s, &end, 10);

	return (*s && !*end && v >= 0 && v <= max) ? v : -1;
}

static int write_full(int fd, long size)
{
	return syscall(SYS_write, fd, buf, size) == size ? 0 : -1;
}

int main(int argc, char **argv)
{
	long n, size, m = 0, other = 0, i;
	int fd;

	if (argc != 3 && argc != 5)
		goto usage;
	n = arg(argv[1], 1L << 40);
	size = arg(argv[2], MAX_SIZE);
	if (argc == 5) {
		m = arg(argv[3], 1L << 40);
		other = arg(argv[4], MAX_SIZE);
	}
	if (n < 0 || size < 0 || m < 0 || other < 0)
		goto usage;
	fd = open("/dev/null", O_WRONLY);
	if (fd < 0) {
		perror("writes: open /dev/null");
		return 1;
	}
	for (i = 0; i < n || i < m; i++) {
		if ((i < n && write_full(fd, size)) || (i < m && write_full(fd, other))) {
			perror("writes: write /dev/null");
			return 1;
		}
	}
	return 0;
usage:
	fprintf(stderr, "usage: writes N SIZE [M OTHER_SIZE]\n");
	return 2;
}
