/*
 * engine/bpf_pick.c - which tables run in the kernel (engine/bpf_plan.h (2), (3)).
 *
 * (1) Which statements read which table: the readers say so while the statements are
 *     prepared (core/session.h, source__plan()): a table's scan marks the statement being
 *     prepared, whatever its form (joins, views, sub-SELECTs); a pairs() or pending() counts
 *     itself once, when made (cached for the run), and marks each statement that reads it.
 * (2) A table runs in the kernel when exactly one statement reads it, that statement was
 *     read (engine/bpf_plan.c) as a GROUP BY over that table alone, and it is more than
 *     count(*) (counting mode needs no program at all). Under -- CMD, -p, -t or --cgroup the
 *     program counts the targets' tasks through a map (bpf/tree.h): of a table that names
 *     tasks, the rows naming one (core/tree.c (3)); a software event is sampled on every
 *     CPU and keeps the samples of the targets' threads.
 * (3) Then the program is loaded and attached (--explain: loaded only), its groups become a
 *     table, the rewritten statement is prepared and takes the original's place. A failure
 *     at any step leaves the table on the ring with one line saying why.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/perf_event.h>
#include "bpf/hook.h"
#include "bpf/listing.h"
#include "bpf/pairs.h"
#include "bpf/source.h"
#include "bpf/table.h"
#include "core/field.h"
#include "core/target.h"
#include "engine/bpf_plan.h"
#include "engine/bpf_plan_int.h"
#include "vtab/bpf_groups.h"

static void pick_notice(const struct query_ops *ops, void *ctx, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void pick_notice(const struct query_ops *ops, void *ctx, const char *fmt, ...)
{
	char line[768];
	va_list ap;

	if (!ops || !ops->notice)
		return;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	ops->notice(ctx, line);
}

/* statement i scans src (its own FROM, a view's, a sub-SELECT's), as src's scans said while
 * the statements were prepared (core/session.h) */
static bool scans(const struct source *src, int i) { return (src->scanned_by >> i) & 1; }

/* -- CMD (without -a), -p, -t, --cgroup: only some tasks count (bpf/tree.h) */
static bool targets(const struct session *s) { return (s->wl.pid && !s->opts.all) || s->nr_tids; }

static const char *table_reason(const struct session *s, const struct bpf_stmt *st);

/* readers of src (j) of more than one statement, each a GROUP BY of src alone: a program each */
#define SEVERAL ((const char *)1)

/* why src stays on the ring, or NULL: it may run in the kernel (statement *which, as *use: the
 * statement or one of its parts); SEVERAL: statements that each may (several()) */
static const char *ring_reason(struct query *q, struct session *s, struct bpf_stmt *st, int j,
			       int *which, struct bpf_stmt **use, char *buf, size_t len)
{
	const struct source *src = s->src[j];
	int n = 0;

	for (int i = 0; i < q->nr_stmts; i++)
		if (scans(src, i)) {
			*which = i;
			n++;
		}
	if (n > 1) {
		bool each = !src->nr_pairers;

		for (int i = 0; i < q->nr_stmts; i++)
			if (scans(src, i))
				each = each && st[i].ok && st[i].src == src && !st[i].start_src &&
				       !table_reason(s, &st[i]);
		if (each)
			return SEVERAL;
		snprintf(buf, len,
			 "read by %d statements, not each a GROUP BY of it alone the kernel runs",
			 n);
		return buf;
	}
	if (n == 1 && !st[*which].ok && bpf_parts__of(&st[*which], src) &&
	    !bpf_parts__of(&st[*which], src)->ok) { /* its sub-SELECT's own reason */
		snprintf(buf, len, "a sub-SELECT of it: %s", bpf_parts__of(&st[*which], src)->why);
		return buf;
	}
	if (n == 0 || src->nr_pairers)
		return "read by more than one statement or table (pairs(), a profiler's view, ...)";
	st = &st[*which];
	if (!st->ok && bpf_parts__of(st, s->src[j]))
		st = bpf_parts__of(st, s->src[j]);
	*use = st;
	if (!st->ok || st->src != s->src[j]) {
		snprintf(buf, len, "%s",
			 !st->ok ? st->why : "its statement reads another table too");
		return buf;
	}
	if (st->count_only)
		return "count(*) alone is counted by the perf event (counting mode: no program "
		       "needed)";
	return table_reason(s, st);
}

