/*
 * core/target.c - CPUs, task targets and task filters (see core/target.h).
 *
 * (1) CPUs: -C must name online CPUs; stream i of every window store holds CPU cpu_num[i].
 * (2) Tasks: -p expands each process to its threads (/proc/PID/task), -t takes threads as
 *     given, --cgroup reads the cgroup's threads; each must exist when the session starts.
 * (3) Per-task events follow the targets and what they create (inherit). Events that name
 *     tasks are opened on every CPU instead (a per-task event misses the wakeup of a sleeping
 *     task); the targets' tree is known only as it forks, so their rows are picked in user
 *     space (core/tree.c): no kernel filter can name a task not created yet.
 * (4) perf-sql leaves itself out of system-wide tracepoints with "common_pid != self", of
 *     tables that names tasks by their task fields (target__self_filter()).
 */
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <perf/cpumap.h>
#include "core/field.h"
#include "core/kfilter.h"
#include "core/target.h"

/* the kernel's nr_cpu_ids: the highest possible CPU + 1 (0 if unknown) */
static int possible_cpu_ids(void)
{
	FILE *f = fopen("/sys/devices/system/cpu/possible", "re");
	struct perf_cpu_map *m = f ? perf_cpu_map__read(f) : NULL;
	int n = m && !perf_cpu_map__empty(m) ? perf_cpu_map__max(m).cpu + 1 : 0;

	perf_cpu_map__put(m);
	if (f)
		fclose(f);
	return n;
}

int target__map_cpus(struct session *s, const int *cpus, int nr, struct err *e)
{
	int nr_ids = possible_cpu_ids(), *num, *idx;

	if (nr < 1)
		return err_set(e, -EINVAL, "no CPU to collect on");
	for (int i = 0; i < nr; i++) {
		if (cpus[i] < 0 || cpus[i] >= CPU_NR_MAX)
			return err_set(e, -EINVAL, "cpu %d: not a CPU number (0 to %d)", cpus[i],
				       CPU_NR_MAX - 1);
		if (cpus[i] >= nr_ids)
			nr_ids = cpus[i] + 1;
	}
	num = calloc((size_t)nr, sizeof(*num));
	idx = malloc((size_t)nr_ids * sizeof(*idx));
	if (!num || !idx) {
		free(num);
		free(idx);
		return err_set(e, -ENOMEM, "out of memory");
	}
	for (int c = 0; c < nr_ids; c++)
		idx[c] = -1;
	for (int i = 0; i < nr; i++) {
		if (idx[cpus[i]] >= 0) {
			free(num);
			free(idx);
			return err_set(e, -EINVAL, "cpu %d: listed twice", cpus[i]);
		}
		num[i] = cpus[i];
		idx[cpus[i]] = i;
	}
	free(s->cpu_num);
	free(s->cpu_idx);
	s->cpu_num = num;
	s->cpu_idx = idx;
	s->nr_cpus = nr;
	s->nr_cpu_ids = nr_ids;
	return 0;
}

int target__set_cpus(struct session *s, struct perf_cpu_map *map, struct err *e)
{
	int nr = map ? perf_cpu_map__nr(map) : 0, ret;
	int *cpus = calloc(nr > 0 ? (size_t)nr : 1, sizeof(*cpus));

	if (!cpus)
		return err_set(e, -ENOMEM, "out of memory");
	for (int i = 0; i < nr; i++)
		cpus[i] = perf_cpu_map__cpu(map, i).cpu;
	ret = target__map_cpus(s, cpus, nr, e);
	free(cpus);
	if (ret)
		return ret;
	if (s->cpus != map) {
		perf_cpu_map__put(s->cpus);
		s->cpus = perf_cpu_map__get(map);
	}
	return 0;
}

/* -C: the listed CPUs, each of which must be online */
int target__open_cpus(struct session *s, struct err *e)
{
	struct perf_cpu_map *online = perf_cpu_map__new(NULL), *cpus;
	char list[4096] = "?";
	FILE *f = fopen("/sys/devices/system/cpu/online", "re");
	int ret;

	if (f) {
		if (!fgets(list, sizeof(list), f))
			list[0] = '\0';
		list[strcspn(list, "\n")] = '\0';
		fclose(f);
	}
	cpus = s->opts.cpu_list ? perf_cpu_map__new(s->opts.cpu_list) : perf_cpu_map__get(online);
	if (!online || !cpus || perf_cpu_map__empty(cpus))
		goto bad;
	for (int i = 0; i < perf_cpu_map__nr(cpus); i++)
		if (!perf_cpu_map__has(online, perf_cpu_map__cpu(cpus, i)))
			goto bad;
	ret = target__set_cpus(s, cpus, e);
	perf_cpu_map__put(cpus);
	perf_cpu_map__put(online);
	return ret;
bad:
	perf_cpu_map__put(cpus);
	perf_cpu_map__put(online);
	err_set(e, -EINVAL, "-C %s: not a list of online CPUs",
		s->opts.cpu_list ? s->opts.cpu_list : "");
	err_hint(e, "online CPUs: %s (e.g. -C 0 or -C 0-1)", list);
	return err_usage(e);
}

