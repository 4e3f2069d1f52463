/*
 * cmd/main.c - the front end: perf-sql [OPTIONS] "SQL" [-- CMD [ARGS...]]
 *                                perf-sql [OPTIONS] [--repl]    (the REPL: shell/repl.c)
 *                                perf-sql SUBCOMMAND ...        (cmd/subcommands.c)
 *
 * Options are rows of cli/options.c, subcommands rows of cmd/subcommands.c; the engine
 * (engine/query.c) plans, collects and hands each window to cli/run.c, which prints. Errors
 * are printed here and there only: one line, "perf-sql: what; how to fix".
 *
 * Exit status: 0 ok; 1 a runtime error (SQL, event, workload, output not written); 2 bad usage;
 * 77 not enough privilege (the skip code of test suites). A closed pipe ends quietly, status 0.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cli/cli.h"
#include "shell/repl.h"
#include "cmd/subcommands.h"

static void install_signals(void)
{
	struct sigaction sa = { .sa_handler = session__signal };

	sigemptyset(&sa.sa_mask);
	sigaddset(&sa.sa_mask, SIGINT);
	sigaddset(&sa.sa_mask, SIGTERM);
	sigaddset(&sa.sa_mask, SIGHUP);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	signal(SIGPIPE, SIG_IGN); /* a closed pipe shows as EPIPE: stop quietly */
}

/* record: -o is the capture; TABLE[,TABLE...] means every column of each */
static void record_args(struct cli *c, int argc, char **argv)
{
	static char sql[4096], cmd[1024];
	struct query *q = &c->q.q;
	size_t off = 0;

	if (!c->out_path)
		usage_error("record needs -o FILE (the capture to write)");
	if (q->replay_path)
		usage_error("record and -r cannot be combined");
	q->record_path = c->out_path;
	c->out_path = NULL;
	if (q->sql && !strpbrk(q->sql, " \t\n")) {
		const char *p = q->sql;

		while (*p && off < sizeof(sql) - 256) {
			size_t n = strcspn(p, ",");

			off += (size_t)snprintf(sql + off, sizeof(sql) - off,
						"SELECT * FROM \"%.*s\";", (int)n, p);
			p += n + (p[n] == ',');
		}
		q->sql = sql;
	}
	for (int i = 0, o = 0; i < argc && o < (int)sizeof(cmd) - 2; i++)
		o += snprintf(cmd + o, sizeof(cmd) - (size_t)o, "%s%s", i ? " " : "perf-sql record",
			      i ? argv[i] : "");
	q->command_line = cmd;
}

/*
 * At exit, whoever exits: what is left of stdout is written, and a write that failed (one not
 * said already by cli/run.c, which drops what it could not write) is one line and status 1;
 * EPIPE (a reader that went away, `| head`) stays quiet, with the status as it was.
 */
static void close_stdout(void)
{
	int err;

	errno = 0;
	if (fflush(stdout) != EOF && !ferror(stdout))
		return;
	err = errno ? errno : EIO;
	if (err == EPIPE)
		return;
	say("stdout: %s; the output is not whole", strerror(err));
	_exit(EXIT_ERR);
}

int main(int argc, char **argv)
{
	struct cli c = { .q = { .out = { .mode = OUT_TABLE, .f = stdout } } };
	struct err e = { 0 };
	int status;

	signal(SIGPIPE, SIG_IGN); /* before any output, subcommands' too: EPIPE, not a kill */
	/* a buffer that holds --help, list, ... whole: a write that fails does so at exit, where
	 * close_stdout() still has its errno (stdio forgets it after a failed flush mid-way) */
	static char out_buf[1 << 16]; /* glibc takes a size only with a buffer */

	if (!isatty(STDOUT_FILENO))
		setvbuf(stdout, out_buf, _IOFBF, sizeof(out_buf));
	atexit(close_stdout);
	if ((status = subcommands__main(&argc, &argv, &c)) >= 0)
		return status;
	options__parse(&c, argc, argv);
	if (c.repl && c.q.out.mode == OUT_PPROF)
		usage_error(
			"-f pprof writes the profile of one run, not the shell's (docs/pprof.md)");
	if (c.q.out.mode == OUT_PPROF && subcommands__pprof_sql())
		c.q.q.sql = subcommands__pprof_sql(); /* a profiler of folded lines: its stacks */
	if (c.record)
		record_args(&c, argc, argv);
	/* the REPL writes every query's results to -o: made now; a query's run makes it once the
	 * SQL holds (cli/run.c) */
	if (c.out_path && c.repl && !(c.q.out.f = output__open(c.out_path, &e)))
		return report(&e);
	if (!c.repl)
		c.q.out_path = c.out_path;
	if (c.repl) {
		status = repl__main(&c.q);
	} else {
		install_signals();
		status = run__query(&c.q);
	}
	if (c.q.out.f != stdout && fclose(c.q.out.f) == EOF && !status) {
		say("%s: %s", c.out_path, strerror(errno));
		status = EXIT_ERR;
	}
	return status;
}