/* why a statement st over one table (as engine/bpf_plan.c read it) keeps the ring, or NULL */
static const char *table_reason(const struct session *s, const struct bpf_stmt *st)
{
	if (st->src->user_str)
		return "its rows come from the BPF program that copies user strings";
	/* the kernel walks frame pointers only; the ring copies a sampled event's user stack and
	 * unwinds it through the binaries' CFI: what --call-graph dwarf asks, and what auto gives a
	 * target's code built without frame pointers (system-wide, auto keeps the kernel's walk,
	 * cut where the CFI says it turns to garbage: docs/bpf.md, Stacks) */
	if (st->src->ev->kind == EV_SOFTWARE && bpf_plan__has_stack(&st->plan) &&
	    (s->opts.call_graph == CALL_GRAPH_DWARF ||
	     (targets(s) && s->opts.call_graph == CALL_GRAPH_AUTO)))
		return "a sampled event's user stacks are unwound through the binaries' CFI on "
		       "the ring (--call-graph dwarf, or auto under a target); the kernel walks "
		       "frame "
		       "pointers only (--call-graph fp takes it there)";
	return NULL;
}

/* a software event sampled as core/events.c samples it: the rate asked (cpu_clock(99), WHERE
 * period = N), else the clocks at -F Hz and the others at every event */
static void pick_pmu(struct session *s, struct source *src, struct bpf_plan *p)
{
	bool clock = src->ev->pmu_config == PERF_COUNT_SW_CPU_CLOCK ||
		     src->ev->pmu_config == PERF_COUNT_SW_TASK_CLOCK;

	p->hook = BPF_HOOK_PERF;
	p->pmu_type = src->ev->pmu_type;
	p->pmu_config = src->ev->pmu_config;
	p->sample_period = p->sample_freq = 0;
	if (src->period)
		p->sample_period = src->period;
	else if (src->hz || clock)
		p->sample_freq = src->hz ? src->hz : (uint64_t)s->opts.freq;
	else
		p->sample_period = 1;
	src->hz_used = p->sample_freq;
	src->period_used = p->sample_period;
}

/* a uprobe event of our own, every task */
static void pick_uprobe(const struct tp_event *ev, struct bpf_plan *p)
{
	p->hook = BPF_HOOK_UPROBE;
	p->pmu_type = ev->pmu_type;
	p->pmu_config = ev->pmu_config;
	p->probe_path = ev->probe_path;
	p->pmu_config2 = ev->pmu_config2;
	p->self_tid = 0;
}

/* the fields of ev that name tasks (core/session.h), as values; how many */
static int task_vals(const struct tp_event *ev, struct bpf_val v[2])
{
	const char *names[2];
	int n = session__task_fields(ev, names), k = 0;

	for (int i = 0; i < n; i++) {
		const struct tp_field *f = field__find(ev, names[i]);

		if (f && f->size == 4)
			v[k++] = (struct bpf_val){
				.col = BCOL_FIELD, .off = f->offset, .size = 4, .is_signed = true
			};
	}
	return k;
}

/* pairs() whose start value is the start's stack that nothing of the plan reads: not taken
 * (a chain walked at every start for nothing, with no stack map made to keep it) */
static void drop_unread_stack(struct bpf_plan *p)
{
	struct bpf_pair *pp = &p->pair;
	const struct bpf_val *v[BPF_MAX_VALS];
	int n = bpf_plan__values(p, v);

	if (!pp->has_start_val || pp->start_val.col != BCOL_STACK)
		return;
	for (int i = 0; i < n; i++)
		if (v[i] != &pp->start_val &&
		    (bpf_val__is_stack(v[i]) || v[i]->col == BCOL_PAIR_SVAL))
			return;
	pp->has_start_val = false;
}

