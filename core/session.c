/*
 * core/session.c - a session's lifetime, planning and run loop (see core/session.h).
 *
 * HOW IT WORKS
 * (1) Planning: the SQL layer asks for a source per table it names and says which columns it
 *     reads; nothing is opened until session__start().
 * (2) Opening: each event source (core/event_source.h; the perf rings: core/events.c,
 *     core/ring.c) opens what the sources need, on the CPUs and tasks of core/target.c.
 * (3) Collecting: poll wakes on the sources' fds; each wakeup drains them into the tables'
 *     window stores. At the end of a window the kernel's event counts are read, the sources
 *     drained once more, lost = counted - received (cumulative), the front end runs its
 *     statements, and the window is cleared.
 * (4) Replay (core/replay.c) feeds the same windows from a capture instead.
 */
#include <assert.h>
#include <errno.h>
#include <poll.h>
#include <stdarg.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/perf_event.h>
#include <perf/core.h>
#include <perf/cpumap.h>
#include <perf/threadmap.h>
#include "core/cgroup.h"
#include "core/event_source.h"
#include "core/kfilter.h"
#include "core/ring.h"
#include "core/session.h"
#include "core/cgroup.h"
#include "core/target.h"
#include "core/tracefs.h"

volatile sig_atomic_t session_stop;

void session__signal(int sig)
{
	/* the three handlers block each other (sa_mask), so no increment is lost */
	session_stop = (session_stop & 0xffff) + 1; /* never 0, never overflows */
}

static struct source *new_source(struct session *s, struct tp_event *ev, struct err *e);

