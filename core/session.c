/*
 * core/session.c - planning, opening, collecting and windowing (see core/session.h).
 *
 * HOW IT WORKS
 * (1) Planning: the SQL layer asks for a source per table it names and says which columns it
 *     reads; nothing is opened until session__start().
 * (2) Opening: one event per online CPU (pid -1), or per workload task with inherit and
 *     enable_on_exec; sample_type IDENTIFIER|TID|TIME|CPU|PERIOD (+RAW only when a field is
 *     read); read_format ID|LOST. Each table has its own ring per CPU, so records arrive in
 *     time order per CPU and a busy table cannot crowd another out.
 * (3) A dummy sideband event (comm, task records) runs only when a query reads _comm.
 * (4) Collecting: poll wakes on the ring watermark (a quarter of the ring), never per event;
 *     each record is copied into its table's window store. At the end of a window the
 *     kernel's event counts are read, the rings drained once more, lost = counted - received
 *     (cumulative), the front end runs its statements, and the window is cleared.
 * (5) perf-sql leaves itself out of system-wide tracepoints with the filter common_pid != self.
 */
#include <dirent.h>
#include <errno.h>
#include <poll.h>
#include <stdarg.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>
#include <linux/perf_event.h>
#include <perf/core.h>
#include <perf/cpumap.h>
#include <perf/event.h>
#include <perf/evlist.h>
#include <perf/evsel.h>
#include <perf/mmap.h>
#include <perf/threadmap.h>
#include "core/field.h"
#include "core/kfilter.h"
#include "core/perf_glue.h"
#include "core/session.h"
#include "core/tracefs.h"

volatile sig_atomic_t session_stop;

static void tree_add(struct session *s, uint32_t tid);
static struct source *new_source(struct session *s, struct tp_event *ev, struct err *e);


