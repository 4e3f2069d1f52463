/*
 * spawn threads N | spawn chain N - a process tree of a known shape, for tests of the workload's
 * process tree (every task of it is traced from its first event to its exit).
 *
 *   build/workloads/spawn threads 50    # 50 threads, created at once, each exits at once
 *   build/workloads/spawn chain 20      # a fork chain: each process forks the next, 20 deep
 *
 * threads N: the main thread creates N threads (pthread_create: clone with CLONE_THREAD), each
 * of which returns at once; then it joins them all, and exits.
 * chain N: the process forks a child and waits for it; the child forks its own and waits, N
 * forks deep; the deepest child exits at once, then each parent in turn.
 * Events (whole tree; nothing is printed, and there is no exec after the first):
 *   (1) sched:sched_process_fork: exactly N (threads count: clone with CLONE_THREAD fires it).
 *   (2) sched:sched_process_exit: exactly N + 1 (every thread, and every process, exits once).
 *   (3) sched:sched_process_exec: 1, the exec that starts spawn (none after it).
 * Exit: 0 ok, 1 a fork, pthread_create or wait failed, 2 usage error.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define MAX_THREADS 4096

static void *thread_fn(void *arg) { return arg; }

static int threads(long n)
{
	static pthread_t tids[MAX_THREADS];
	long i;

	for (i = 0; i < n; i++) {
		if (pthread_create(&tids[i], NULL, thread_fn, NULL)) {
			fprintf(stderr, "spawn: pthread_create failed\n");
			return 1;
		}
	}
	for (i = 0; i < n; i++)
		pthread_join(tids[i], NULL);
	return 0;
}

/* fork the rest of the chain (depth more forks) and wait for it; the child's status passes up */
static int chain(long depth)
{
	int status;
	pid_t pid;

	if (depth == 0)
		return 0;
	pid = fork();
	if (pid < 0) {
		perror("spawn: fork");
		return 1;
	}
	if (pid == 0)
		_exit(chain(depth - 1));
	if (waitpid(pid, &status, 0) != pid) {
		perror("spawn: waitpid");
		return 1;
	}
	return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

int main(int argc, char **argv)
{
	char *end;
	long n;

	n = argc == 3 ? strtol(argv[2], &end, 10) : -1;
	if (argc != 3 || !*argv[2] || *end || n < 0 || n > MAX_THREADS ||
	    (strcmp(argv[1], "threads") && strcmp(argv[1], "chain"))) {
		fprintf(stderr, "usage: spawn threads|chain N   (N <= %d)\n", MAX_THREADS);
		return 2;
	}
	return strcmp(argv[1], "threads") ? chain(n) : threads(n);
}
