/*
 * tests/unit/test_tree.c - the workload's process tree (core/tree.c), through the ring's
 * dispatch as the kernel's records would arrive: a fake sched_switch table and session, no
 * event opened.
 * (1) The workload is a member from its exec (the sideband's first COMM with the exec flag):
 *     rows about it from before, perf-sql's child waiting to exec, are not the tree's.
 * (2) A child's rows read before its parent's FORK record (another CPU's ring) are the tree's:
 *     rows are held until the drain's sideband records are read.
 * (3) A row is the tree's when a task it names is a member at its time; the task it ran in
 *     does not make it the tree's. A member's tid forked again starts a new life.
 */
#include <stdlib.h>
#include <string.h>
#include <linux/perf_event.h>
#include <perf/cpumap.h>
#include "core/ring.h"
#include "core/target.h"
#include "t.h"
#include "t_switch.h"

#define SW_ID 9
#define SIDE_ID 10
#define ROOT 500

static char *const argv[] = { "cmd", NULL };

/* a session on CPUs 0-1 with a workload whose pid is ROOT, and its sched_switch table */
static struct session *fake_session(struct source **src_out)
{
	struct session *s = calloc(1, sizeof(*s));
	struct perf_cpu_map *map = perf_cpu_map__new("0-1");
	struct err e = { 0 };

	s->wl.go_fd = s->wl.err_fd = -1;
	s->budget = 1 << 20;
	s->opts.workload = argv;
	T(target__set_cpus(s, map, &e) == 0, "cpus: %s", e.msg);
	perf_cpu_map__put(map);
	*src_out = session__source(s, &sched_switch, &e);
	T(*src_out && (*src_out)->tree_filter && s->tree.active,
	  "a workload's sched_switch: the tree's");
	(*src_out)->sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
				  PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD | PERF_SAMPLE_RAW;
	s->ids = calloc(2, sizeof(*s->ids));
	s->ids[0] = (struct id_map){ .id = SW_ID, .src = *src_out };
	s->ids[1] = (struct id_map){ .id = SIDE_ID, .src = NULL };
	s->nr_ids = 2;
	s->evsrc[s->nr_evsrc++] = &ring_source;
	s->tree.root = ROOT;
	return s;
}

/* a sched_switch sample from prev to next, run in task tid, at time, on CPU 1 */
static void sw(struct session *s, int32_t tid, int32_t prev, int32_t next, uint64_t time)
{
	switch_sample(s, SW_ID, tid, prev, next, time);
}
/* the sideband's FORK record: parent made child at time */
static void fork_rec(struct session *s, uint32_t parent, uint32_t child, uint64_t time)
{
	fork_record(s, SIDE_ID, parent, child, time);
}
/* the sideband's COMM record of an exec of tid at time */
static void exec_rec(struct session *s, uint32_t tid, uint64_t time)
{
	struct {
		struct perf_event_header h;
		uint32_t pid, tid;
		char comm[16];
		uint32_t id_pid, id_tid;
		uint64_t id_time, id;
	} r = { { PERF_RECORD_COMM, PERF_RECORD_MISC_COMM_EXEC, sizeof(r) },
		tid,
		tid,
		"cmd",
		tid,
		tid,
		time,
		SIDE_ID };

	ring__handle(s, (const union perf_event *)&r);
}

/* the end of a drain: held rows decided; returns the rows kept on CPU 1 so far */
static uint64_t drained(struct session *s, struct source *src)
{
	s->evsrc[0]->drain(s);
	return src->received[1];
}

static void test_exec(void)
{
	struct source *src;
	struct session *s = fake_session(&src);

	sw(s, 1, 1, ROOT, 100); /* perf-sql's child waits to exec: in, out */
	sw(s, ROOT, ROOT, 1, 150);
	T(drained(s, src) == 0 && src->filtered[1] == 2, "before its exec: not the tree's");
	sw(s, ROOT, ROOT, 1, 250); /* read before the exec's record, in the same drain */
	exec_rec(s, ROOT, 200);
	T(drained(s, src) == 1, "from its exec on: the tree's");
	sw(s, 7, 7, 8, 300);
	T(drained(s, src) == 1 && src->filtered[1] == 3, "other tasks' switch: not the tree's");
	session__close(s);
}

static void test_order(void)
{
	struct source *src;
	struct session *s = fake_session(&src);

	exec_rec(s, ROOT, 100);
	drained(s, src);
	/* CPU 1's table ring is read before CPU 0's sideband ring: the child's rows first */
	sw(s, 1, 1, 601, 320); /* an idle CPU switches to the grandchild */
	sw(s, 601, 601, 1, 330);
	sw(s, 600, 600, 9, 310); /* the child switches to another task */
	fork_rec(s, ROOT, 600, 200);
	fork_rec(s, 600, 601, 300);
	T(drained(s, src) == 3 && src->filtered[1] == 0,
	  "the tree's rows read before its forks: "
	  "kept (%llu kept, %llu filtered)",
	  (unsigned long long)src->received[1], (unsigned long long)src->filtered[1]);
	sw(s, 9, 9, 602, 400); /* a task not forked by the tree */
	T(drained(s, src) == 3 && src->filtered[1] == 1, "a task outside the tree: filtered");
	session__close(s);
}

static void test_whose(void)
{
	struct source *src;
	struct session *s = fake_session(&src);

	exec_rec(s, ROOT, 100);
	fork_rec(s, ROOT, 600, 500);
	sw(s, ROOT, 3, 4, 200); /* ran in a member, names others: theirs */
	sw(s, 3, 3, 600, 400);  /* names the child before its fork: a tid's other life */
	sw(s, 3, 3, 600, 600);  /* the child switched in by another task: the tree's */
	T(drained(s, src) == 1 && src->filtered[1] == 2,
	  "rows about members at their time only "
	  "(%llu kept)",
	  (unsigned long long)src->received[1]);
	fork_rec(s, ROOT, 600, 900); /* its tid forked again: a member from then on */
	sw(s, 3, 3, 600, 700);
	sw(s, 3, 3, 600, 950);
	T(drained(s, src) == 2, "a tid forked again: a member from its new fork");
	session__close(s);
}

int main(void)
{
	RUN(test_exec);
	RUN(test_order);
	RUN(test_whose);
	return t_done("tree");
}