uint64_t now_ns(int clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static int libperf_quiet(enum libperf_print_level level, const char *fmt, va_list ap)
{
	return 0;
}

/* -C: the listed CPUs, each of which must be online */
static int open_cpus(struct session *s, struct err *e)
{
	struct perf_cpu_map *online = perf_cpu_map__new(NULL);
	char list[64] = "?";
	FILE *f = fopen("/sys/devices/system/cpu/online", "r");

	if (f) {
		if (!fgets(list, sizeof(list), f))
			list[0] = '\0';
		list[strcspn(list, "\n")] = '\0';
		fclose(f);
	}
	s->cpus = s->opts.cpu_list ? perf_cpu_map__new(s->opts.cpu_list) : perf_cpu_map__get(online);
	if (!online || !s->cpus || perf_cpu_map__empty(s->cpus))
		goto bad;
	for (int i = 0; i < perf_cpu_map__nr(s->cpus); i++)
		if (!perf_cpu_map__has(online, perf_cpu_map__cpu(s->cpus, i)))
			goto bad;
	perf_cpu_map__put(online);
	return 0;
bad:
	perf_cpu_map__put(online);
	err_set(e, -EINVAL, "-C %s: not a list of online CPUs", s->opts.cpu_list ? s->opts.cpu_list : "");
	return err_hint(e, "online CPUs: %s (e.g. -C 0 or -C 0-1)", list);
}

static int add_tid(struct session *s, pid_t tid)
{
	pid_t *n = realloc(s->tids, (size_t)(s->nr_tids + 1) * sizeof(*n));

	if (!n)
		return -ENOMEM;
	s->tids = n;
	s->tids[s->nr_tids++] = tid;
	return 0;
}

/* -p PIDS (every thread of each) and -t TIDS -> s->tids; each must exist now */
/*
 * --cgroup: the threads in the cgroup now (cgroup v2 cgroup.threads, or v1 perf_event tasks),
 * followed with inherit like -t: threads that join the cgroup later are not seen.
 */
static int read_cgroup(struct session *s, struct err *e)
{
	const char *name = s->opts.cgroup;
	const char *const fmts[] = { "%s/cgroup.threads", "/sys/fs/cgroup/%s/cgroup.threads",
				     "/sys/fs/cgroup/unified/%s/cgroup.threads",
				     "/sys/fs/cgroup/perf_event/%s/tasks", "%s/tasks" };
	char path[600];
	FILE *f = NULL;
	int tid;

	for (size_t i = 0; i < sizeof(fmts) / sizeof(fmts[0]) && !f; i++) {
		if ((i == 0 || i == 4) && name[0] != '/')
			continue;
		snprintf(path, sizeof(path), fmts[i], name);
		f = fopen(path, "re");
	}
	if (!f) {
		err_set(e, -ENOENT, "--cgroup %s: no such cgroup", name);
		return err_hint(e, "give a path under /sys/fs/cgroup or a name relative to it");
	}
	while (fscanf(f, "%d", &tid) == 1)
		if (tid > 0 && add_tid(s, tid)) {
			fclose(f);
			return err_set(e, -ENOMEM, "out of memory");
		}
	fclose(f);
	if (!s->nr_tids)
		return err_set(e, -ESRCH, "--cgroup %s: the cgroup has no task", name);
	return 0;
}

static int read_targets(struct session *s, struct err *e)
{
	const char *lists[2] = { s->opts.pid_list, s->opts.tid_list };

	if (s->opts.cgroup)
		return read_cgroup(s, e);
	for (int k = 0; k < 2; k++) {
		const char *p = lists[k];
		char *end, path[64];

		while (p && *p) {
			long id = strtol(p, &end, 10);
			struct dirent *d;
			DIR *dir;

			if (end == p || id <= 0 || (*end && *end != ','))
				return err_set(e, -EINVAL, "%s %s: expected a comma-separated list of ids",
					       k ? "-t" : "-p", lists[k]);
			snprintf(path, sizeof(path), k ? "/proc/%ld/task/%ld" : "/proc/%ld/task", id, id);
			if (access(path, F_OK)) {
				err_set(e, -ESRCH, "%s %ld: no such %s", k ? "-t" : "-p", id,
					k ? "thread" : "process");
				return err_hint(e, "check it with: ps -p %ld", id);
			}
			if (k && add_tid(s, (pid_t)id))
				return err_set(e, -ENOMEM, "out of memory");
			for (dir = k ? NULL : opendir(path); dir && (d = readdir(dir));)
				if (atoi(d->d_name) > 0 && add_tid(s, atoi(d->d_name)))
					return err_set(e, -ENOMEM, "out of memory");
			if (dir)
				closedir(dir);
			p = *end ? end + 1 : end;
		}
	}
	return 0;
}

struct session *session__new(const struct session_opts *opts, struct err *e)
{
	struct session *s = calloc(1, sizeof(*s));
	char tracefs[256];

	if (!s) {
		err_set(e, -ENOMEM, "session: out of memory");
		return NULL;
	}
	s->opts = *opts;
	s->wl.go_fd = s->wl.err_fd = -1;   /* no workload: nothing of fd 0 to close */
	if (s->opts.mmap_pages <= 0)
		s->opts.mmap_pages = 64;
	if (s->opts.freq <= 0)
		s->opts.freq = 99;
	if (s->opts.mmap_pages & (s->opts.mmap_pages - 1)) {
		err_set(e, -EINVAL, "-m %d: ring size must be a power of two pages", opts->mmap_pages);
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
	if (open_cpus(s, e) || read_targets(s, e))
		goto fail;
	s->nr_cpus = perf_cpu_map__nr(s->cpus);
	for (int i = 0; i < s->nr_cpus && i < 64; i++) {
		int cpu = perf_cpu_map__cpu(s->cpus, i).cpu;

		s->cpu_num[i] = cpu;
		if (cpu >= 0 && cpu < 1024)
			s->cpu_idx[cpu] = i;
	}
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
	free(src);
}

static void set_task_fields(struct source *src)
{
	static const char *const names[] = { "pid", "prev_pid", "next_pid" };
	int n = 0;

	for (int k = 0; k < 3; k++)
		for (int i = 0; i < src->ev->nr_fields && n < 2; i++)
			if (!strcmp(src->ev->fields[i].name, names[k]))
				src->task_fields[n++] = names[k];
}

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
	if (!src->win || !src->received || !src->lost || !src->dropped || !src->filtered || !src->count_seen || !src->lost_samples ||
	    !src->received_all || !src->lost_all)
		goto nomem;
	if ((s->nr_tids || (s->opts.workload && !s->opts.all)) && !strcmp(ev->system, "sched"))
		set_task_fields(src);
	/* a workload's tree is known only as it forks: its scheduler rows are picked in user
	 * space, from every CPU, on the task fields and the task itself */
	src->tree_filter = src->task_fields[0] && s->opts.workload && !s->opts.all;
	src->need_raw |= src->tree_filter;
	s->src[s->nr_src++] = src;
	return src;
nomem:
	source__free(src);
	err_set(e, -ENOMEM, "%s: out of memory", ev->full);
	return NULL;
}

void source__plan(struct source *src, bool raw, bool comm, bool rows)
{
	src->need_raw |= raw || src->tree_filter;
	src->need_comm |= comm;
	src->need_rows |= rows;
}

void source__dry_scan(struct source *src, const char *filter)
{
	src->nr_scans++;
	if (!filter || src->s->no_pushdown)
		src->want_all = true;
	else if (!kfilter__or(src->want_filter, sizeof(src->want_filter), filter))
		src->want_all = true;   /* too long for one filter */
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

pid_t session__workload_pid(const struct session *s)
{
	return s->wl.pid;
}

const char *session__comm(struct session *s, uint32_t tid, uint64_t time)
{
	if (!s->comms)
		s->comms = comm_map__new();
	return s->comms ? comm_map__get(s->comms, tid, time) : NULL;
}

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
	{ ENOENT, "not supported by this CPU/VM", "list what can be opened with: perf-sql \"select name from perf_sql_events\"" },
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
		a->inherit = 1;   /* follow threads the targets create from now on */
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
	if (src->period_used > 1 && (src->ev->kind == EV_SOFTWARE || src->ev->kind == EV_BREAKPOINT))
		st &= ~(uint64_t)PERF_SAMPLE_PERIOD;
	if (src->ev->kind == EV_UPROBE && src->need_regs)
		st |= PERF_SAMPLE_REGS_USER;
	return src->need_stack ? st | PERF_SAMPLE_CALLCHAIN : st;
}

/* Sampling: a rate from the query (cpu_clock(99), WHERE period = N), else the defaults:
 * clocks and hardware events at -F Hz, every other event each time it happens. */
static void set_rate(struct session *s, struct source *src, struct perf_event_attr *a)
{
	bool clock = src->ev->kind == EV_HARDWARE || src->ev->kind == EV_CACHE ||
		     (src->ev->kind == EV_SOFTWARE && (src->ev->pmu_config == PERF_COUNT_SW_CPU_CLOCK ||
						       src->ev->pmu_config == PERF_COUNT_SW_TASK_CLOCK));

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
	a.config1 = src->ev->probe_path ? (uint64_t)(uintptr_t)src->ev->probe_path :
					  src->ev->pmu_config1;
	a.config2 = src->ev->pmu_config2;
	if (src->ev->kind == EV_BREAKPOINT) {   /* bp_addr and bp_len share config1/config2 */
		a.config = 0;
		a.bp_type = src->ev->bp_type;
		a.bp_addr = src->ev->pmu_config1;
		a.bp_len = src->ev->bp_len;
	}
	src->counting = source__counts(src);
	set_rate(s, src, &a);
	a.sample_type = source__sample_type(src);
	a.sample_regs_user = src->need_regs ? UPROBE_REGS_MASK : 0;
	a.exclude_callchain_user = 0;
	if (src->task_fields[0])
		a.inherit = a.enable_on_exec = 0;   /* opened on every CPU: enabled with the rest */
	a.read_format = PERF_FORMAT_ID | PERF_FORMAT_LOST;
	if (src->counter)   /* perf stat's scaling when counters are multiplexed */
		a.read_format |= PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
	src->sample_type = a.sample_type;
	return perf_evsel__new(&a);
}

static struct perf_evsel *new_sideband(struct session *s)
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
	a.mmap = a.mmap2 = s->need_mmaps;   /* executable mappings, for user stacks */
	a.sample_id_all = 1;
	return perf_evsel__new(&a);
}

