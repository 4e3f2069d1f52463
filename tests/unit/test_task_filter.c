/*
 * tests/unit/test_task_filter.c - -p/-t on a scheduler table (issues 12, 13): the rows that
 * name a target, or a task a target created after the start, picked in user space (no kernel
 * filter can name a task not created yet; core/tree.c), whatever the number of targets, and a
 * note wherever a wanted filter is not set in the kernel. A fake sched_switch and session; no
 * event is opened.
 */
#include <stdlib.h>
#include <string.h>
#include <linux/perf_event.h>
#include <perf/cpumap.h>
#include "core/ring.h"
#include "core/target.h"
#include "t.h"
#include "t_switch.h"

#define FAKE_ID 9

/* a session on CPUs 0-1 whose targets are nr threads first, first+1, ... */
static struct session *fake_session(int nr, int first, struct source **src_out)
{
	struct session *s = calloc(1, sizeof(*s));
	struct perf_cpu_map *map = perf_cpu_map__new("0-1");
	struct err e = { 0 };

	s->wl.go_fd = s->wl.err_fd = -1;
	s->budget = 1 << 20;
	T(target__set_cpus(s, map, &e) == 0, "cpus: %s", e.msg);
	perf_cpu_map__put(map);
	s->tids = calloc((size_t)nr, sizeof(*s->tids));
	for (int i = 0; i < nr; i++) {
		s->tids[i] = first + i;
		u32set__add(&s->targets, (uint32_t)(first + i));
	}
	s->nr_tids = nr;
	*src_out = session__source(s, &sched_switch, &e);
	T(*src_out && (*src_out)->task_fields[0] && (*src_out)->need_raw,
	  "-p on sched_switch: task fields, raw data read");
	(*src_out)->sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
				  PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD | PERF_SAMPLE_RAW;
	s->ids = calloc(1, sizeof(*s->ids));
	s->ids[0] = (struct id_map){ .id = FAKE_ID, .src = *src_out };
	s->nr_ids = 1;
	s->evsrc[s->nr_evsrc++] = &ring_source;
	return s;
}

static void dry_scan(struct source *src, const char *name, long long v)
{
	struct kfilter kf = { .len = 0 };
	struct kf_value val = { .i = v };

	kfilter__and(&kf, name, KF_EQ, &val, 1);
	source__dry_scan(src, &kf);
}

/* a sched_switch sample from prev to next on CPU 1 */
static void deliver(struct session *s, int32_t prev, int32_t next)
{
	switch_sample(s, FAKE_ID, prev, prev, next, 1000);
}
/* the sideband's FORK record: parent made child (at time 500) */
static void fork_rec(struct session *s, uint32_t parent, uint32_t child)
{
	fork_record(s, FAKE_ID + 1, parent, child, 500);
}
static void test_targets(int nr)
{
	struct source *src;
	struct session *s = fake_session(nr, 20000, &src);

	session__plan_filters(s);
	T(src->tree_filter && !src->filter[0], "%d targets: no kernel filter, the tree's rows", nr);
	dry_scan(src, "prev_state", 1);
	session__plan_filters(s);
	T(!strcmp(src->filter, "prev_state == 1"), "the query's filter alone: %s", src->filter);
	s->tree.stat = -1;
	for (int i = 0; i < s->nr_tids; i++) /* as session__start makes them members */
		tree__add(&s->tree, (uint32_t)s->tids[i]);
	deliver(s, 20000, 0);          /* a target switches out */
	deliver(s, 5, 20000 + nr - 1); /* a target switches in */
	deliver(s, 5, 6);              /* neither */
	deliver(s, 19999, 20000 + nr); /* neither: just outside the targets */
	deliver(s, 7, 30000);          /* a child a target creates, read before its fork */
	fork_rec(s, 20000, 30000);
	s->evsrc[0]->drain(s); /* the drain's end: held rows decided */
	T(src->received[1] == 3 && src->filtered[1] == 2,
	  "3 rows of the targets' tree kept, 2 "
	  "others filtered (got %llu, %llu)",
	  (unsigned long long)src->received[1], (unsigned long long)src->filtered[1]);
	session__close(s);
}

static void test_few_targets(void) { test_targets(2); }

static void test_many_targets(void) { test_targets(500); }

static void test_notes(void)
{
	struct source *src;
	struct session *s = fake_session(2, 101, &src);
	struct kfilter kf = { .len = 0 };
	struct kf_value vals[400];

	for (int i = 0; i < 400; i++)
		vals[i] = (struct kf_value){ .i = 1000000 + i };
	kfilter__and(&kf, "prev_state", KF_EQ, vals, 400);
	T(kf.overflow && !kfilter__str(&kf), "a WHERE filter of 400 values is too long");
	source__dry_scan(src, &kf);
	session__plan_filters(s);
	T(plan_note__of(src, PLAN_FILTER) &&
		  strstr(plan_note__of(src, PLAN_FILTER), "too long for one kernel filter"),
	  "noted: %s", plan_note__of(src, PLAN_FILTER));
	T(!src->filter[0], "no filter in the kernel: %s", src->filter);
	session__close(s);
}

static void test_or(void)
{
	char out[40] = "a == 1";

	T(kfilter__or(out, sizeof(out), "b == 2") && !strcmp(out, "(a == 1) || (b == 2)"), "%s",
	  out);
	T(kfilter__or(out, sizeof(out), "b == 2") && !strcmp(out, "(a == 1) || (b == 2)"),
	  "a repeated filter is not added twice");
	T(!kfilter__or(out, sizeof(out), "c == 3333333333333") &&
		  !strcmp(out, "(a == 1) || (b == 2)"),
	  "too long: refused, out unchanged: %s", out);
}

int main(void)
{
	RUN(test_few_targets);
	RUN(test_many_targets);
	RUN(test_notes);
	RUN(test_or);
	return t_done("task_filter");
}
