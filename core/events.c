/*
 * core/events.c - opening a session's perf events (see core/events.h).
 *
 * (1) One event per CPU (pid -1), or per target task with inherit (and enable_on_exec for a
 *     workload); sample_type IDENTIFIER|TID|TIME|CPU|PERIOD (+RAW only when a field is read);
 *     read_format ID|LOST. Each table has its own ring per CPU, so records arrive in time
 *     order per CPU and a busy table cannot crowd another out.
 * (2) A dummy sideband event (comm, task records) runs only when a query reads _comm (or
 *     stacks, or follows a tree); with cgroup records too when it reads _cgroup (CGROUP on
 *     the ring's sample_type: PERF_SAMPLE_CGROUP, 8 bytes per row, only then).
 * (3) The wakeup is the ring watermark (a quarter of the ring), never per event.
 * (4) A failed open is explained once, from one errno table (perf's evsel__open_strerror).
 */
#include <errno.h>
#include <pthread.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <linux/perf_event.h>
#include <perf/evlist.h>
#include <perf/evsel.h>
#include <perf/threadmap.h>
#include "core/cgroup.h"
#include "core/events.h"
#include "core/perf_glue.h"
#include "core/ring.h"
#include "core/target.h"

/* perf_event_open errno -> what to do about it (perf's evsel__open_strerror, in one table) */
static const struct {
	int eno;
	const char *what, *hint;
} open_errors[] = {
	{ EACCES, "permission denied",
	  "run as root, or give CAP_PERFMON and set the sysctl kernel.perf_event_paranoid=-1; "
	  "tracefs (/sys/kernel/tracing) must be readable too" },
	{ EPERM, "operation not permitted",
	  "run as root, or give CAP_PERFMON and set the sysctl kernel.perf_event_paranoid=-1" },
	{ ENOENT, "not supported by this CPU/VM",
	  "list what can be opened with: perf-sql \"select name from perf_sql_events\"" },
	{ EOPNOTSUPP, "this event cannot sample here", "try a software event such as cpu_clock" },
	{ EMFILE, "too many open files", "raise the limit: ulimit -n 65536" },
	{ ENOSPC, "no free slot for this event", "use fewer events of this kind at once" },
	{ EBUSY, "the event is in use by another tool", "stop the other tool and try again" },
	{ EINVAL, "the kernel rejected the event's settings", "run with -v to see the attributes" },
};

static int open_error(struct err *e, const char *what, int eno, enum event_kind kind)
{
	if (kind == EV_RAW && (eno == EINVAL || eno == EOPNOTSUPP)) {
		err_set(e, -eno, "%s: this PMU cannot sample (%s)", what, strerror(eno));
		return err_hint(e, "it can only count; sysfs PMU events are sampled where the PMU "
				   "supports it (cpu/...)");
	}
	if ((eno == ENOENT || eno == EOPNOTSUPP) &&
	    (!strncmp(what, "hardware:", 9) || !strncmp(what, "cache:", 6))) {
		err_set(e, -eno, "%s: not supported by this CPU/VM", strchr(what, ':') + 1);
		return err_hint(e, "try cpu_clock (a software clock that samples everywhere)");
	}
	for (size_t i = 0; i < sizeof(open_errors) / sizeof(open_errors[0]); i++)
		if (open_errors[i].eno == eno) {
			err_set(e, -eno, "%s: cannot open: %s (%s)", what, open_errors[i].what,
				strerror(eno));
			return err_hint(e, "%s", open_errors[i].hint);
		}
	return err_set(e, -eno, "%s: cannot open: %s", what, strerror(eno));
}