uint64_t now_ns(int clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static int libperf_quiet(enum libperf_print_level level, const char *fmt, va_list ap) { return 0; }

struct session *session__new(const struct session_opts *opts, struct err *e)
{
	struct session *s = calloc(1, sizeof(*s));
	char tracefs[256];

	if (!s) {
		err_set(e, -ENOMEM, "session: out of memory");
		return NULL;
	}
	s->opts = *opts;
	s->reading = -1;
	s->wl.go_fd = s->wl.err_fd = -1; /* no workload: nothing of fd 0 to close */
	if (s->opts.mmap_pages <= 0)
		s->opts.mmap_pages = 64;
	if (s->opts.freq <= 0)
		s->opts.freq = 99;
	if (s->opts.mmap_pages & (s->opts.mmap_pages - 1)) {
		err_set(e, -EINVAL, "-m %d: ring size must be a power of two pages",
			opts->mmap_pages);
		err_hint(e, "try -m 64 (256 KiB per CPU) or -m 1024");
		goto fail;
	}
	s->budget = s->opts.max_memory ? s->opts.max_memory : (size_t)256 << 20;
	s->self = (uint32_t)getpid();
	libperf_init(libperf_quiet);
	if (tracefs__find(tracefs, sizeof(tracefs), e))
		goto fail;
	s->cat = catalog__new(tracefs, e);
	if (!s->cat)
		goto fail;
	if (target__open_cpus(s, e) || target__read(s, e))
		goto fail;
	s->evsrc[s->nr_evsrc++] = &ring_source;
	return s;
fail:
	session__close(s);
	return NULL;
}

static void source__free(struct source *src)
{
	if (!src)
		return;
	window__free(src->win);
	free(src->received);
	free(src->lost);
	free(src->dropped);
	free(src->filtered);
	free(src->count_seen);
	free(src->lost_samples);
	free(src->received_all);
	free(src->lost_all);
	free(src->lost_ring);
	free(src->lost_ring_all);
	plan_note__free_all(src);
	free(src);
}

/*
 * The fields that name the task a row is about: of the scheduler's events (but the pid of
 * sched_process_wait, the argument of wait()) and of signal_generate (the signal's target).
 */
int session__task_fields(const struct tp_event *ev, const char *out[2])
{
	static const char *const names[] = { "pid", "prev_pid", "next_pid", "parent_pid",
					     "child_pid" };
	const char *name = ev->full;
	int n = 0;

	out[0] = out[1] = NULL;
	if (strncmp(name, "sched:", 6) && strcmp(name, "signal:signal_generate"))
		return 0;
	if (!strcmp(name, "sched:sched_process_wait"))
		return 0;
	for (int k = 0; k < 5; k++)
		for (int i = 0; i < ev->nr_fields && n < 2; i++)
			if (!strcmp(ev->fields[i].name, names[k]))
				out[n++] = names[k];
	return n;
}

static void set_task_fields(struct source *src) { session__task_fields(src->ev, src->task_fields); }

struct source *session__counter(struct session *s, struct tp_event *ev, struct err *e)
{
	struct source *src;

	for (int i = 0; i < s->nr_src; i++)
		if (s->src[i]->ev == ev && s->src[i]->counter)
			return s->src[i];
	src = new_source(s, ev, e);
	if (src) {
		src->counter = true;
		src->optional = ev->kind != EV_SOFTWARE;
	}
	return src;
}

struct source *session__source(struct session *s, struct tp_event *ev, struct err *e)
{
	for (int i = 0; i < s->nr_src; i++)
		if (s->src[i]->ev == ev && !s->src[i]->counter)
			return s->src[i];
	return new_source(s, ev, e);
}

static struct source *new_source(struct session *s, struct tp_event *ev, struct err *e)
{
	struct source *src, **nsrc;
	size_t n = (size_t)s->nr_cpus;

	if (catalog__parse(s->cat, ev, e))
		return NULL;
	src = calloc(1, sizeof(*src));
	nsrc = realloc(s->src, (size_t)(s->nr_src + 1) * sizeof(*nsrc));
	if (!src || !nsrc)
		goto nomem;
	s->src = nsrc;
	src->s = s;
	src->ev = ev;
	src->win = window__new(s->nr_cpus, &s->budget);
	src->received = calloc(n, 8);
	src->lost = calloc(n, 8);
	src->dropped = calloc(n, 8);
	src->filtered = calloc(n, 8);
	src->count_seen = calloc(n, 8);
	src->lost_samples = calloc(n, 8);
	src->received_all = calloc(n, 8);
	src->lost_all = calloc(n, 8);
	src->lost_ring = calloc(n, 8);
	src->lost_ring_all = calloc(n, 8);
	if (!src->win || !src->received || !src->lost || !src->dropped || !src->filtered ||
	    !src->count_seen || !src->lost_samples || !src->received_all || !src->lost_all ||
	    !src->lost_ring || !src->lost_ring_all)
		goto nomem;
	if (s->nr_tids || (s->opts.workload && !s->opts.all))
		set_task_fields(src);
	/* a task target's tree (the workload's, or -p/-t/--cgroup's) is known only as it forks:
	 * the rows that name its tasks are picked in user space, from every CPU (core/tree.c) */
	src->tree_filter = src->task_fields[0] != NULL;
	s->tree.active |= src->tree_filter;
	src->need_raw |= src->tree_filter;
	s->src[s->nr_src++] = src;
	return src;
nomem:
	source__free(src);
	err_set(e, -ENOMEM, "%s: out of memory", ev->full);
	return NULL;
}

int session__add_event_source(struct session *s, const struct event_source_ops *ops, void *data)
{
	if (s->nr_evsrc == (int)(sizeof(s->evsrc) / sizeof(s->evsrc[0])))
		return -ENOSPC;
	s->evsrc_data[s->nr_evsrc] = data;
	s->evsrc[s->nr_evsrc++] = ops;
	return 0;
}

void *session__source_data(const struct session *s, const struct event_source_ops *ops)
{
	for (int i = 0; i < s->nr_evsrc; i++)
		if (s->evsrc[i] == ops)
			return s->evsrc_data[i];
	return NULL;
}

void session__set_source_data(struct session *s, const struct event_source_ops *ops, void *data)
{
	for (int i = 0; i < s->nr_evsrc; i++)
		if (s->evsrc[i] == ops)
			s->evsrc_data[i] = data;
}

/* bit of the statement being prepared in a reader mask (0: none) */
static uint64_t reading_bit(const struct session *s)
{
	assert(s->reading < 64);
	return s->reading >= 0 ? 1ull << s->reading : 0;
}

void source__plan(struct source *src, bool raw, bool comm, bool rows)
{
	src->scanned_by |= reading_bit(src->s);
	src->need_raw |= raw || src->tree_filter;
	src->need_comm |= comm;
	src->need_rows |= rows;
}

void source__plan_pairer(struct source *src, bool raw)
{
	src->nr_pairers++; /* made once per run (cached), whoever prepares it */
	src->need_raw |= raw || src->tree_filter;
	src->need_comm = true; /* comm is a column of every pair: task names are always tracked */
	src->need_rows = true;
}

void source__read_by_pairer(struct source *src) { src->paired_by |= reading_bit(src->s); }

void session__reading(struct session *s, int i)
{
	if (i == -2)
		for (int j = 0; j < s->nr_src; j++) /* the pairers stay made */
			s->src[j]->scanned_by = s->src[j]->paired_by = 0;
	s->reading = i < 0 ? -1 : i;
}

void session__row_arg(struct session *s, const char *idx_str, int k)
{
	int i;

	if (k < 0 || k >= 32 || strlen(idx_str) >= sizeof(s->row_args[0].idx_str)) {
		s->row_args_full = true;
		return;
	}
	for (i = 0; i < s->nr_row_args && strcmp(s->row_args[i].idx_str, idx_str); i++)
		;
	if (i == (int)(sizeof(s->row_args) / sizeof(s->row_args[0]))) {
		s->row_args_full = true;
		return;
	}
	if (i == s->nr_row_args) {
		snprintf(s->row_args[i].idx_str, sizeof(s->row_args[i].idx_str), "%s", idx_str);
		s->row_args[i].args = 0;
		s->nr_row_args++;
	}
	s->row_args[i].args |= 1u << k;
}

bool session__is_row_arg(const struct session *s, const char *idx_str, int k)
{
	if (s->row_args_full)
		return true;
	for (int i = 0; i < s->nr_row_args; i++)
		if (!strcmp(s->row_args[i].idx_str, idx_str))
			return k >= 32 || (s->row_args[i].args >> k) & 1;
	return false;
}

void source__use_user_str(struct source *src)
{
	struct session *s = src->s;

	src->user_str = src->need_raw = src->need_rows = true;
	if (s->nr_tids || (s->opts.workload && !s->opts.all)) {
		src->tree_filter = true;
		s->tree.active = true;
	}
}

void source__dry_scan(struct source *src, const struct kfilter *kf)
{
	const char *filter = kf ? kfilter__str(kf) : NULL;

	src->nr_scans++;
	if (kf && kf->overflow)
		src->want_too_long = true;
	if (!filter || src->s->no_pushdown) {
		src->want_all = true;
	} else if (!kfilter__or(src->want_filter, sizeof(src->want_filter), filter)) {
		src->want_all = true;
		src->want_too_long = true;
	}
}

int session__extra_stat(struct session *s, const char *fmt, ...)
{
	va_list ap;

	if (s->nr_extra == (int)(sizeof(s->extra) / sizeof(s->extra[0])))
		return -1;
	va_start(ap, fmt);
	vsnprintf(s->extra[s->nr_extra].name, sizeof(s->extra[0].name), fmt, ap);
	va_end(ap);
	return s->nr_extra++;
}

void session__extra_add(struct session *s, int idx, uint64_t received, uint64_t lost)
{
	if (idx < 0 || idx >= s->nr_extra)
		return;
	s->extra[idx].received += received;
	s->extra[idx].lost += lost;
}

void session__extra_pairs(struct session *s, int idx, const uint64_t counts[4])
{
	struct extra_stat *x = idx >= 0 && idx < s->nr_extra ? &s->extra[idx] : NULL;

	if (!x)
		return;
	x->pairs = true;
	x->replaced += counts[0];
	x->unmatched += counts[1];
	x->refused += counts[2];
	x->skipped += counts[3];
}

/*
 * Counting stands for sampling only where the count is the number of rows sampling would
 * give: every event of a tracepoint, probe, breakpoint or software event counter, at no
 * asked rate. A clock counts nanoseconds and hardware events count cycles or instructions.
 */
bool source__counts(const struct source *src)
{
	const struct tp_event *ev = src->ev;
	bool clock = ev->kind == EV_HARDWARE || ev->kind == EV_CACHE || ev->kind == EV_RAW ||
		     (ev->kind == EV_SOFTWARE && (ev->pmu_config == PERF_COUNT_SW_CPU_CLOCK ||
						  ev->pmu_config == PERF_COUNT_SW_TASK_CLOCK));

	if (src->counter)
		return true;
	return !src->need_rows && !src->task_fields[0] && !clock && !src->hz && !src->period;
}

void source__plan_more(struct source *src, bool stack, bool addr, bool regs)
{
	src->need_stack |= stack;
	src->need_addr |= addr;
	src->need_regs |= regs;
}

int source__set_rate(struct source *src, uint64_t hz, uint64_t period)
{
	if ((hz && src->hz && hz != src->hz) || (period && src->period && period != src->period) ||
	    (hz && src->period) || (period && src->hz))
		return -EINVAL;
	if (hz)
		src->hz = hz;
	if (period)
		src->period = period;
	return 0;
}

pid_t session__workload_pid(const struct session *s) { return s->wl.pid; }

const char *session__comm(struct session *s, uint32_t tid, uint64_t time)
{
	if (!s->comms)
		s->comms = comm_map__new();
	return s->comms ? comm_map__get(s->comms, tid, time) : NULL;
}

int session__fork(struct session *s, struct err *e)
{
	if (s->opts.workload && !s->wl.pid)
		return workload__prepare(&s->wl, s->opts.workload, e);
	return 0;
}

int session__start(struct session *s, struct err *e)
{
	int ret;

	if (s->replay) { /* rows come from a capture: nothing to open */
		s->started = true;
		return 0;
	}
	if ((ret = session__fork(s, e)))
		return ret;
	if (s->nr_tids)
		s->threads = perf_thread_map__new_array(s->nr_tids, s->tids);
	else
		s->threads = perf_thread_map__new_dummy();
	s->any_thread = perf_thread_map__new_dummy();
	if (!s->threads || !s->any_thread)
		return err_set(e, -ENOMEM, "out of memory");
	if (s->wl.pid && !s->opts.all)
		perf_thread_map__set_pid(s->threads, 0, s->wl.pid);
	s->tree.stat = -1;
	if (s->tree.active)
		s->tree.stat = session__extra_stat(s, "workload tree (task records)");
	for (int i = 0; i < s->nr_evsrc; i++)
		if ((ret = s->evsrc[i]->open(s, e)))
			return ret;
	s->started = true;
	s->window_start_ns = now_ns(CLOCK_REALTIME);
	s->window_start_mono = now_ns(CLOCK_MONOTONIC);
	for (int i = 0; i < s->nr_evsrc; i++)
		s->evsrc[i]->enable(s);
	if (s->wl.pid && s->comms) {
		/* named from the start (time 1: after the /proc snapshot's 0, before any record) as
		 * the kernel names it at exec (the file's basename); the sideband's first record is
		 * that exec's COMM (enable_on_exec turns it on first), later execs come as more */
		const char *base = strrchr(s->opts.workload[0], '/');

		comm_map__set(s->comms, (uint32_t)s->wl.pid, 1,
			      base ? base + 1 : s->opts.workload[0]);
	}
	s->tree.root = (uint32_t)s->wl.pid;  /* a member from its exec (core/tree.c) */
	for (int i = 0; i < s->nr_tids; i++) /* -p/-t/--cgroup: members from the start */
		tree__add(&s->tree, (uint32_t)s->tids[i]);
	if (s->wl.pid && (ret = workload__start(&s->wl, e)))
		return ret;
	s->collecting = true;
	return 0;
}

void session__clear_window(struct session *s)
{
	size_t n = (size_t)s->nr_cpus * 8;

	for (int i = 0; i < s->nr_src; i++) {
		struct source *src = s->src[i];

		window__clear(src->win);
		memset(src->received, 0, n);
		memset(src->lost, 0, n);
		memset(src->dropped, 0, n);
		memset(src->filtered, 0, n);
		memset(src->lost_ring, 0, n);
	}
	for (int i = 0; i < s->nr_extra; i++) {
		struct extra_stat *x = &s->extra[i];

		x->received = x->lost = x->replaced = x->unmatched = x->refused = x->skipped = 0;
	}
	s->window_start_ns = now_ns(CLOCK_REALTIME);
	s->window_start_mono = now_ns(CLOCK_MONOTONIC);
	s->nr_windows++;
}

static void drain(struct session *s)
{
	for (int i = 0; i < s->nr_evsrc; i++)
		s->evsrc[i]->drain(s);
}

static int end_window(struct session *s, window_fn fn, void *ctx, bool last)
{
	int ret;

	s->window_end = true;
	for (int i = 0; i < s->nr_evsrc; i++)
		s->evsrc[i]->read_counts(s);
	s->window_end = false;
	drain(s);
	session__account_lost(s);
	for (int i = 0; i < s->nr_evsrc && last; i++) /* the answer before the tear-down */
		if (s->evsrc[i]->release)
			s->evsrc[i]->release(s);
	ret = fn(ctx, s);
	session__clear_window(s);
	return ret;
}

/* the front end's tick, with counts as of now: the kernel's counts read, then the rings
 * drained, as a window's end does (the same order, so events in flight are not lost) */
void session__tick(struct session *s)
{
	if (!s->replay) {
		for (int i = 0; i < s->nr_evsrc; i++)
			s->evsrc[i]->read_counts(s);
		drain(s);
	}
	s->opts.tick(s->opts.tick_ctx, s);
}

static long ms_until(uint64_t deadline, uint64_t now)
{
	if (deadline == UINT64_MAX)
		return 100;
	if (deadline <= now)
		return 0;
	return (long)((deadline - now) / 1000000 + 1);
}

int session__run(struct session *s, window_fn on_window, void *ctx, struct err *e)
{
	uint64_t start = now_ns(CLOCK_MONOTONIC), now;
	uint64_t stop_at =
		s->opts.duration_ms ? start + (uint64_t)s->opts.duration_ms * 1000000 : UINT64_MAX;
	uint64_t next =
		s->opts.interval_ms ? start + (uint64_t)s->opts.interval_ms * 1000000 : UINT64_MAX;
	uint64_t next_tick = start;
	int ret = 0;

	if (s->replay)
		return session__run_replay(s, on_window, ctx, e);
	/* nothing to collect and nothing to wait for: answer at once */
	if (!s->nr_src && !s->wl.pid && !s->opts.duration_ms)
		return on_window(ctx, s);
	while (!session_stop && !ret) {
		long timeout;

		now = now_ns(CLOCK_MONOTONIC);
		if (now >= stop_at || workload__poll(&s->wl) || target__gone(s))
			break;
		timeout = ms_until(next < stop_at ? next : stop_at, now);
		if (timeout > 100)
			timeout = 100; /* bounds the delay to notice a workload's exit */
		poll(s->pollfds, (nfds_t)s->nr_pollfds, (int)timeout);
		drain(s);
		now = now_ns(CLOCK_MONOTONIC);
		if (s->opts.tick && now >= next_tick) {
			session__tick(s);
			next_tick = now + SESSION_TICK_MS * 1000000ull;
		}
		if (now >= next && now < stop_at) {
			ret = end_window(s, on_window, ctx, false);
			next += (uint64_t)s->opts.interval_ms * 1000000;
			if (next < now)
				next = now + (uint64_t)s->opts.interval_ms * 1000000;
		}
	}
	for (int i = 0; i < s->nr_evsrc; i++)
		s->evsrc[i]->disable(s);
	s->collecting = false;
	if (!ret)
		ret = end_window(s, on_window, ctx, true);
	return ret ? err_set(e, ret < 0 ? ret : -EIO, "query failed") : 0;
}

void session__close(struct session *s)
{
	if (!s)
		return;
	workload__kill(&s->wl);
	for (int i = 0; i < s->nr_evsrc; i++)
		s->evsrc[i]->close(s);
	for (int i = 0; i < s->nr_src; i++)
		source__free(s->src[i]);
	free(s->src);
	comm_map__free(s->comms);
	cgroup_map__free(s->cgroups);
	perf_cpu_map__put(s->cpus);
	free(s->cpu_num);
	free(s->cpu_idx);
	perf_thread_map__put(s->threads);
	perf_thread_map__put(s->any_thread);
	free(s->tids);
	u32set__free(&s->targets);
	tree__free(&s->tree);
	u32set__free(&s->stack_pids);
	if (s->stacks)
		s->stacks->free(s->stack_ctx);
	catalog__free(s->cat);
	free(s->tables);
	if (s->replay_free)
		s->replay_free(s->replay);
	free(s);
}
