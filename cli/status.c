/*
 * cli/status.c - the status line (see cli/status.h).
 *
 * (1) Only when stderr is a terminal (and TERM is not "dumb"), without -q, for a run that
 *     collects: --explain and --schema plan only and print at once.
 * (2) The session calls status__tick() at most every SESSION_TICK_MS (200 ms), so the line is
 *     redrawn at most 5 times a second: "\r", the text cut to the terminal's width (a wrapped
 *     line could not be redrawn in place), then "erase to the end of the line".
 * (3) Every printer of a run erases it first (cli/run.c: a window's rows, notices, errors,
 *     the end of the run), so it never sits among results; it is written to stderr only, so
 *     stdout, -o FILE and pipes never see it.
 * (4) The counts are the ones perf_sql_stats shows at a window's end, taken in between: the
 *     session's tick has read the kernel's counts and drained the rings just before.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>
#include "core/session.h"
#include "cli/run.h"
#include "cli/status.h"

void status__init(struct status *st, struct run *r)
{
	const char *term = getenv("TERM");

	*st = (struct status){ .fd = STDERR_FILENO, .r = r };
	st->on = !r->quiet && !r->schema && !r->explain && isatty(st->fd) &&
		 !(term && !strcmp(term, "dumb"));
	if (st->on) {
		r->q.so.tick = status__tick;
		r->q.so.tick_ctx = st;
	}
	st->start_ns = now_ns(CLOCK_MONOTONIC);
}

void status__start(struct status *st)
{
	if (st)
		st->start_ns = now_ns(CLOCK_MONOTONIC);
}

/* one source's counts so far: ring.c's session__account_lost() as if the window ended now */
static void source_counts(const struct source *src, int nr_cpus, uint64_t *recv, uint64_t *lost)
{
	*recv = src->total_received;
	*lost = src->total_lost;
	for (int c = 0; c < nr_cpus; c++) {
		uint64_t got, missing;

		if (src->counting) {
			*recv += src->count_seen[c] - src->received_all[c];
			continue;
		}
		*recv += src->received[c];
		if (src->period_used != 1) { /* sampled: the kernel's PERF_FORMAT_LOST */
			*lost += src->lost_samples[c] - src->lost_all[c] + src->dropped[c];
			continue;
		}
		got = src->received_all[c] + src->received[c] + src->dropped[c] + src->filtered[c];
		missing = src->count_seen[c] > got ? src->count_seen[c] - got : 0;
		*lost += (missing > src->lost_all[c] ? missing - src->lost_all[c] : 0) +
			 src->dropped[c];
	}
}

void status__counts(const struct session *s, uint64_t *received, uint64_t *lost)
{
	*received = *lost = 0;
	for (int i = 0; i < s->nr_src; i++) {
		const struct source *src = s->src[i];
		uint64_t r = 0, l = 0;

		if (src->counter || src->unsupported) /* counters count cycles, not events */
			continue;
		if (s->replay) {
			for (int c = 0; c < s->nr_cpus; c++) {
				r += src->received[c];
				l += src->lost[c];
			}
		} else {
			source_counts(src, s->nr_cpus, &r, &l);
		}
		*received += r;
		*lost += l;
	}
}

static int columns(int fd)
{
	struct winsize ws;

	if (ioctl(fd, TIOCGWINSZ, &ws) || ws.ws_col < 20)
		return 80;
	return ws.ws_col;
}

/* "collecting 2.4s of 5s", "recording to FILE 2.4s", "replaying FILE" */
static int what(char *buf, size_t len, const struct status *st, const struct session *s)
{
	const struct run *r = st->r;
	double secs = (double)(now_ns(CLOCK_MONOTONIC) - st->start_ns) / 1e9;
	int n;

	if (r->q.replay_path)
		return snprintf(buf, len, "replaying %s", r->q.replay_path);
	if (r->q.record_path)
		n = snprintf(buf, len, "recording to %s %.1fs", r->q.record_path, secs);
	else
		n = snprintf(buf, len, "collecting %.1fs", secs);
	if (r->q.so.duration_ms)
		n += snprintf(buf + n, len - (size_t)n, " of %gs",
			      (double)r->q.so.duration_ms / 1e3);
	else if (s->opts.workload)
		n += snprintf(buf + n, len - (size_t)n, " until %s exits", s->opts.workload[0]);
	return n;
}

void status__tick(void *ctx, struct session *s)
{
	struct status *st = ctx;
	char line[512];
	uint64_t recv, lost;
	int n, width = columns(st->fd) - 1;

	if (!st->on)
		return;
	status__counts(s, &recv, &lost);
	n = what(line, sizeof(line), st, s);
	n += snprintf(line + n, sizeof(line) - (size_t)n, ":");
	if (st->r->q.so.interval_ms)
		n += snprintf(line + n, sizeof(line) - (size_t)n, " window %d,", s->nr_windows + 1);
	n += snprintf(line + n, sizeof(line) - (size_t)n, " %llu events, %llu lost; Ctrl-C to stop",
		      (unsigned long long)recv, (unsigned long long)lost);
	if (n > width)
		n = width;
	fflush(stdout); /* rows first, when both are the terminal */
	dprintf(st->fd, "\r%.*s\033[K", n, line);
	st->shown = true;
}

void status__erase(struct status *st)
{
	if (!st || !st->shown)
		return;
	dprintf(st->fd, "\r\033[K");
	st->shown = false;
}