static void attr_common(struct session *s, struct perf_event_attr *a)
{
	a->size = sizeof(*a);
	a->disabled = 1;
	a->watermark = 1;
	a->wakeup_watermark = (uint32_t)s->opts.mmap_pages * 4096u / 4;
	/* no use_clockid: with clockid=CLOCK_MONOTONIC, 6.18 counts but drops the samples of
	 * tracepoints that fire in hard-IRQ context on an idle CPU (every timer wakeup); _time is
	 * the perf clock (local_clock: ns since boot, close to CLOCK_MONOTONIC) */
	if (s->wl.pid && !s->opts.all) {
		a->inherit = 1;
		a->enable_on_exec = 1;
	}
	if (s->nr_tids)
		a->inherit = 1; /* follow threads the targets create from now on */
}

/* clocks and hardware events: sampled at a rate (-F), not at every event */
static bool rate_sampled(const struct source *src)
{
	return src->ev->kind == EV_HARDWARE || src->ev->kind == EV_CACHE ||
	       (src->ev->kind == EV_SOFTWARE && (src->ev->pmu_config == PERF_COUNT_SW_CPU_CLOCK ||
						 src->ev->pmu_config == PERF_COUNT_SW_TASK_CLOCK));
}

/* --call-graph dwarf copies the user stack of every table's samples; auto only where the rate
 * is bounded (an 8 KiB copy per tracepoint or probe hit would flood the rings) */
static bool copies_stack(const struct source *src)
{
	int cg = src->s->opts.call_graph;

	return src->need_stack && (cg == CALL_GRAPH_DWARF ||
				   (cg == CALL_GRAPH_AUTO && (rate_sampled(src) || src->hz)));
}

uint64_t source__sample_type(const struct source *src)
{
	uint64_t st = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
		      PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD;

	if (src->ev->kind == EV_TRACEPOINT)
		st |= src->need_raw ? PERF_SAMPLE_RAW : 0;
	else
		st |= PERF_SAMPLE_IP | (src->need_addr ? PERF_SAMPLE_ADDR : 0);
	/* software events with PERF_SAMPLE_PERIOD and a fixed period sample every event (the
	 * kernel's perf_swevent_event): leave it out, _period is then the period asked */
	if (src->period_used > 1 &&
	    (src->ev->kind == EV_SOFTWARE || src->ev->kind == EV_BREAKPOINT))
		st &= ~(uint64_t)PERF_SAMPLE_PERIOD;
	if (src->user_str) /* an output event's period is not the tracepoint's: 1, every call */
		st &= ~(uint64_t)PERF_SAMPLE_PERIOD;
	if (src->ev->kind == EV_UPROBE && src->need_regs)
		st |= PERF_SAMPLE_REGS_USER;
	if (src->need_cgroup && src->s->cgroup_ring)
		st |= PERF_SAMPLE_CGROUP;
	if (copies_stack(src)) /* unwound while draining */
		st |= PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
	return src->need_stack ? st | PERF_SAMPLE_CALLCHAIN : st;
}

/* Sampling: a rate from the query (cpu_clock(99), WHERE period = N), else the defaults:
 * clocks and hardware events at -F Hz, every other event each time it happens. */
static void set_rate(struct session *s, struct source *src, struct perf_event_attr *a)
{
	bool clock = rate_sampled(src);

	if (src->counting) {
		a->sample_period = 0;
	} else if (src->period) {
		a->sample_period = src->period;
	} else if (src->hz || clock) {
		a->freq = 1;
		a->sample_freq = src->hz ? src->hz : (uint64_t)s->opts.freq;
	} else {
		a->sample_period = 1;
	}
	src->hz_used = a->freq ? a->sample_freq : 0;
	src->period_used = a->freq ? 0 : a->sample_period;
}

static struct perf_evsel *new_source_evsel(struct session *s, struct source *src)
{
	struct perf_event_attr a = { 0 };

