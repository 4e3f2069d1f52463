/*
 * ftrace_reader IN OUT - what one trace-cmd recorder does, for bench/run.sh's "ftrace" row:
 * splice a tracefs per_cpu/cpuN/trace_pipe_raw into OUT until SIGTERM or SIGINT.
 *
 *   ftrace_reader /sys/kernel/tracing/instances/X/per_cpu/cpu0/trace_pipe_raw /tmp/cpu0.raw
 *
 * (1) Pages move IN -> pipe -> OUT with splice(), as trace-cmd's tracecmd_recorder does; if the
 *     kernel refuses splice (EINVAL), it falls back to read()/write().
 * (2) A return of 0 is not the end: the kernel wakes readers at buffer_percent and when
 *     tracing_on changes, and may then return 0 with nothing to read (cat exits there, which is
 *     why run.sh does not use cat).
 * (3) At exit it prints "cpu=SECONDS bytes=N" on stdout: its own user+sys time, bytes written.
 * Exit: 0 ok, 1 an I/O error, 2 usage error. Built by bench/lib.sh (probe_peers) into run.sh's
 * temporary directory.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#define CHUNK (64 * 1024) /* a multiple of the page size, as trace_pipe_raw requires */

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

/* one transfer of up to CHUNK bytes; returns bytes moved, 0 for "nothing now", -1 on error */
static long move(int in, int out, int pipefd[2], int *use_splice)
{
	static char buf[CHUNK];
	long n, done = 0, w;

	if (*use_splice) {
		n = splice(in, NULL, pipefd[1], NULL, CHUNK, SPLICE_F_MOVE);
		if (n < 0 && errno == EINVAL) {
			*use_splice = 0;
			return 0;
		}
		while (n > 0 && done < n) {
			w = splice(pipefd[0], NULL, out, NULL, n - done, SPLICE_F_MOVE);
			if (w <= 0)
				return -1;
			done += w;
		}
		return n;
	}
	n = read(in, buf, sizeof(buf));
	while (n > 0 && done < n) {
		w = write(out, buf + done, n - done);
		if (w <= 0)
			return -1;
		done += w;
	}
	return n;
}

int main(int argc, char **argv)
{
	struct timespec idle = { 0, 1000000 };
	struct sigaction sa;
	struct rusage ru;
	int in, out, pipefd[2], use_splice = 1, rc = 0;
	long n, bytes = 0;

	if (argc != 3) {
		fprintf(stderr, "usage: ftrace_reader TRACE_PIPE_RAW OUT\n");
		return 2;
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal; /* no SA_RESTART: a blocked splice returns EINTR */
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	in = open(argv[1], O_RDONLY);
	out = open(argv[2], O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (in < 0 || out < 0 || pipe(pipefd)) {
		perror("ftrace_reader: open");
		return 1;
	}
	while (!stop) {
		n = move(in, out, pipefd, &use_splice);
		if (n < 0 && errno != EINTR) {
			perror("ftrace_reader: splice");
			rc = 1;
			break;
		}
		if (n == 0)
			nanosleep(&idle, NULL);
		if (n > 0)
			bytes += n;
	}
	getrusage(RUSAGE_SELF, &ru);
	printf("cpu=%.3f bytes=%ld\n",
	       ru.ru_utime.tv_sec + ru.ru_stime.tv_sec +
		       (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6,
	       bytes);
	return rc;
}