static int cmp_id(const void *a, const void *b)
{
	uint64_t x = ((const struct id_map *)a)->id, y = ((const struct id_map *)b)->id;

	return x < y ? -1 : x > y;
}

static int add_ids(struct session *s, struct perf_evsel *evsel, struct source *src)
{
	int nthr = src && src->task_fields[0] ? 1 : perf_thread_map__nr(s->threads);
	struct id_map *ids = s->ids;
	int nr_ids = s->nr_ids;

	for (int c = 0; c < s->nr_cpus; c++)
		for (int t = 0; t < nthr; t++) {
			int fd = evsel__fd(evsel, c, t);
			uint64_t id;
			void *n;

			if (fd < 0 || ioctl(fd, PERF_EVENT_IOC_ID, &id) < 0)
				return -errno;
			n = realloc(ids, (size_t)(nr_ids + 1) * sizeof(*ids));
			if (!n)
				return -ENOMEM;
			ids = n;
			ids[nr_ids].id = id;
			ids[nr_ids++].src = src;
			s->ids = ids;
			s->nr_ids = nr_ids;
		}
	return 0;
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
	for (int c = 0; c < s->nr_cpus; c++)   /* thread 0's fd owns the CPU's ring */
		s->pollfds[s->nr_pollfds++] = (struct pollfd){ .fd = evsel__fd(evsel, c, 0),
							       .events = POLLIN };
	return 0;
}