	attr_common(s, &a);
	a.type = src->ev->kind == EV_TRACEPOINT ? PERF_TYPE_TRACEPOINT : src->ev->pmu_type;
	a.config = src->ev->kind == EV_TRACEPOINT ? (uint64_t)src->ev->id : src->ev->pmu_config;
	a.config1 = src->ev->probe_path ? (uint64_t)(uintptr_t)src->ev->probe_path
					: src->ev->pmu_config1;
	a.config2 = src->ev->pmu_config2;
	if (src->ev->kind == EV_BREAKPOINT) { /* bp_addr and bp_len share config1/config2 */
		a.config = 0;
		a.bp_type = src->ev->bp_type;
		a.bp_addr = src->ev->pmu_config1;
		a.bp_len = src->ev->bp_len;
	}
	if (src->user_str) { /* a BPF program writes the rows (bpf/user_str.c) */
		a.type = PERF_TYPE_SOFTWARE;
		a.config = PERF_COUNT_SW_BPF_OUTPUT;
	}
	src->counting = source__counts(src);
	set_rate(s, src, &a);
	a.sample_type = source__sample_type(src);
	a.sample_regs_user = a.sample_type & PERF_SAMPLE_REGS_USER ? UPROBE_REGS_MASK : 0;
	if (a.sample_type & PERF_SAMPLE_STACK_USER) {
		a.sample_stack_user = s->opts.stack_size ? s->opts.stack_size : STACK_SIZE_DEFAULT;
		/* dwarf: the user chain comes from the copy alone; auto compares it with the fp chain */
		a.exclude_callchain_user = s->opts.call_graph == CALL_GRAPH_DWARF;
	}
	if (source__system_wide(src))
		a.inherit = a.enable_on_exec = 0; /* opened on every CPU: enabled with the rest */
	a.read_format = PERF_FORMAT_ID | PERF_FORMAT_LOST;
	if (src->counter) /* perf stat's scaling when counters are multiplexed */
		a.read_format |= PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
	src->sample_type = a.sample_type;
	src->win->cgroup = (a.sample_type & PERF_SAMPLE_CGROUP) != 0; /* before any row */
	return perf_evsel__new(&a);
}

static struct perf_evsel *new_sideband(struct session *s, bool cgroups)
{
	struct perf_event_attr a = { 0 };

	attr_common(s, &a);
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_DUMMY;
	a.sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_TID | PERF_SAMPLE_TIME;
	a.read_format = PERF_FORMAT_ID;
	a.comm = 1;
	a.comm_exec = 1;
	a.task = 1;
	a.mmap = a.mmap2 = s->need_mmaps; /* executable mappings, for user stacks */
	a.cgroup = cgroups; /* PERF_RECORD_CGROUP: a cgroup made, named even once it is gone */
	a.sample_id_all = 1;
	return perf_evsel__new(&a);
}

/* -p of a process with many threads takes CPUs x threads fds per table: as perf does, raise
 * the soft limit of open files to the hard one; false if it is there already */
static bool raise_nofile(void)
{
	struct rlimit r;

	if (getrlimit(RLIMIT_NOFILE, &r) || r.rlim_cur >= r.rlim_max)
		return false;
	r.rlim_cur = r.rlim_max;
	return setrlimit(RLIMIT_NOFILE, &r) == 0;
}

/*
 * One evlist, so one ring per CPU, per event: a busy table cannot crowd another out of a
 * shared ring, and each table's losses are its own.
 */
static int open_one(struct session *s, struct perf_evsel *evsel, struct perf_thread_map *threads,
		    int pages, const char *what, enum event_kind kind, struct err *e)
{
	struct perf_evlist *el = perf_evlist__new();
	struct pollfd *nfds;
	int ret;

	if (!el)
		return err_set(e, -ENOMEM, "out of memory");
	s->evlists[s->nr_evlists++] = el;
	perf_evlist__add(el, evsel);
	perf_evlist__set_maps(el, s->cpus, threads);
	ret = perf_evsel__open(evsel, s->cpus, threads);
	if (ret == -EMFILE && raise_nofile()) /* a failed open closed what it had opened */
		ret = perf_evsel__open(evsel, s->cpus, threads);
	if (ret)
		return open_error(e, what, -ret, kind);
	s->nr_open = s->nr_evlists;
	if (perf_evlist__mmap(el, pages)) {
		err_set(e, -errno, "ring buffers of %d pages per CPU: %s", pages, strerror(errno));
		return err_hint(e, "lower -m, or raise the sysctl kernel.perf_event_mlock_kb");
	}
	nfds = realloc(s->pollfds, (size_t)(s->nr_pollfds + s->nr_cpus) * sizeof(*nfds));
	if (!nfds)
		return err_set(e, -ENOMEM, "out of memory");
	s->pollfds = nfds;
	for (int c = 0; c < s->nr_cpus; c++) /* thread 0's fd owns the CPU's ring */
		s->pollfds[s->nr_pollfds++] =
			(struct pollfd){ .fd = evsel__fd(evsel, c, 0), .events = POLLIN };
	return 0;
}

