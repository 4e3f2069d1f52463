/*
 * pingpong [-c CPU] N - parent and child pass one byte over two pipes, exactly N round trips.
 *
 *   build/workloads/pingpong 10000
 *   build/workloads/pingpong -c 1 10000    # both tasks pinned to CPU 1
 *
 * A round trip: parent write(ping) -> child read(ping), write(pong) -> parent read(pong).
 * Events, for the measured phase (after fork, before the child exits; nothing is printed):
 *   (1) syscalls:sys_enter_write: exactly N per task (parent and child), count=1 each.
 *   (2) syscalls:sys_enter_read: exactly N per task, count=1 each.
 *   (3) With -c, both tasks share one CPU (sched_setaffinity before fork) and each must wait for
 *       the other once per round trip, so sched:sched_switch on that CPU to one of the two pids
 *       (next_pid) is >= 2N: 2N when nothing else runs there; a third task cutting in adds
 *       switches to it and back, and then fewer of them go straight from one pid to the other.
 *       prev_state is S (blocked in read) or R (preempted by the wakee), so count all states.
 *       The CPU as a whole sees a few more switches (start, exit, kworkers).
 * Exit: 0 ok, 1 a syscall failed, 2 usage error.
 */
#define _GNU_SOURCE
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static long arg(const char *s)
{
	char *end;
	long v = strtol(s, &end, 10);

	return (*s && !*end && v >= 0) ? v : -1;
}

/* one byte over one pipe each way; returns 0 or -1 */
static int hop(int wfd, int rfd, int write_first)
{
	char c = 'x';

	if (write_first && syscall(SYS_write, wfd, &c, 1) != 1)
		return -1;
	if (syscall(SYS_read, rfd, &c, 1) != 1)
		return -1;
	if (!write_first && syscall(SYS_write, wfd, &c, 1) != 1)
		return -1;
	return 0;
}

int main(int argc, char **argv)
{
	int ping[2], pong[2], opt, status;
	long n, cpu = -1, i;
	cpu_set_t set;
	pid_t pid;

	opterr = 0;
	while ((opt = getopt(argc, argv, "c:")) != -1) {
		if (opt != 'c' || (cpu = arg(optarg)) < 0 || cpu >= CPU_SETSIZE)
			goto usage;
	}
	if (optind != argc - 1 || (n = arg(argv[optind])) < 0)
		goto usage;
	CPU_ZERO(&set);
	if (cpu >= 0)
		CPU_SET(cpu, &set);
	if ((cpu >= 0 && sched_setaffinity(0, sizeof(set), &set)) || pipe(ping) || pipe(pong)) {
		perror("pingpong: setup");
		return 1;
	}
	pid = fork();
	if (pid < 0) {
		perror("pingpong: fork");
		return 1;
	}
	for (i = 0; i < n; i++) {
		if (pid ? hop(ping[1], pong[0], 1) : hop(pong[1], ping[0], 0)) {
			perror("pingpong: pipe");
			if (!pid)
				_exit(1);
			return 1;
		}
	}
	if (!pid)
		_exit(0);
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status)) {
		fprintf(stderr, "pingpong: child failed\n");
		return 1;
	}
	return 0;
usage:
	fprintf(stderr, "usage: pingpong [-c CPU] N\n");
	return 2;
}
