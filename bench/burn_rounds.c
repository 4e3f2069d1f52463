/*
 * bench/burn_rounds.c - how much work a running build/workloads/burn did, read at its exit.
 *
 *   burn_rounds PID SINK_ADDR     # SINK_ADDR: `nm burn` address of the global `sink`, in hex
 *
 * burn SECONDS loops { burn_a(); burn_b(); } until SECONDS of wall time have passed and adds every
 * loop index to the global `sink`, so `sink` at exit is (rounds done) x (sum per round): the work
 * the program got done in its fixed wall time, exact, without changing the workload. A sampler
 * that steals CPU time from it lowers that number.
 *
 * This attaches with PTRACE_SEIZE (the task is not stopped; nothing runs in the tracee until it
 * exits), asks for PTRACE_O_TRACEEXIT, and at the exit stop - the address space still mapped -
 * reads `sink` with PTRACE_PEEKDATA (adding the load base when the binary is PIE), then lets
 * the task finish exiting. It reads there too the task's time on CPU (/proc/PID/schedstat, in ns:
 * with tick accounting and no CONFIG_IRQ_TIME_ACCOUNTING the interrupts taken while it ran, the
 * sampling ones included, count as its time), so work per CPU second can be told apart from work
 * per wall second lost to other tasks. Output on stdout: "sink=N oncpu_ns=T".
 * Exit: 0 ok, 1 failure (reason on stderr), 2 usage error.
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <unistd.h>

/* the load base of /proc/PID/exe: 0 for ET_EXEC, the start of its offset-0 mapping for ET_DYN */
static int load_base(pid_t pid, unsigned long *base_out)
{
	char path[64], exe[4096], line[4096 + 128];
	Elf64_Ehdr eh;
	ssize_t n;
	FILE *f;
	int fd;

	*base_out = 0;
	snprintf(path, sizeof(path), "/proc/%d/exe", pid);
	fd = open(path, O_RDONLY);
	if (fd < 0 || read(fd, &eh, sizeof(eh)) != (ssize_t)sizeof(eh)) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	close(fd);
	if (eh.e_type != ET_DYN)
		return 0;
	n = readlink(path, exe, sizeof(exe) - 1);
	if (n < 0)
		return -1;
	exe[n] = 0;
	snprintf(path, sizeof(path), "/proc/%d/maps", pid);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		unsigned long start, off;
		char *name = strchr(line, '/');

		if (!name || sscanf(line, "%lx-%*x %*s %lx", &start, &off) != 2)
			continue;
		name[strcspn(name, "\n")] = 0;
		if (off == 0 && !strcmp(name, exe)) {
			*base_out = start;
			break;
		}
	}
	fclose(f);
	return *base_out ? 0 : -1;
}

/* the first field of /proc/PID/schedstat: ns the task has run on a CPU */
static unsigned long long oncpu_ns(pid_t pid)
{
	unsigned long long ns = 0;
	char path[64];
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/schedstat", pid);
	f = fopen(path, "r");
	if (f) {
		if (fscanf(f, "%llu", &ns) != 1)
			ns = 0;
		fclose(f);
	}
	return ns;
}

int main(int argc, char **argv)
{
	unsigned long addr, base = 0;
	unsigned long long ns;
	pid_t pid;
	long v;
	int st;

	if (argc != 3) {
		fprintf(stderr, "usage: burn_rounds PID SINK_ADDR\n");
		return 2;
	}
	pid = (pid_t)strtol(argv[1], NULL, 10);
	addr = strtoul(argv[2], NULL, 16);
	if (load_base(pid, &base)) {
		fprintf(stderr, "burn_rounds: cannot find the load base of pid %d\n", pid);
		return 1;
	}
	if (ptrace(PTRACE_SEIZE, pid, 0, (void *)PTRACE_O_TRACEEXIT)) {
		perror("burn_rounds: PTRACE_SEIZE");
		return 1;
	}
	for (;;) {
		if (waitpid(pid, &st, __WALL) < 0) {
			perror("burn_rounds: waitpid");
			return 1;
		}
		if (WIFEXITED(st) || WIFSIGNALED(st)) {
			fprintf(stderr, "burn_rounds: pid %d ended without an exit stop\n", pid);
			return 1;
		}
		if (st >> 8 == (SIGTRAP | (PTRACE_EVENT_EXIT << 8)))
			break;
		/* any other stop (a signal): pass the signal on */
		ptrace(PTRACE_CONT, pid, 0, (void *)(long)WSTOPSIG(st));
	}
	errno = 0;
	v = ptrace(PTRACE_PEEKDATA, pid, (void *)(base + addr), 0);
	if (errno) {
		perror("burn_rounds: PTRACE_PEEKDATA");
		ptrace(PTRACE_DETACH, pid, 0, 0);
		return 1;
	}
	ns = oncpu_ns(pid);
	ptrace(PTRACE_DETACH, pid, 0, 0);
	printf("sink=%lu oncpu_ns=%llu\n", (unsigned long)v, ns);
	return 0;
}