/* unmapped, closed, and deleted with what libperf's delete leaves (core/perf_glue.h) */
static void evlist_delete(struct perf_evlist *evlist)
{
	struct perf_evsel *ev;

	perf_evlist__munmap(evlist);
	perf_evlist__close(evlist);
	perf_evlist__for_each_evsel(evlist, ev) { evsel__exit(ev); }
	perf_evlist__delete(evlist); /* deletes its evsels */
}

static int open_events(struct session *s, struct err *e)
{
	bool need_comm = false, names = s->keep_names, cgroups = false;
	int ret;

	s->evlists = calloc((size_t)s->nr_src + 1, sizeof(*s->evlists));
	if (!s->evlists)
		return err_set(e, -ENOMEM, "out of memory");
	for (int i = 0; i < s->nr_src; i++) {
		struct source *src = s->src[i];

		/* a cgroup made while collecting is named by its PERF_RECORD_CGROUP (the kernel
		 * writes them of the v2 hierarchy only), even once removed */
		cgroups |= src->need_cgroup && cgroup_map__root(s->cgroups);
		if (src->bpf) { /* its events reach a BPF map instead (bpf/); a stack's names and
				 * mappings still come from the sideband */
			need_comm |= src->need_stack || cgroups;
			names |= src->need_stack;
			s->need_mmaps |= src->need_stack;
			continue;
		}
		src->evsel = new_source_evsel(s, src);
		if (!src->evsel)
			return err_set(e, -ENOMEM, "out of memory");
		if (source__system_wide(src))
			evsel__set_system_wide(src->evsel);
		ret = open_one(s, src->evsel, source__system_wide(src) ? s->any_thread : s->threads,
			       src->counting ? 1 : s->opts.mmap_pages, src->ev->full, src->ev->kind,
			       e);
		if (ret && src->optional) { /* a counter this machine lacks: a NULL row */
			evlist_delete(s->evlists[--s->nr_evlists]);
			src->evsel = NULL;
			src->unsupported = true;
			e->code = 0;
			continue;
		}
		if (ret)
			return ret;
		if ((ret = ring__add_ids(s, src->evsel, src)))
			return err_set(e, ret, "%s: cannot read event ids", src->ev->full);
		need_comm |= src->need_comm || src->tree_filter || src->need_stack || cgroups;
		names |= src->need_comm || src->need_stack;
		s->need_mmaps |= src->need_stack;
	}
	if (need_comm) {
		s->sideband = new_sideband(s, cgroups);
		if (!s->sideband)
			return err_set(e, -ENOMEM, "out of memory");
		/* the tree's forks must not be lost: a ring the tables' size then, 16 pages at least */
		int pages = s->tree.active && s->opts.mmap_pages > 16 ? s->opts.mmap_pages : 16;

		if ((ret = open_one(s, s->sideband, s->threads, pages,
				    "task-name sideband (dummy event)", EV_SOFTWARE, e)))
			return ret;
		if ((ret = ring__add_ids(s, s->sideband, NULL)))
			return err_set(e, ret, "sideband: cannot read event ids");
		/* the tree alone needs the forks, not every task's name (~1,000 files read) */
		if (names && !s->comms)
			s->comms = comm_map__new();
		if (names && (!s->comms || comm_map__snapshot(s->comms)))
			return err_set(e, -ENOMEM, "cannot read task names from /proc");
	}
	ring__sort_ids(s);
	return 0;
}