/* pairs(): the start's values on the start table's hook; one table: both sets on its hook */
static void pair_hooks(struct bpf_stmt *b)
{
	struct bpf_plan sp = { .nr_keys = 1 };
	struct bpf_pair *pp = &b->plan.pair;

	pp->nr_start_task_vals = task_vals(b->start_src->ev, pp->start_task_vals);
	sp.nr_task_vals = pp->nr_start_task_vals;
	memcpy(sp.task_vals, pp->start_task_vals, sizeof(sp.task_vals));
	sp.keys[0] = pp->start_key;
	if (pp->has_start_val)
		sp.keys[sp.nr_keys++] = pp->start_val;
	if (pp->has_start_val2) /* pending()'s START_COL2 */
		sp.keys[sp.nr_keys++] = pp->start_val2;
	bpf_hook__pick(b->start_src->ev, &sp);
	pp->start_hook = sp.hook;
	pp->start_syscall_nr = sp.syscall_nr;
	pp->start_tp_btf = sp.tp_btf;
	snprintf(pp->start_hook_why, sizeof(pp->start_hook_why), "%s", sp.hook_why);
	if (pp->role == BPF_PAIR_BOTH && sp.hook != b->plan.hook)
		b->plan.hook = pp->start_hook = BPF_HOOK_TP;
	bpf_pair__pick_tasks(&b->plan);
}

/* --explain: the table's path */
static void note_kernel(struct query *q, struct session *s, struct bpf_table *t,
			const struct bpf_stmt *b)
{
	char where[256], stacks[128] = "";
	struct bpf_listing l;
	struct err e = { 0 };

	bpf_pick__where(s, t->src, &t->plan, where, sizeof(where));
	if (t->stacks_fd >= 0)
		bpf_stack__describe(&t->plan, t->nr_stacks, t->plan.stack_depth, stacks,
				    sizeof(stacks));
	if (t->plan.pair.pending_rows) /* no groups: bpf_pairs__pick's note says the rest */
		plan_note__set(t->src, PLAN_PATH,
			       "in the kernel: BPF program %u of %d insns on %s%s", t->prog_id,
			       t->nr_insns, where,
			       t->perf_fd >= 0 ? "" : " (loaded, not attached: --explain)");
	else
		plan_note__set(t->src, PLAN_PATH,
			       "aggregated in the kernel: BPF program %u of %d insns on %s%s, "
			       "per-CPU hash %s, up to %d groups%s%s%s",
			       t->prog_id, t->nr_insns, where,
			       t->perf_fd >= 0 || t->nr_pmu_fds
				       ? ""
				       : " (loaded, not attached: --explain)",
			       b->desc, t->plan.max_groups, stacks,
			       t->nr_maps == 2 ? ", two maps swapped per window" : "",
			       b->is_part ? "; a sub-SELECT of its statement, compiled alone" : "");
	if (q->plan_only && !bpf_listing__table(t, &l, &e)) { /* --explain: what was loaded */
		plan_note__take(t->src, PLAN_SQL,
				t->plan.pair.pending_rows ? NULL /* run as written */
							  : strdup(b->sql));
		plan_note__take(t->src, PLAN_LISTING, l.text);
	}
}