/* a target thread, once (a thread named twice would be opened, and counted, twice) */
static int add_tid(struct session *s, pid_t tid)
{
	pid_t *n;

	if (u32set__has(&s->targets, (uint32_t)tid))
		return 0;
	n = realloc(s->tids, (size_t)(s->nr_tids + 1) * sizeof(*n));
	if (!n)
		return -ENOMEM;
	s->tids = n;
	if (!u32set__add(&s->targets, (uint32_t)tid))
		return -ENOMEM;
	s->tids[s->nr_tids++] = tid;
	return 0;
}

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

int target__read(struct session *s, struct err *e)
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

			if (end == p || id <= 0 || (*end && *end != ',')) {
				err_set(e, -EINVAL, "%s %s: expected a comma-separated list of ids",
					k ? "-t" : "-p", lists[k]);
				return err_usage(e);
			}
			snprintf(path, sizeof(path), k ? "/proc/%ld/task/%ld" : "/proc/%ld/task",
				 id, id);
			if (access(path, F_OK)) {
				err_set(e, -ESRCH, "%s %ld: no such %s", k ? "-t" : "-p", id,
					k ? "thread" : "process");
				return err_hint(e, "check it with: ps -p %ld", id);
			}
			if (k && add_tid(s, (pid_t)id))
				return err_set(e, -ENOMEM, "out of memory");
			for (dir = k ? NULL : opendir(path); dir && (d = readdir(dir));)
				if (atoi(d->d_name) > 0 && add_tid(s, atoi(d->d_name))) {
					closedir(dir);
					return err_set(e, -ENOMEM, "out of memory");
				}
			if (dir)
				closedir(dir);
			p = *end ? end + 1 : end;
		}
	}
	return 0;
}

/*
 * perf-sql leaves itself out of system-wide tables (not of a task target's: it is not one).
 * "common_pid != self" leaves out the events its thread runs. Of a table that names tasks,
 * only the rows that name no task but perf-sql and the idle task (0) are its own (its
 * switches to and from idle, its wakeups): a switch from perf-sql to a task is that task's
 * switch-in, and leaving it out would break every wakeup->run and off-CPU pairing; a wakeup
 * in an interrupt that lands in perf-sql is the woken task's. bpf/who.c does the same.
 */
void target__self_filter(struct session *s, const struct source *src, char *buf, size_t len)
{
	const char *f[2];
	int n = session__task_fields(src->ev, f), self = (int)getpid();

	buf[0] = '\0';
	if ((s->wl.pid && !s->opts.all) || s->nr_tids)
		return;
	if (n == 2)
		snprintf(buf, len, "((%s != %d && %s != 0) || (%s != %d && %s != 0))", f[0], self,
			 f[0], f[1], self, f[1]);
	else if (n == 1)
		snprintf(buf, len, "(%s != %d && %s != 0)", f[0], self, f[0]);
	else
		snprintf(buf, len, "common_pid != %d", self);
}

/* why the query's filter is not in the kernel, where the query has one */
static void note_want(struct session *s, struct source *src, bool want)
{
	if (src->want_too_long)
		plan_note__add(src, PLAN_FILTER,
			       "a WHERE filter is too long for one kernel filter (%d bytes): "
			       "not set in the kernel",
			       KFILTER_MAX - 1);
	if (s->no_pushdown)
		plan_note__add(src, PLAN_FILTER, "--no-pushdown: no WHERE filter in the kernel");
	if (want && src->ev->kind != EV_TRACEPOINT)
		plan_note__add(src, PLAN_FILTER,
			       "not a tracepoint: no kernel filter (the WHERE filter is applied "
			       "in user space)");
}

/*
 * Kernel filters: what the dry run asked for (when every scan asked for something), AND
 * "common_pid != self" for system-wide events.
 * Whatever is wanted and not set gets a sentence in its PLAN_FILTER note.
 */
void session__plan_filters(struct session *s)
{
	char self_f[120];

	for (int i = 0; i < s->nr_src; i++) {
		struct source *src = s->src[i];
		bool want = src->nr_scans && !src->want_all && src->want_filter[0];

		plan_note__set(src, PLAN_FILTER, NULL);
		note_want(s, src, want);
		target__self_filter(s, src, self_f, sizeof(self_f));
		if (src->ev->kind != EV_TRACEPOINT) { /* ftrace filters are for tracepoints */
			src->filter[0] = '\0';
			continue;
		}
		if (src->user_str) { /* the rows are a BPF program's: perf-sql left out there */
			src->filter[0] = '\0';
			if (want)
				plan_note__add(src, PLAN_FILTER,
					       "the rows come from a BPF program (user strings): "
					       "the WHERE filter is applied in user space");
			continue;
		}
		/* want_filter leaves room for the self filter (see core/kfilter.h) */
		if (want && self_f[0])
			snprintf(src->filter, sizeof(src->filter), "(%s) && %s", src->want_filter,
				 self_f);
		else
			snprintf(src->filter, sizeof(src->filter), "%s",
				 want ? src->want_filter : self_f);
	}
}

bool target__gone(struct session *s)
{
	for (int i = 0; i < s->nr_tids; i++)
		if (kill(s->tids[i], 0) == 0 || errno != ESRCH)
			return false;
	return s->nr_tids > 0;
}