static void for_each_evlist(struct session *s, void (*fn)(struct perf_evlist *))
{
	for (int i = 0; i < s->nr_evlists; i++)
		fn(s->evlists[i]);
}

/*
 * A filter the kernel refuses is noted and replaced by a weaker one: SQLite checks every WHERE
 * term anyway; the self filter alone is set (and noted if it is refused too).
 */
static void set_filters(struct session *s)
{
	char self_f[120];
	int ret;

	session__plan_filters(s);
	for (int i = 0; i < s->nr_src; i++) {
		struct source *src = s->src[i];

		if (!src->evsel || !src->filter[0] ||
		    !(ret = evsel__set_filter(src->evsel, src->filter)))
			continue;
		src->filter_rejected = true;
		plan_note__add(src, PLAN_FILTER,
			       "the kernel refused the filter (%s): the WHERE filter is applied in "
			       "user space",
			       strerror(-ret));
		src->filter[0] = '\0';
		target__self_filter(s, src, self_f, sizeof(self_f));
		if (self_f[0] && (ret = evsel__set_filter(src->evsel, self_f)))
			plan_note__add(
				src, PLAN_FILTER,
				"the kernel refused \"%s\" too (%s): perf-sql's own rows are "
				"not left out",
				self_f, strerror(-ret));
		else
			snprintf(src->filter, sizeof(src->filter), "%s", self_f);
	}
}

int events__open(struct session *s, struct err *e)
{
	int ret;

	if (s->nr_src && (ret = open_events(s, e)))
		return ret;
	set_filters(s);
	return 0;
}

/* A workload's per-task events are left to enable_on_exec: enabled now, they would count what
 * the held child does before its exec (its execvp's $PATH attempts, the execve's sys_enter),
 * which perf stat -- CMD and the BPF path's task map (armed at the exec) do not. The sideband
 * counts nothing: on from now, its exec's COMM and MMAP2 records are never missed (a short
 * workload's files were nameless once under ASan when it waited for the exec) */
void events__enable(struct session *s)
{
	struct perf_evsel *ev;

	for (int i = 0; i < s->nr_evlists; i++) {
		perf_evlist__for_each_evsel(s->evlists[i], ev)
		{
			if (!perf_evsel__attr(ev)->enable_on_exec || ev == s->sideband)
				perf_evsel__enable(ev);
		}
	}
}

void events__disable(struct session *s) { for_each_evlist(s, perf_evlist__disable); }

static void *close_evlists(void *arg)
{
	struct session *s = arg;

	for (int i = 0; i < s->nr_evlists; i++) {
		if (i < s->nr_open) /* an evlist whose open failed has no fds to disable */
			perf_evlist__disable(s->evlists[i]);
		evlist_delete(s->evlists[i]);
	}
	return NULL;
}

/*
 * The last close of a tracepoint's perf events waits for an RCU grace period (tens of ms
 * here), under the kernel's event_mutex (kernel/trace/trace_event_perf.c), so closes do not
 * overlap each other, even from several threads; they overlap the last window's query, its
 * printing and the rest of the tear-down instead: a thread closes them from the moment the
 * last counts are read and the rings drained.
 */
void events__release(struct session *s)
{
	if (s->closer_on || !s->nr_evlists)
		return;
	s->closer_on = pthread_create(&s->closer, NULL, close_evlists, s) == 0;
}

void events__close(struct session *s)
{
	if (s->closer_on)
		pthread_join(s->closer, NULL);
	else
		close_evlists(s);
	s->closer_on = false;
	free(s->evlists);
	free(s->pollfds);
	free(s->ids);
	s->evlists = NULL;
	s->pollfds = NULL;
	s->ids = NULL;
	s->nr_evlists = s->nr_open = s->nr_pollfds = s->nr_ids = 0;
}