/* (3): 0, or -errno when the table stays on the ring (the note says why) */
int bpf_pick__to_kernel(struct query *q, struct session *s, struct bpf_stmt *b, int i,
			const struct query_ops *ops, void *ctx)
{
	char module[40], self_f[120], log[512];
	struct source *src = b->src;
	struct err e = { 0 };
	struct bpf_table *t;
	sqlite3_stmt *st = NULL;

	target__self_filter(s, src, self_f, sizeof(self_f));
	b->plan.self_tid = self_f[0] ? (uint32_t)getpid() : 0;
	b->plan.nr_task_vals = task_vals(src->ev, b->plan.task_vals);
	b->plan.cpu_filter = s->opts.cpu_list != NULL; /* -C */
	b->plan.max_groups = q->max_groups > 0 ? q->max_groups : BPF_DEFAULT_MAX_GROUPS;
	if (b->distinct) /* a group per distinct value of the statement's groups: its map
			  * grows as used (no preallocation) */
		b->plan.max_groups *= BPF_DISTINCT_GROUPS;
	if (targets(s) && !s->replay && /* the workload's or targets' tasks, as inherit follows */
	    (b->plan.tree_fd = bpf_session__tree(s, !q->plan_only, &e)) < 0) {
		plan_note__set(src, PLAN_PATH, "perf ring: %s", e.msg);
		if (!q->plan_only)
			pick_notice(ops, ctx,
				    "%s: not aggregated in the kernel (%s); the perf ring is used "
				    "instead",
				    src->ev->full, e.msg);
		return e.code;
	}
	bpf_hook__pick(src->ev, &b->plan);
	if (src->ev->kind == EV_UPROBE)
		pick_uprobe(src->ev, &b->plan);
	if (b->start_src) { /* pairs(): the start's program's hook too */
		drop_unread_stack(&b->plan);
		pair_hooks(b);
	}
	if (src->ev->kind == EV_SOFTWARE) { /* the ring drops its own process's samples */
		pick_pmu(s, src, &b->plan);
		b->plan.self_tid = 0;
		b->plan.self_pid = (uint32_t)getpid();
	}
	b->plan.stack_window_ms = q->so.interval_ms > 0 ? q->so.interval_ms : 0; /* (2c) */
	if (s->replay) /* a capture, another kernel's facts: listed, not loaded */
		return bpf_offline__list(q, s, b);
	t = bpf_table__new(&b->plan, src, !q->plan_only,
			   q->so.interval_ms > 0 || s->opts.tick ? 2 : 1, log, sizeof(log), &e);
	if (!t && bpf_pick__tp_btf(&b->plan)) { /* no BTF, an old kernel: the tracepoint */
		if (q->so.verbose && !q->plan_only)
			pick_notice(ops, ctx, "%s: tp_btf: %s; the tracepoint's program instead",
				    src->ev->full, e.msg);
		bpf_pick__to_tracepoint(&b->plan, e.msg);
		e = (struct err){ 0 };
		t = bpf_table__new(&b->plan, src, !q->plan_only,
				   q->so.interval_ms > 0 || s->opts.tick ? 2 : 1, log, sizeof(log),
				   &e);
	}
	if (!t) {
		plan_note__set(src, PLAN_PATH, "perf ring: %s%s%s", e.msg,
			       log[0] ? "; verifier: " : "", log);
		if (!q->plan_only)
			pick_notice(ops, ctx,
				    "%s: not aggregated in the kernel (%s); the perf ring is used "
				    "instead%s",
				    src->ev->full, e.msg,
				    log[0] && !q->so.verbose
					    ? " (-v shows the verifier's last lines)"
					    : "");
		if (!q->plan_only && log[0] && q->so.verbose)
			pick_notice(ops, ctx, "%s: the verifier said: %s", src->ev->full, log);
		return e.code ? e.code : -EINVAL;
	}
	snprintf(module, sizeof(module), "%s", b->module);
	if (b->plan.pair.pending_rows) { /* the statement stays: pending() reads the hash */
		if (bpf_session__add(s, t)) {
			plan_note__set(src, PLAN_PATH, "perf ring: out of memory");
			bpf_table__free(t);
			return -ENOMEM;
		}
		if (b->is_part)
			b->table = t;
		note_kernel(q, s, t, b);
		return 0;
	}
	if (b->is_part) { /* its statement is prepared once all its parts are in */
		if (bpf_groups__register(q->db, module, t) != SQLITE_OK || bpf_session__add(s, t)) {
			plan_note__set(src, PLAN_PATH, "perf ring: out of memory");
			bpf_groups__register(q->db, module, NULL);
			bpf_table__free(t);
			return -ENOMEM;
		}
		b->table = t;
		note_kernel(q, s, t, b);
		return 0;
	}
	if (bpf_groups__register(q->db, module, t) != SQLITE_OK ||
	    sqlite3_prepare_v2(q->db, b->sql, -1, &st, NULL) != SQLITE_OK ||
	    query__bind_params(q, st) != SQLITE_OK || bpf_session__add(s, t)) {
		plan_note__set(src, PLAN_PATH, "perf ring: the rewritten statement failed: %s",
			       sqlite3_errmsg(q->db));
		sqlite3_finalize(st);
		bpf_groups__register(q->db, module, NULL);
		bpf_table__free(t);
		return -EINVAL;
	}
	b->table = t;
	note_kernel(q, s, t, b);
	if (b->defer) { /* several(): swapped once every reader is in */
		b->ready = st;
		return 0;
	}
	sqlite3_finalize(q->stmts[i]);
	q->stmts[i] = st;
	return 0;
}

