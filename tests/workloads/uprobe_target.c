/*
 * uprobe_target N - sleep 200 ms (time for a tracer to attach), then call target_fn(i) for
 * i = 0..N-1.
 *
 *   build/workloads/uprobe_target 5000
 *
 * Output, at the end on stdout: "sum=S", S = sum of target_fn's return values = N*(N-1)/2.
 * Events:
 *   (1) A uprobe on target_fn (symbol in .symtab of this static, non-PIE binary): exactly N hits,
 *       arg0 (%rdi / PARM1) = 0, 1, ..., N-1 in order; for N=5000, sum(arg0) = 12497500.
 *   (2) A uretprobe on target_fn: exactly N hits, return value (%rax) = the argument.
 *   (3) Frame-pointer stacks taken at the entry probe skip main (its return address is at
 *       [rsp], not yet in the frame chain): "__libc_start_call_main;target_fn".
 * Exit: 0 ok, 1 nanosleep failed, 2 usage error.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

volatile int sink;

__attribute__((noinline, used)) int target_fn(int i)
{
	sink = i;
	return sink;
}

int main(int argc, char **argv)
{
	struct timespec ts = { 0, 200 * 1000000L };
	long long sum = 0;
	char *end;
	long n;

	n = argc == 2 ? strtol(argv[1], &end, 10) : -1;
	if (argc != 2 || !*argv[1] || *end || n < 0 || n > 0x7fffffff) {
		fprintf(stderr, "usage: uprobe_target N\n");
		return 2;
	}
	if (nanosleep(&ts, NULL)) {
		perror("uprobe_target: nanosleep");
		return 1;
	}
	for (int i = 0; i < n; i++)
		sum += target_fn(i);
	printf("sum=%lld\n", sum);
	return 0;
}