static int open_events(struct session *s, struct err *e)
{
	bool need_comm = false;
	int ret;

	s->evlists = calloc((size_t)s->nr_src + 1, sizeof(*s->evlists));
	if (!s->evlists)
		return err_set(e, -ENOMEM, "out of memory");
	for (int i = 0; i < s->nr_src; i++) {
		struct source *src = s->src[i];

		src->evsel = new_source_evsel(s, src);
		if (!src->evsel)
			return err_set(e, -ENOMEM, "out of memory");
		if (src->task_fields[0])
			evsel__set_system_wide(src->evsel);
		ret = open_one(s, src->evsel, src->task_fields[0] ? s->any_thread : s->threads,
			       src->counting ? 1 : s->opts.mmap_pages, src->ev->full, src->ev->kind, e);
		if (ret && src->optional) {   /* a counter this machine lacks: a NULL row */
			perf_evlist__delete(s->evlists[--s->nr_evlists]);
			src->evsel = NULL;
			src->unsupported = true;
			e->code = 0;
			continue;
		}
		if (ret)
			return ret;
		if ((ret = add_ids(s, src->evsel, src)))
			return err_set(e, ret, "%s: cannot read event ids", src->ev->full);
		need_comm |= src->need_comm || src->tree_filter || src->need_stack;
		s->need_mmaps |= src->need_stack;
	}
	if (need_comm) {
		s->sideband = new_sideband(s);
		if (!s->sideband)
			return err_set(e, -ENOMEM, "out of memory");
		if ((ret = open_one(s, s->sideband, s->threads, 16, "task-name sideband (dummy event)",
				    EV_SOFTWARE, e)))
			return ret;
		if ((ret = add_ids(s, s->sideband, NULL)))
			return err_set(e, ret, "sideband: cannot read event ids");
		if (!s->comms)
			s->comms = comm_map__new();
		if (!s->comms || comm_map__snapshot(s->comms))
			return err_set(e, -ENOMEM, "cannot read task names from /proc");
	}
	qsort(s->ids, (size_t)s->nr_ids, sizeof(*s->ids), cmp_id);
	return 0;
}

static void for_each_evlist(struct session *s, void (*fn)(struct perf_evlist *))
{
	for (int i = 0; i < s->nr_evlists; i++)
		fn(s->evlists[i]);
}