/* (2b) src (j) read by several statements, each a GROUP BY of it alone: a program and a map
 * each on its tracepoint, the events counted once (the first's); if one cannot be loaded,
 * none is */
static void several(struct query *q, struct session *s, struct bpf_stmt *st, int j,
		    const struct query_ops *ops, void *ctx)
{
	struct source *src = s->src[j];
	char first[700] = "", why[700];
	int n = 0, bad = 0;

	for (int i = 0; i < q->nr_stmts && !bad; i++) {
		if (!scans(src, i))
			continue;
		st[i].defer = true;
		if (bpf_pick__to_kernel(q, s, &st[i], i, ops, ctx)) {
			bad = 1;
			snprintf(why, sizeof(why), "%s", plan_note__of(src, PLAN_PATH));
			break;
		}
		if (n++ == 0)
			snprintf(first, sizeof(first), "%s", plan_note__of(src, PLAN_PATH));
		else if (st[i].table)                  /* offline: listed, no table */
			st[i].table->secondary = true; /* the first counts the events */
	}
	for (int i = 0; i < q->nr_stmts; i++) {
		if (!st[i].defer || !st[i].table)
			continue;
		if (bad) {
			bpf_session__remove(s, st[i].table);
			bpf_groups__register(q->db, st[i].module, NULL);
			bpf_table__free(st[i].table);
			sqlite3_finalize(st[i].ready);
		} else {
			sqlite3_finalize(q->stmts[i]);
			q->stmts[i] = st[i].ready;
		}
		st[i].table = NULL;
		st[i].ready = NULL;
	}
	if (bad)
		plan_note__set(src, PLAN_PATH, "%s (read by %d statements: none is in the kernel)",
			       strncmp(why, "perf ring", 9) ? "perf ring: a program failed" : why,
			       n + 1);
	else
		plan_note__set(src, PLAN_PATH,
			       "read by %d statements, a program and a map each; the "
			       "first's: %s",
			       n, first);
}

int bpf_pick__apply(struct query *q, struct session *s, const struct query_ops *ops, void *ctx)
{
	struct bpf_stmt *st;
	char why[320];

	if (!s->nr_src || (s->replay && !q->plan_only) || q->record_path)
		return 0; /* a capture's rows are its tables' (with --explain: listed, offline) */
	if (q->no_bpf || q->no_pushdown) { /* --no-pushdown: nothing of WHERE in the kernel */
		for (int j = 0; j < s->nr_src; j++)
			if (!s->src[j]->counter)
				plan_note__set(s->src[j], PLAN_PATH, "perf ring: %s",
					       q->no_bpf ? "--no-bpf" : "--no-pushdown");
		return 0;
	}
	st = calloc((size_t)q->nr_stmts, sizeof(*st));
	if (!st)
		return -ENOMEM;
	for (int i = 0; i < q->nr_stmts; i++) {
		char module[32];

		snprintf(module, sizeof(module), "perf_sql_bpf_%d", i);
		bpf_stmt__analyze(&st[i], q, s, q->stmts[i], module);
		if (!st[i].ok && !st[i].start_src)
			bpf_parts__find(&st[i], q, s, i);
	}
	for (int i = 0; i < q->nr_stmts; i++)
		if (st[i].start_src)
			bpf_pairs__pick(q, s, &st[i], i, NULL, ops, ctx);
	for (int i = 0; i < q->nr_stmts; i++) /* pairs() of parts (blktrace's arms) */
		for (int k = 0; k < st[i].nr_parts; k++)
			if (st[i].parts[k].st.start_src)
				bpf_pairs__pick(q, s, &st[i].parts[k].st, i, &st[i], ops, ctx);
	for (int j = 0; j < s->nr_src; j++) {
		struct bpf_stmt *use = NULL;
		const char *r;
		int i = -1;

		r = plan_note__of(s->src[j], PLAN_PATH);
		if (s->src[j]->counter || (r && (strstr(r, "pairs()") || strstr(r, "pending()"))))
			/* bpf_pairs__pick's */
			continue;
		r = ring_reason(q, s, st, j, &i, &use, why, sizeof(why));
		if (r == SEVERAL)
			several(q, s, st, j, ops, ctx);
		else if (r)
			plan_note__set(s->src[j], PLAN_PATH, "perf ring: %s", r);
		else
			bpf_pick__to_kernel(q, s, use, i, ops, ctx);
	}
	for (int i = 0; i < q->nr_stmts; i++) /* statements of parts in the kernel */
		bpf_parts__swap(q, s, &st[i], i);
	for (int i = 0; i < q->nr_stmts; i++)
		bpf_stmt__free(&st[i]);
	free(st);
	return 0;
}

