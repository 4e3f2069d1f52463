/*
 * engine/explain.c - --explain and -v: per table, what is opened in the kernel, what is sampled,
 * which ring it uses and what is filtered where (docs/planning.md). Written to the caller's
 * stream: the front end decides where it goes.
 */
#include <stdio.h>
#include <linux/perf_event.h>
#include "core/cgroup.h"
#include "engine/bpf_plan.h"
#include "engine/query.h"

static void sample_type_names(uint64_t st, char *buf, size_t len)
{
	static const struct {
		uint64_t bit;
		const char *name;
	} bits[] = {
		{ PERF_SAMPLE_IDENTIFIER, "IDENTIFIER" },
		{ PERF_SAMPLE_IP, "IP" },
		{ PERF_SAMPLE_TID, "TID" },
		{ PERF_SAMPLE_TIME, "TIME" },
		{ PERF_SAMPLE_ADDR, "ADDR" },
		{ PERF_SAMPLE_CPU, "CPU" },
		{ PERF_SAMPLE_PERIOD, "PERIOD" },
		{ PERF_SAMPLE_CALLCHAIN, "CALLCHAIN" },
		{ PERF_SAMPLE_RAW, "RAW" },
		{ PERF_SAMPLE_REGS_USER, "REGS_USER" },
		{ PERF_SAMPLE_STACK_USER, "STACK_USER" },
		{ PERF_SAMPLE_CGROUP, "CGROUP" },
	};
	size_t off = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < sizeof(bits) / sizeof(bits[0]); i++)
		if (st & bits[i].bit)
			off += (size_t)snprintf(buf + off, len - off, "%s%s", off ? "|" : "",
						bits[i].name);
}

/* the target line: which tasks' rows, decided where (kernel filter or user space) */
static void explain_target(const struct session *s, const struct source *src, FILE *f)
{
	const char *f0 = src->task_fields[0], *f1 = src->task_fields[1], *names[2];

	if (src->tree_filter && !f0) /* a BPF program's rows (bpf/user_str.c) */
		fprintf(f,
			"  target       every CPU; a row is kept when its task is in the targets' "
			"process tree (core/tree.c), the workload's from its exec\n");
	else if (src->tree_filter)
		fprintf(f,
			"  target       every CPU; a row is kept when a task it names (the task, "
			"or "
			"%s%s%s) is in the targets' process tree (core/tree.c): a per-task event "
			"misses wakeups\n",
			f0 ? f0 : "", f1 ? "/" : "", f1 ? f1 : "");
	else if (f0)
		fprintf(f,
			"  target       every CPU, filtered on %s%s%s (a per-task event would miss "
			"wakeups)\n",
			f0, f1 ? "/" : "", f1 ? f1 : "");
	else if (s->nr_tids)
		fprintf(f, "  target       %d thread%s (inherit: new threads followed), %d CPUs\n",
			s->nr_tids, s->nr_tids == 1 ? "" : "s", s->nr_cpus);
	else if (s->wl.pid && !s->opts.all)
		fprintf(f,
			"  target       workload pid %d and its children (inherit, "
			"enable_on_exec), "
			"%d CPUs\n",
			(int)s->wl.pid, s->nr_cpus);
	else if (session__task_fields(src->ev, names) && src->ev->kind == EV_TRACEPOINT)
		fprintf(f,
			"  target       every task on %d CPUs (perf-sql's own rows left out: those "
			"whose %s%s%s name no task but perf-sql and the idle task)\n",
			s->nr_cpus, names[0], names[1] ? "/" : "", names[1] ? names[1] : "");
	else
		fprintf(f, "  target       every task on %d CPUs (perf-sql itself left out)\n",
			s->nr_cpus);
}

/* _cgroup: where its ids come from and how they are named, or why it is NULL */
void query__explain_cgroup(const struct session *s, bool kernel, FILE *f)
{
	const char *root = cgroup_map__root(s->cgroups), *from;

	from = kernel ? "bpf_get_current_cgroup_id()" : "PERF_SAMPLE_CGROUP";
	if (s->cgroup_note[0] && (!kernel || !root || s->replay))
		fprintf(f, "  cgroup       %s\n", s->cgroup_note);
	else if (s->replay && !kernel && !s->cgroup_ring)
		fprintf(f,
			"  cgroup       the ids the rows carry, named by the capture's CGROUPS\n");
	else if (s->replay)
		fprintf(f,
			"  cgroup       v2 ids (%s), named by a walk of the v2 hierarchy where it "
			"runs\n",
			from);
	else
		fprintf(f,
			"  cgroup       v2 ids (%s) named by a walk of %s (again at an id not "
			"known) and PERF_RECORD_CGROUP (a cgroup made since, even once removed)\n",
			from, root);
}

/* --explain / -v: per table, what is opened, sampled and filtered where. */
void query__explain(struct session *s, FILE *f)
{
	char st[256];

	if (!s->started)
		session__plan_filters(s);
	for (int i = 0; i < s->nr_src; i++) {
		struct source *src = s->src[i];

		sample_type_names(source__sample_type(src), st, sizeof(st));
		fprintf(f, "table %s\n", src->ev->full);
		if (bpf_pick__explain(s, src, f)) /* in the kernel: no perf event, ring, filter */
			continue;
		if (src->user_str)
			fprintf(f,
				"  event        type=software config=BPF_OUTPUT (%d) on every CPU, "
				"sample_period=1: the rows of %s as its BPF program writes them\n",
				PERF_COUNT_SW_BPF_OUTPUT, src->ev->full);
		else if (src->ev->kind == EV_TRACEPOINT)
			fprintf(f, "  event        type=tracepoint config=%d (%s) %s\n",
				src->ev->id, src->ev->full,
				!source__counts(src) ? "sample_period=1"
						     : "counting (no column is read)");
		else
			fprintf(f, "  event        type=%s (%u) config=%#llx %s\n",
				event_kind_name(src->ev->kind), src->ev->pmu_type,
				(unsigned long long)src->ev->pmu_config,
				source__counts(src) ? "counting (no column is read)"
				: src->hz           ? "sampled at the asked rate"
				: src->period       ? "sampled every period events"
						    : "sampled at the default rate");
		fprintf(f, "  sample_type  %s\n", !source__counts(src) ? st : "none");
		explain_target(s, src, f);
		if (source__counts(src))
			fprintf(f, "  ring         none needed (1 page per CPU, unused)\n");
		else
			fprintf(f, "  ring         %d pages per CPU, wakeup at a quarter full\n",
				s->opts.mmap_pages);
		fprintf(f, "  kernel filter %s%s\n", src->filter[0] ? src->filter : "(none)",
			src->filter_rejected ? "  [rejected by the kernel: user space only]" : "");
		fprintf(f, "  from WHERE   %s\n",
			!src->want_all && src->want_filter[0]
				? src->want_filter
				: "nothing the kernel can test (or a scan needs every row)");
		if (plan_note__of(src,
				  PLAN_FILTER)) /* a filter wanted, not set: never in silence */
			fprintf(f, "  filter note  %s\n", plan_note__of(src, PLAN_FILTER));
		if (src->need_cgroup)
			query__explain_cgroup(s, false, f);
		fprintf(f, "  user space   SQLite checks every WHERE term again\n");
	}
	if (!s->nr_src)
		fprintf(f, "no event tables: nothing is opened\n");
}