/*
 * "common_pid != self" keeps perf-sql's own events out of system-wide tables, but not out of
 * scheduler events that name tasks: a switch from perf-sql to a task is that task's
 * switch-in, and leaving it out would break every wakeup->run and off-CPU pairing.
 */
static void self_filter(struct session *s, const struct source *src, char *buf, size_t len)
{
	bool names_tasks = !strcmp(src->ev->system, "sched") &&
			   (field__find(src->ev, "pid") || field__find(src->ev, "next_pid"));

	buf[0] = '\0';
	if ((!s->wl.pid || s->opts.all) && !s->nr_tids && !names_tasks)
		snprintf(buf, len, "common_pid != %d", (int)getpid());
}

/* -p/-t on a scheduler event: "(prev_pid == T || next_pid == T ...)" [&& the query's filter] */
static void task_filter(struct session *s, struct source *src, bool want)
{
	struct kfilter kf = { .len = 0 };
	struct kf_value v[64];
	int nr = s->nr_tids < 64 ? s->nr_tids : 64;
	char one[sizeof(src->filter)];

	src->filter[0] = '\0';
	for (int i = 0; i < nr; i++)
		v[i] = (struct kf_value){ .i = s->tids[i] };
	for (int k = 0; k < 2 && src->task_fields[k]; k++) {
		kf.len = 0;
		kfilter__and(&kf, src->task_fields[k], KF_EQ, v, nr);
		if (kfilter__str(&kf))
			kfilter__or(src->filter, sizeof(src->filter), kfilter__str(&kf));
	}
	if (want && src->filter[0]) {
		snprintf(one, sizeof(one), "%s", src->filter);
		if ((size_t)snprintf(src->filter, sizeof(src->filter), "(%.1070s) && (%.1023s)", one,
				     src->want_filter) >= sizeof(src->filter))
			snprintf(src->filter, sizeof(src->filter), "%s", one);
	}
}

/*
 * Kernel filters: what the dry run asked for (when every scan asked for something), AND
 * "common_pid != self" for system-wide events.
 */
void session__plan_filters(struct session *s)
{
	char self_f[64];

	for (int i = 0; i < s->nr_src; i++) {
		struct source *src = s->src[i];
		bool want = src->nr_scans && !src->want_all && src->want_filter[0];

		self_filter(s, src, self_f, sizeof(self_f));
		if (src->ev->kind != EV_TRACEPOINT) {   /* ftrace filters are for tracepoints */
			src->filter[0] = '\0';
			continue;
		}
		if (src->task_fields[0] && !src->tree_filter) {
			task_filter(s, src, want);
			continue;
		}
		if (want && self_f[0])
			snprintf(src->filter, sizeof(src->filter), "(%s) && %s", src->want_filter, self_f);
		else
			snprintf(src->filter, sizeof(src->filter), "%s", want ? src->want_filter : self_f);
	}
}

