/*
 * core/tree.c - the followed tasks and the rows that are theirs (see core/tree.h).
 *
 * HOW IT WORKS
 * (1) Members. The sideband event is opened on the workload (or the -p/-t/--cgroup threads,
 *     members from the start) with inherit, so the kernel copies it into every task they
 *     create, and the FORK records it writes are forks by members only: each one's child is a
 *     member from the FORK's time. The workload becomes a member at its exec (the sideband is
 *     enable_on_exec, so its first COMM record with the exec flag is that exec): rows of the
 *     child perf-sql forked, from before it runs CMD, are perf-sql's own. A task stays a member after its EXIT record, which comes before its
 *     last switches (a dying task can be preempted and switched in again before its final
 *     switch out); its tid starts a new life if a member forks it again. (A tid the kernel
 *     gives to a task outside the tree, once its pid allocator wraps around pid_max, would
 *     be taken for the old member.)
 * (2) Order. Records of different rings arrive out of order: a child's first rows may be read
 *     from one CPU's ring before its parent's FORK record is read from another. A fork is
 *     written before anything about the child happens, and each drain reads the sideband
 *     rings after every table's ring, so every FORK written before a row read in this drain
 *     is read in this drain too. The rows of the tables that keep only the tree's rows are
 *     held (copied) during a drain and decided once the drain's sideband is read, in the
 *     order they were read (each CPU's rows stay in time order).
 * (3) Whose row. A row of a table that names tasks in fields (prev_pid/next_pid, pid,
 *     parent_pid/child_pid) is about those tasks: it is the tree's when one of them is a
 *     member at the row's time, whoever ran it (a wakeup of a member by an interrupt, the
 *     switch into a member from another task). A wakeup a member did of another task is that
 *     task's row, not the tree's.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "core/field.h"
#include "core/session.h"
#include "core/tree.h"

/* a tid's latest life in the tree, from since (perf clock ns) on, in process pid (0: unknown) */
struct tree_task {
	uint32_t tid, pid;
	uint64_t since;
};

static struct tree_task *task_slot(struct tree_task *tasks, uint32_t cap, uint32_t tid)
{
	uint32_t i = (tid * 2654435761u) & (cap - 1);

	while (tasks[i].tid && tasks[i].tid != tid)
		i = (i + 1) & (cap - 1);
	return &tasks[i];
}

static struct tree_task *find(const struct tree *t, uint32_t tid)
{
	struct tree_task *k;

	if (!tid || !t->cap)
		return NULL;
	k = task_slot(t->tasks, t->cap, tid);
	return k->tid ? k : NULL;
}

/* tid a member from since on (a new life: a tid the kernel reused) */
static void join(struct tree *t, uint32_t tid, uint64_t since)
{
	struct tree_task *k;

	if (!tid)
		return;
	if ((t->nr + 1) * 2 > t->cap) {
		uint32_t cap = t->cap ? t->cap * 2 : 1024;
		struct tree_task *n = calloc(cap, sizeof(*n));

		if (!n)
			return; /* out of memory: its rows are not kept */
		for (uint32_t i = 0; i < t->cap; i++)
			if (t->tasks[i].tid)
				*task_slot(n, cap, t->tasks[i].tid) = t->tasks[i];
		free(t->tasks);
		t->tasks = n;
		t->cap = cap;
	}
	k = task_slot(t->tasks, t->cap, tid);
	t->nr += !k->tid;
	*k = (struct tree_task){ .tid = tid, .since = since };
}

void tree__add(struct tree *t, uint32_t tid) { join(t, tid, 0); }

void tree__fork(struct tree *t, uint32_t tid, uint64_t time) { join(t, tid, time); }

void tree__exec(struct tree *t, uint32_t tid, uint64_t time)
{
	if (tid == t->root && !find(t, tid))
		join(t, tid, time);
}

void tree__set_pid(struct tree *t, uint32_t tid, uint32_t pid)
{
	struct tree_task *k = find(t, tid);

	if (k)
		k->pid = pid;
}

uint32_t tree__pid(const struct tree *t, uint32_t tid)
{
	const struct tree_task *k = find(t, tid);

	return k ? k->pid : 0;
}

bool tree__has(const struct tree *t, uint32_t tid, uint64_t time)
{
	const struct tree_task *k = find(t, tid);

	return k && time >= k->since;
}

int tree__hold(struct tree *t, const void *record, size_t size)
{
	size_t need = (size + 7) & ~(size_t)7;

	if (t->len + need > t->cap_held) {
		size_t cap = t->cap_held ? t->cap_held : 64 << 10;
		uint8_t *n;

		while (cap < t->len + need)
			cap *= 2;
		n = realloc(t->held, cap);
		if (!n)
			return -ENOMEM;
		t->held = n;
		t->cap_held = cap;
	}
	memcpy(t->held + t->len, record, size);
	t->len += need;
	return 0;
}

/* records start with struct perf_event_header: type u32, misc u16, size u16 */
static size_t record_size(const uint8_t *p)
{
	uint16_t size;

	memcpy(&size, p + 6, sizeof(size));
	return ((size_t)size + 7) & ~(size_t)7;
}

void tree__release(struct tree *t, void (*fn)(void *ctx, const void *record), void *ctx)
{
	for (size_t off = 0; off < t->len; off += record_size(t->held + off))
		fn(ctx, t->held + off);
	t->len = 0;
	if (t->cap_held > (4 << 20)) { /* a burst's buffer is not kept for the whole run */
		free(t->held);
		t->held = NULL;
		t->cap_held = 0;
	}
}

/* the value of a task field of a sample (0: none, or no raw data) */
static uint32_t task_field(const struct source *src, int k, const struct sample *smp)
{
	const struct tp_field *f = field__find(src->ev, src->task_fields[k]);
	int32_t v;

	if (!f || f->size != 4 || f->offset < 0 || (uint64_t)f->offset + 4 > smp->raw_size)
		return 0;
	memcpy(&v, (const uint8_t *)smp->raw + f->offset, 4);
	return v > 0 ? (uint32_t)v : 0;
}

bool tree__keeps(const struct tree *t, const struct source *src, const struct sample *smp)
{
	if (!src->task_fields[0]) /* a BPF program's rows (bpf/user_str.c): the task that ran */
		return tree__has(t, smp->tid, smp->time);
	for (int k = 0; k < 2 && src->task_fields[k]; k++) {
		uint32_t v = task_field(src, k, smp);

		if (v && tree__has(t, v, smp->time))
			return true;
	}
	return false;
}

void tree__free(struct tree *t)
{
	free(t->tasks);
	free(t->held);
	memset(t, 0, sizeof(*t));
}