/* --explain's target line of a table fed by BPF: whose events, perf-sql's left out (p NULL:
 * listed offline, for every task) */
static void explain_who(const struct session *s, const struct source *src, const struct bpf_plan *p,
			FILE *f)
{
	static const struct bpf_plan every = { .tree_fd = -1, .self_tid = 1 };
	const char *f_[2];
	char named[64] = "";
	int n;

	if (!p) {
		p = &every;
		n = src->ev->kind == EV_TRACEPOINT ? session__task_fields(src->ev, f_) : 0;
	} else {
		n = p->nr_task_vals ? session__task_fields(src->ev, f_) : 0;
	}

	if (n)
		snprintf(named, sizeof(named), "%s%s%s", f_[0], n > 1 ? "/" : "",
			 n > 1 ? f_[1] : "");
	if (p->tree_fd >= 0 && s->nr_tids)
		fprintf(f, "  target       %d thread%s of -p, -t or --cgroup and their children",
			s->nr_tids, s->nr_tids == 1 ? "" : "s");
	else if (p->tree_fd >= 0)
		fprintf(f, "  target       workload pid %d and its children from its exec",
			(int)s->wl.pid);
	if (p->tree_fd >= 0)
		fprintf(f,
			" (a map of their tasks kept by programs on %stask_newtask, "
			"sched_process_exit and sched_process_free): %s%s%s, %d CPUs\n",
			s->nr_tids ? "" : "task_rename, ",
			n ? "an event counts when a task it names ("
			  : "an event counts when its thread is one",
			named, n ? ") is one" : "", s->nr_cpus);
	else if (n && p->self_tid)
		fprintf(f,
			"  target       every task on %d CPUs (perf-sql's own rows left out: those "
			"whose "
			"%s name no task but perf-sql and the idle task)\n",
			s->nr_cpus, named);
	else
		fprintf(f, "  target       every task on %d CPUs (perf-sql itself left out)\n",
			s->nr_cpus);
}

bool bpf_pick__explain(const struct session *s, const struct source *src, FILE *f)
{
	const char *note = plan_note__of(src, PLAN_PATH), *sql, *listing;
	const struct bpf_table *t = bpf_session__table(s, src);
	bool kernel = src->bpf || (note && (!strncmp(note, "aggregated in the kernel", 24) ||
					    !strncmp(note, "in the kernel", 13) ||
					    !strncmp(note, "pairs() starts in the kernel", 28) ||
					    !strncmp(note, "pending() starts in the kernel", 30)));

	if (note)
		fprintf(f, "  path         %s\n", note);
	if (t || (s->replay && note && !strncmp(note, "aggregated in the kernel", 24)))
		explain_who(s, src, t ? &t->plan : NULL, f);
	if ((t || kernel) && src->need_cgroup)
		query__explain_cgroup(s, true, f);
	sql = plan_note__of(src, PLAN_SQL);
	listing = plan_note__of(src, PLAN_LISTING);
	if (s->started || !listing) /* -v: the plan once collecting, no listing */
		return t || kernel;
	if (sql)
		fprintf(f, "  rewritten    %s\n", sql);
	for (const char *l = listing, *end; *l; l = end + (*end == '\n')) {
		end = l + strcspn(l, "\n");
		fprintf(f, "  %.*s\n", (int)(end - l), l);
	}
	return t || kernel;
}
