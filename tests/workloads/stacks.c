/*
 * stacks A B C - getppid from three known call chains, a known number of times each: the
 * workload of the stack tests (tests/live/bpf_stack.sh).
 *
 *   build/workloads/stacks 300 200 100
 *
 * main calls, in this order:
 *   (1) stack_a() A times: main -> stack_a -> call_getppid
 *   (2) stack_b() B times: main -> stack_b -> call_getppid
 *   (3) stack_c() C times: main -> stack_c -> stack_b2 -> call_getppid
 * call_getppid issues one getppid by raw syscall. Built with frame pointers, no inlining, no
 * sibling calls (Makefile), so each chain is walked as written.
 * Events (whole process, after exec):
 *   syscalls:sys_enter_getppid: exactly A + B + C, in three distinct call chains with counts
 *   A, B and C (a count of 0 makes no chain). No other getppid.
 * Output: "a=A b=B c=C" on stdout at the end. Exit: 0 ok, 2 usage error.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

static long arg(const char *s)
{
	char *end;
	long v = strtol(s, &end, 10);

	return (*s && !*end && v >= 0) ? v : -1;
}

__attribute__((noinline)) static long call_getppid(void) { return syscall(SYS_getppid); }

__attribute__((noinline)) static long stack_a(void) { return call_getppid() + 1; }

__attribute__((noinline)) static long stack_b(void) { return call_getppid() + 2; }

__attribute__((noinline)) static long stack_b2(void) { return call_getppid() + 3; }

__attribute__((noinline)) static long stack_c(void) { return stack_b2() + 4; }

int main(int argc, char **argv)
{
	long a, b, c, sum = 0;

	if (argc != 4 || (a = arg(argv[1])) < 0 || (b = arg(argv[2])) < 0 ||
	    (c = arg(argv[3])) < 0) {
		fprintf(stderr, "usage: stacks A B C (getppid calls from three call chains)\n");
		return 2;
	}
	/* every chain ends at main's return address (__libc_start_call_main): main's saved frame
	 * pointer is whatever glibc's start-up code (no frame pointers) left in rbp, and a walk
	 * past main read junk frames that differed run to run; cleared, main leaves by exit() */
	*(void **)__builtin_frame_address(0) = NULL;
	for (long i = 0; i < a; i++)
		sum += stack_a();
	for (long i = 0; i < b; i++)
		sum += stack_b();
	for (long i = 0; i < c; i++)
		sum += stack_c();
	printf("a=%ld b=%ld c=%ld\n", a, b, c);
	fflush(stdout);
	exit(sum == 0 ? 1 : 0);
}
