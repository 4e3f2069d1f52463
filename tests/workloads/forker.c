/*
 * forker N - fork N children that each exit at once with status 0, then wait for all of them.
 *
 *   build/workloads/forker 100
 *
 * All N forks happen before the first wait. Prints nothing.
 * Events:
 *   (1) sched:sched_process_fork with parent_pid = ours: exactly N (task:task_newtask likewise).
 *   (2) sched:sched_process_exit: exactly N for the children (plus 1 for forker itself at its
 *       end); sched:sched_process_free eventually N+1.
 *   (3) syscalls:sys_enter_clone: exactly N from forker (glibc fork uses clone, not clone3);
 *       sys_enter_exit_group: N from the children + 1 from
 *       forker itself; sys_enter_wait4: exactly N.
 * Exit: 0 ok, 1 a fork failed or a child did not exit 0, 2 usage error.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	int status, bad = 0;
	char *end;
	long n, i;

	n = argc == 2 ? strtol(argv[1], &end, 10) : -1;
	if (argc != 2 || !*argv[1] || *end || n < 0) {
		fprintf(stderr, "usage: forker N\n");
		return 2;
	}
	for (i = 0; i < n; i++) {
		pid_t pid = fork();

		if (pid == 0)
			_exit(0);
		if (pid < 0) {
			perror("forker: fork");
			bad = 1;
			break;
		}
	}
	for (n = i; n > 0; n--) {
		if (wait(&status) < 0 || !WIFEXITED(status) || WEXITSTATUS(status))
			bad = 1;
	}
	return bad;
}
