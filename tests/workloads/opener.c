/*
 * opener N - openat() of known paths, none of which exists, for the user-string tests.
 *
 *   build/workloads/opener 5
 *
 * Events (whole process; a static binary makes no other openat):
 *   (1) syscalls:sys_enter_openat, exactly N + 5, in this order, dfd AT_FDCWD, flags O_RDONLY:
 *       N x "/nonexistent/perf-sql-opener/a"
 *       2 x "/nonexistent/perf-sql-opener/b"
 *       1 x a path of 300 bytes: "/nonexistent/perf-sql-opener/" then 271 x 'l'
 *       1 x "" (the empty string)
 *       1 x the pointer 1 (a bad pointer: the call fails with EFAULT)
 *   (2) syscalls:sys_exit_openat: ret -2 (ENOENT) for all but the bad pointer's, -14 (EFAULT).
 *   Each path is written into a stack buffer just before its call, so its page is in memory.
 * Exit: 0 ok (every call failed as above), 1 a call did not, 2 usage error.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#define DIR "/nonexistent/perf-sql-opener/"
#define LONG_LEN 300

/* openat(AT_FDCWD, path, O_RDONLY) must fail with errno want */
static int open_fails(const char *path, int want)
{
	long ret = syscall(SYS_openat, AT_FDCWD, path, O_RDONLY);

	if (ret >= 0 || errno != want) {
		fprintf(stderr, "opener: openat returned %ld (errno %d), expected errno %d\n", ret,
			errno, want);
		return -1;
	}
	return 0;
}

static int open_path(const char *path, int times)
{
	char buf[LONG_LEN + 1];

	for (int i = 0; i < times; i++) {
		snprintf(buf, sizeof(buf), "%s", path);
		if (open_fails(buf, ENOENT))
			return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	char *end, buf[LONG_LEN + 1];
	long n;

	if (argc != 2 || (n = strtol(argv[1], &end, 10)) < 0 || *end || !*argv[1] || n > 1000000) {
		fprintf(stderr, "usage: opener N\n");
		return 2;
	}
	memset(buf, 'l', LONG_LEN);
	memcpy(buf, DIR, strlen(DIR));
	buf[LONG_LEN] = '\0';
	if (open_path(DIR "a", (int)n) || open_path(DIR "b", 2) || open_path(buf, 1) ||
	    open_path("", 1) || open_fails((const char *)1, EFAULT))
		return 1;
	return 0;
}