/* A filter the kernel rejects falls back to the self filter: SQLite checks every term anyway. */
static void set_filters(struct session *s)
{
	char self_f[64];

	session__plan_filters(s);
	for (int i = 0; i < s->nr_src; i++) {
		struct source *src = s->src[i];

		self_filter(s, src, self_f, sizeof(self_f));
		if (!src->evsel || !src->filter[0] || !evsel__set_filter(src->evsel, src->filter))
			continue;
		src->filter_rejected = true;
		snprintf(src->filter, sizeof(src->filter), "%s", self_f);
		if (self_f[0] && evsel__set_filter(src->evsel, self_f))
			src->filter[0] = '\0';
	}
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

	if (s->replay) {   /* rows come from a capture: nothing to open */
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
	if (s->nr_src && (ret = open_events(s, e)))
		return ret;
	set_filters(s);
	s->started = true;
	s->window_start_ns = now_ns(CLOCK_REALTIME);
	s->window_start_mono = now_ns(CLOCK_MONOTONIC);
	for_each_evlist(s, perf_evlist__enable);
	if (s->wl.pid && s->comms) {
		/* exec renames the task before enable_on_exec turns the sideband on: name it here,
		 * from the start (time 1: after the /proc snapshot's 0, before any record), as the
		 * kernel will (basename of the file); later execs come as COMM records */
		const char *base = strrchr(s->opts.workload[0], '/');

		comm_map__set(s->comms, (uint32_t)s->wl.pid, 1, base ? base + 1 : s->opts.workload[0]);
	}
	tree_add(s, (uint32_t)s->wl.pid);
	if (s->wl.pid && (ret = workload__start(&s->wl, e)))
		return ret;
	s->collecting = true;
	return 0;
}

static struct id_map *find_id(struct session *s, uint64_t id)
{
	struct id_map key = { .id = id };

	return bsearch(&key, s->ids, (size_t)s->nr_ids, sizeof(*s->ids), cmp_id);
}

static void tree_add(struct session *s, uint32_t tid)
{
	u32set__add(&s->tree, tid);
}

static bool tree_has(const struct session *s, uint32_t tid)
{
	return u32set__has(&s->tree, tid);
}

/* a scheduler row of the workload: its task, or a task field, is in the tree */
static bool in_tree(const struct session *s, const struct source *src, const struct sample *smp)
{
	if (tree_has(s, smp->tid))
		return true;
	for (int k = 0; k < 2 && src->task_fields[k]; k++) {
		const struct tp_field *f = field__find(src->ev, src->task_fields[k]);
		int32_t v;

		if (f && f->size == 4 && (uint32_t)f->offset + 4 <= smp->raw_size) {
			memcpy(&v, (const uint8_t *)smp->raw + f->offset, 4);
			if (v > 0 && tree_has(s, (uint32_t)v))
				return true;
		}
	}
	return false;
}

static int stream_of(struct session *s, uint32_t cpu)
{
	return cpu < 1024 ? s->cpu_idx[cpu] : 0;
}

static void handle_sample(struct session *s, const union perf_event *ev)
{
	const uint8_t *body = (const uint8_t *)ev + sizeof(ev->header);
	size_t len = ev->header.size - sizeof(ev->header);
	struct sample smp;
	struct id_map *m;
	uint64_t id;
	int idx, ret;

	if (len < 8)
		return;
	memcpy(&id, body, 8);
	m = find_id(s, id);
	if (!m || !m->src)
		return;
	if (sample__parse(body, len, m->src->sample_type,
			  m->src->need_regs ? UPROBE_REGS_MASK : 0, &smp))
		return;
	if (!(m->src->sample_type & PERF_SAMPLE_PERIOD))
		smp.period = m->src->period_used;
	idx = stream_of(s, smp.cpu);
	if (m->src->tree_filter && !in_tree(s, m->src, &smp)) {
		m->src->filtered[idx]++;
		return;
	}
	if (smp.pid == s->self && m->src->ev->kind != EV_TRACEPOINT) {
		m->src->filtered[idx]++;   /* perf-sql's own samples (tracepoints: filtered in kernel) */
		return;
	}
	/* a process's mappings are read at its first stack, while it is alive */
	if (m->src->need_stack && s->on_new_stack_pid && u32set__add(&s->stack_pids, smp.pid))
		s->on_new_stack_pid(s->stack_ctx, smp.pid);
	ret = window__append(m->src->win, idx, &smp, m->src->need_stack);
	if (ret == 0)
		m->src->received[idx]++;
	else
		m->src->dropped[idx]++;
}

static void handle_side(struct session *s, const union perf_event *ev)
{
	const uint8_t *end = (const uint8_t *)ev + ev->header.size;
	uint64_t time = 0;
	
	if (ev->header.size >= sizeof(ev->header) + 24)
		memcpy(&time, end - 16, 8);   /* sample_id trailer: tid, time, identifier */
	switch (ev->header.type) {
	case PERF_RECORD_COMM:
		if (s->comms)
			comm_map__set(s->comms, ev->comm.tid, time, ev->comm.comm);
		if ((ev->header.misc & PERF_RECORD_MISC_COMM_EXEC) && s->on_mmap &&
		    ev->comm.pid == ev->comm.tid)   /* a new program: its old mappings are gone */
			s->on_mmap(s->stack_ctx, ev->comm.pid, 0, 0, 0, NULL);
		break;
	case PERF_RECORD_MMAP2:
		if (s->on_mmap)
			s->on_mmap(s->stack_ctx, ev->mmap2.pid, ev->mmap2.start, ev->mmap2.len,
				   ev->mmap2.pgoff, ev->mmap2.filename);
		break;
	case PERF_RECORD_FORK:
		if (s->comms)
			comm_map__fork(s->comms, ev->fork.ptid, ev->fork.tid, ev->fork.time);
		if (s->wl.pid && (tree_has(s, ev->fork.ptid) || tree_has(s, ev->fork.pid)))
			tree_add(s, ev->fork.tid);
		break;
	case PERF_RECORD_LOST:   /* counted through the kernel's event counts instead */
	default:
		break;
	}
}

static void drain_one(struct session *s, struct perf_evlist *evlist)
{
	struct perf_mmap *map;
	union perf_event *ev;

	perf_evlist__for_each_mmap(evlist, map, false) {
		if (perf_mmap__read_init(map) < 0)
			continue;
		while ((ev = perf_mmap__read_event(map)) != NULL) {
			if (ev->header.type == PERF_RECORD_SAMPLE)
				handle_sample(s, ev);
			else
				handle_side(s, ev);
			perf_mmap__consume(map);
		}
		perf_mmap__read_done(map);
	}
}

static void drain(struct session *s)
{
	for (int i = 0; i < s->nr_evlists; i++)
		drain_one(s, s->evlists[i]);
}

/*
 * Counts from the kernel, read before the last drain of a window: val (events that happened,
 * children of an inherited event included) and lost (PERF_FORMAT_LOST, this fd only).
 */
static void read_counts(struct session *s)
{
	int nthr = s->threads ? perf_thread_map__nr(s->threads) : 0;

	for (int i = 0; i < s->nr_src; i++) {
		struct source *src = s->src[i];

		src->enabled_ns = src->running_ns = 0;   /* cumulative, summed over CPUs */
		for (int c = 0; c < s->nr_cpus; c++) {
			uint64_t val = 0, lost = 0;

			for (int t = 0; t < nthr; t++) {
				struct perf_counts_values v = { 0 };

				if (src->evsel && !perf_evsel__read(src->evsel, c, t, &v)) {
					val += v.val;
					lost += v.lost;
					src->enabled_ns += v.ena;
					src->running_ns += v.run;
				}
			}
			src->count_seen[c] = val;
			src->lost_samples[c] = lost;
		}
	}
}

/*
 * Lost in this window = events the kernel counted - events received - losses already
 * reported, all cumulative. Counts were read before the final drain, so every counted event
 * is either received or lost by now; events after the read can only make this low for one
 * window, never high, and the next window catches up. Inherited children's losses are
 * included (PERF_FORMAT_LOST alone misses them; LOST records come late or never).
 */
static void account_lost(struct session *s)
{
	for (int i = 0; i < s->nr_src; i++) {
		struct source *src = s->src[i];

		for (int c = 0; c < s->nr_cpus; c++) {
			if (src->counting)   /* nothing to lose: this window's rows are the count */
				src->received[c] = src->count_seen[c] - src->received_all[c];
			if (!src->counting && src->period_used != 1) {
				/* sampled every N events or at a frequency: the count is not a number of
				 * samples, so the kernel's PERF_FORMAT_LOST is the measure */
				src->lost[c] = src->lost_samples[c] - src->lost_all[c] + src->dropped[c];
				src->lost_all[c] = src->lost_samples[c];
				src->total_lost += src->lost[c];
				src->total_received += src->received[c];
				continue;
			}
			uint64_t got = src->received_all[c] + src->received[c] + src->dropped[c] +
				       src->filtered[c];
			uint64_t missing = src->count_seen[c] > got ? src->count_seen[c] - got : 0;

			src->lost[c] = missing > src->lost_all[c] ? missing - src->lost_all[c] : 0;
			src->lost[c] += src->dropped[c];
			src->lost_all[c] += src->lost[c] - src->dropped[c];
			src->received_all[c] += src->received[c] + src->dropped[c] + src->filtered[c];
			src->total_lost += src->lost[c];
			src->total_received += src->received[c];
		}
	}
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
	}
	for (int i = 0; i < s->nr_extra; i++)
		s->extra[i].received = s->extra[i].lost = 0;
	s->window_start_ns = now_ns(CLOCK_REALTIME);
	s->window_start_mono = now_ns(CLOCK_MONOTONIC);
	s->nr_windows++;
}

static int end_window(struct session *s, window_fn fn, void *ctx)
{
	int ret;

	read_counts(s);
	drain(s);
	account_lost(s);
	ret = fn(ctx, s);
	session__clear_window(s);
	return ret;
}

/* -p/-t: every target has exited (threads they created are followed while one lives) */
static bool targets_gone(struct session *s)
{
	for (int i = 0; i < s->nr_tids; i++)
		if (kill(s->tids[i], 0) == 0 || errno != ESRCH)
			return false;
	return s->nr_tids > 0;
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
	uint64_t stop_at = s->opts.duration_ms ? start + (uint64_t)s->opts.duration_ms * 1000000 : UINT64_MAX;
	uint64_t next = s->opts.interval_ms ? start + (uint64_t)s->opts.interval_ms * 1000000 : UINT64_MAX;
	int ret = 0;

	if (s->replay)
		return session__run_replay(s, on_window, ctx, e);
	/* nothing to collect and nothing to wait for: answer at once */
	if (!s->nr_src && !s->wl.pid && !s->opts.duration_ms)
		return on_window(ctx, s);
	while (!session_stop && !ret) {
		long timeout;

		now = now_ns(CLOCK_MONOTONIC);
		if (now >= stop_at || workload__poll(&s->wl) || targets_gone(s))
			break;
		timeout = ms_until(next < stop_at ? next : stop_at, now);
		if (timeout > 100)
			timeout = 100;   /* bounds the delay to notice a workload's exit */
		poll(s->pollfds, (nfds_t)s->nr_pollfds, (int)timeout);
		drain(s);
		now = now_ns(CLOCK_MONOTONIC);
		if (now >= next && now < stop_at) {
			ret = end_window(s, on_window, ctx);
			next += (uint64_t)s->opts.interval_ms * 1000000;
			if (next < now)
				next = now + (uint64_t)s->opts.interval_ms * 1000000;
		}
	}
	for_each_evlist(s, perf_evlist__disable);
	s->collecting = false;
	if (!ret)
		ret = end_window(s, on_window, ctx);
	return ret ? err_set(e, ret < 0 ? ret : -EIO, "query failed") : 0;
}

void session__close(struct session *s)
{
	if (!s)
		return;
	workload__kill(&s->wl);
	for (int i = 0; i < s->nr_evlists; i++) {
		if (i < s->nr_open)   /* an evlist whose open failed has no fds to disable */
			perf_evlist__disable(s->evlists[i]);
		perf_evlist__delete(s->evlists[i]);   /* unmaps, closes, deletes its evsel */
	}
	free(s->evlists);
	free(s->pollfds);
	for (int i = 0; i < s->nr_src; i++)
		source__free(s->src[i]);
	free(s->src);
	free(s->ids);
	comm_map__free(s->comms);
	perf_cpu_map__put(s->cpus);
	perf_thread_map__put(s->threads);
	perf_thread_map__put(s->any_thread);
	free(s->tids);
	u32set__free(&s->tree);
	u32set__free(&s->stack_pids);
	if (s->stack_ctx_free)
		s->stack_ctx_free(s->stack_ctx);
	catalog__free(s->cat);
	if (s->replay_free)
		s->replay_free(s->replay);
	free(s);
}
