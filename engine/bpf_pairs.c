/*
 * engine/bpf_pairs.c - a statement over pairs() in the kernel (bpf/pairs.h, docs/bpf.md).
 *
 *   select start_value, count(*), p99(latency) from pairs('sys_enter', '_tid', 'sys_exit',
 *          '_tid', 'id') where latency >= 1000 group by start_value
 * becomes a start program on raw_syscalls:sys_enter storing (time, id) under the thread, and
 * an end program on sys_exit pairing, filtering and aggregating by id, with p99 from a
 * log-linear histogram; the statement is rewritten as engine/bpf_plan.c rewrites any other.
 *
 * What is read:
 *   FROM         pairs() of two tracepoint tables (or one), keys an integer field, _tid, _pid
 *                or _cpu; START_COL an integer field, a char[N <= 16] field, _tid, _pid, _cpu
 *                or _comm; END_COL as START_COL, of the end event
 *   columns      key, latency, start_value, end_value, start_pid, start_tid, end_tid,
 *                end_cpu, comm (the start task's name, as the ring path's column); not
 *                start_time, end_time, start_cpu, lost
 *   aggregates   those of engine/bpf_plan.c, and p50, p90, p95, p99, p999, percentile(latency,
 *                P): within 0.8 % (bpf/pairs.h (3))
 * (1) Which tables: both of the pairs() and nothing else reads them (engine/bpf_pick.c).
 */
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include "bpf/pairs.h"
#include "bpf/source.h"
#include "bpf/table.h"
#include "core/field.h"
#include "engine/bpf_plan_int.h"

enum pcol {
	P_KEY,
	P_LATENCY,
	P_START_VALUE,
	P_END_VALUE,
	P_START_PID,
	P_START_TID,
	P_END_TID,
	P_END_CPU,
	P_COMM,
	P_RING, /* a column the kernel does not give */
	P_NONE,
};

static enum pcol pcol_of(struct an *a, int n)
{
	static const struct {
		const char *name;
		enum pcol c;
	} cols[] = {
		{ "key", P_KEY },
		{ "latency", P_LATENCY },
		{ "start_value", P_START_VALUE },
		{ "end_value", P_END_VALUE },
		{ "start_pid", P_START_PID },
		{ "start_tid", P_START_TID },
		{ "end_tid", P_END_TID },
		{ "end_cpu", P_END_CPU },
		{ "comm", P_COMM },
		{ "start_time", P_RING },
		{ "end_time", P_RING },
		{ "start_cpu", P_RING },
		{ "lost", P_RING },
	};
	char name[128], qual[128], table[128];

	if (nd(a, n)->kind != SN_COL)
		return P_NONE;
	if (nd(a, n)->qual >= 0) {
		bpf_an__name(a, nd(a, n)->qual, qual);
		bpf_an__name(a, a->sel->table_alias >= 0 ? a->sel->table_alias : a->sel->table,
			     table);
		if (strcasecmp(qual, table))
			return P_NONE;
	}
	bpf_an__name(a, nd(a, n)->name, name);
	for (size_t i = 0; i < sizeof(cols) / sizeof(cols[0]); i++)
		if (!strcasecmp(name, cols[i].name))
			return cols[i].c;
	return P_NONE;
}

bool bpf_pairs__is_col(struct an *a, int n) { return pcol_of(a, n) != P_NONE; }

bool bpf_pairs__is_stack(struct an *a, int n)
{
	const struct bpf_pair *pp = &a->b->plan.pair;

	return a->pairs && pcol_of(a, n) == P_START_VALUE && pp->has_start_val &&
	       pp->start_val.col == BCOL_STACK;
}

bool bpf_pairs__val(struct an *a, int n, struct bpf_val *v)
{
	struct bpf_pair *pp = &a->b->plan.pair;
	char buf[64];

	*v = (struct bpf_val){ 0 };
	switch (pcol_of(a, n)) {
	case P_KEY: v->col = BCOL_PAIR_KEY; return true;
	case P_LATENCY: v->col = BCOL_PAIR_LAT; return true;
	case P_START_VALUE:
		if (!pp->has_start_val)
			return bpf_an__no(a, "start_value without a START_COL is NULL");
		if (pp->start_val.col == BCOL_STACK)
			return bpf_an__no(a,
					  "start_value (the start's stack) is read in the kernel "
					  "as a GROUP BY key only");
		v->col = pp->start_val_str ? BCOL_PAIR_SSTR : BCOL_PAIR_SVAL;
		if (pp->start_val.col == BCOL_DSTR) /* the pending value's longer text */
			v->size = bpf_pair__val_size(pp);
		return true;
	case P_END_VALUE:
		if (!a->has_end_val)
			return bpf_an__no(a, "end_value without an END_COL is NULL");
		*v = a->end_val;
		return true;
	case P_START_PID:
	case P_START_TID:
		pp->need_tid = true;
		v->col = pcol_of(a, n) == P_START_PID ? BCOL_PAIR_SPID : BCOL_PAIR_STID;
		return true;
	case P_END_TID: v->col = BCOL_TID; return true;
	case P_END_CPU: v->col = BCOL_CPU; return true;
	case P_COMM:
		pp->need_comm = true;
		v->col = BCOL_PAIR_COMM;
		return true;
	case P_RING:
		return bpf_an__no(a, "pairs()'s %s is given on the ring path only",
				  bpf_an__text(a, n, buf, sizeof(buf)));
	default:
		return bpf_an__no(a, "'%s' is not a column of pairs()",
				  bpf_an__text(a, n, buf, sizeof(buf)));
	}
}

/* a pairs() argument naming a key (integers) or a value of event ev */
static bool spec_val(struct an *a, const struct tp_event *ev, const char *name, bool value,
		     struct bpf_val *v)
{
	static const struct {
		const char *name;
		enum bpf_col col;
	} metas[] = { { "_tid", BCOL_TID }, { "_pid", BCOL_PID }, { "_cpu", BCOL_CPU } };
	const struct tp_field *f = field__find(ev, name);

	*v = (struct bpf_val){ 0 };
	for (size_t i = 0; i < sizeof(metas) / sizeof(metas[0]); i++)
		if (!strcmp(name, metas[i].name)) {
			v->col = metas[i].col;
			return true;
		}
	if (value && !strcmp(name, "_comm")) {
		v->col = BCOL_COMM;
		return true;
	}
	if (value && !strcmp(name, "stack")) { /* the start's chain: a GROUP BY key only */
		v->col = BCOL_STACK;
		return true;
	}
	if (!f)
		return bpf_an__no(a, "pairs()'s '%s' of %s is not read by the kernel program", name,
				  ev->name);
	if (!bpf_an__field_val(a, f, v))
		return false;
	if ((v->col == BCOL_STR && (!value || v->size > 16)) || (v->col == BCOL_DSTR && !value))
		return bpf_an__no(a, "pairs()'s %s (%s) is not read by the kernel program", name,
				  f->type);
	return true;
}

static struct source *source_of(struct an *a, const struct tp_event *ev)
{
	for (int i = 0; i < a->s->nr_src; i++)
		if (a->s->src[i]->ev == ev && !a->s->src[i]->counter)
			return a->s->src[i];
	return NULL;
}

/* pending(): START_COL and START_COL2 of the start, integers, 8 bytes each in the value */
static bool pending_vals(struct an *a, const char *col2)
{
	struct bpf_pair *pp = &a->b->plan.pair;

	if (pp->role == BPF_PAIR_BOTH)
		return bpf_an__no(a, "one table that starts and ends stays on the ring");
	if (pp->has_start_val &&
	    (bpf_val__is_str(&pp->start_val) || pp->start_val.col == BCOL_STACK ||
	     pp->start_val.col == BCOL_COMM))
		return bpf_an__no(a, "START_COL is kept in the kernel when it is an integer");
	if (!col2)
		return true;
	if (!spec_val(a, a->start_ev, col2, true, &pp->start_val2))
		return false;
	if (bpf_val__is_str(&pp->start_val2) || pp->start_val2.col == BCOL_STACK ||
	    pp->start_val2.col == BCOL_COMM)
		return bpf_an__no(a, "START_COL2 is kept in the kernel when it is an integer");
	pp->has_start_val2 = true;
	return true;
}

/* is NAME a word of the statement (a column it may read), or does it read every column
 * (SELECT *, t.*)? */
static bool names(const struct an *a, const char *name)
{
	char buf[128];

	for (int i = 0; i < a->sel->nr_tok; i++) {
		const struct sql_token *t = &a->sel->tok[i];

		if (t->type == TK_ID && !strcasecmp(bpf_an__name(a, i, buf), name))
			return true;
		if (t->type == TK_STAR && i > 0 &&
		    (sql_select__is_word(a->sel, i - 1, "SELECT") ||
		     a->sel->tok[i - 1].type == TK_COMMA || a->sel->tok[i - 1].type == TK_DOT))
			return true;
	}
	return false;
}

/* FROM pending(...): the statement stays as written and reads the kernel's hash of waiting
 * starts (vtab/pending.c (2)); the start keeps its task's ids and name if the statement
 * names them */
bool bpf_pairs__pending_stmt(struct an *a)
{
	struct bpf_pair *pp = &a->b->plan.pair;

	pp->pending_rows = true;
	pp->need_tid = names(a, "start_pid") || names(a, "start_tid");
	pp->need_comm = names(a, "comm");
	a->b->sql = sqlite3_mprintf("%s", sqlite3_sql(a->orig));
	snprintf(a->b->desc, sizeof(a->b->desc),
		 "none: the starts waiting are the rows, read at each window's end");
	return a->b->sql ? true : bpf_an__no(a, "out of memory");
}

/* FROM pairs('start', 'key', 'end', 'key' [, 'start col' [, 'end col']]), or pending() */
bool bpf_pairs__table(struct an *a)
{
	struct bpf_pair *pp = &a->b->plan.pair;
	const char *fn = a->pending ? "pending" : "pairs";
	const struct tp_event *end;
	char arg[6][128];
	int n = a->sel->nr_targs;

	if (n < 4 || n > 6)
		return bpf_an__no(a, "%s() with %d arguments", fn, n);
	for (int i = 0; i < n; i++) {
		if (a->sel->tok[a->sel->targ[i]].type != TK_STR)
			return bpf_an__no(a, "pairs()'s arguments are strings");
		bpf_an__name(a, a->sel->targ[i], arg[i]);
	}
	a->start_ev = catalog__find(a->s->cat, arg[0]);
	end = catalog__find(a->s->cat, arg[2]);
	if (!a->start_ev || !end || !(a->start_src = source_of(a, a->start_ev)) ||
	    !(a->b->src = source_of(a, end)))
		return bpf_an__no(a, "pairs() of tables that are not open");
	if (a->start_ev->kind != EV_TRACEPOINT || end->kind != EV_TRACEPOINT)
		return bpf_an__no(a, "pairs() of tables other than tracepoints stays on the ring");
	a->ev = end;
	a->pairs = true;
	pp->role = a->start_src == a->b->src ? BPF_PAIR_BOTH : BPF_PAIR_END;
	pp->start_tp_id = a->start_ev->id;
	if (!spec_val(a, a->start_ev, arg[1], false, &pp->start_key) ||
	    !spec_val(a, end, arg[3], false, &pp->end_key))
		return false;
	sqlite3_snprintf(sizeof(a->b->pair_name), a->b->pair_name, "%s(%s, %s, %s, %s)", fn, arg[0],
			 arg[1], arg[2], arg[3]); /* as vtab/pairer.c names it */
	if (n > 4) {
		if (!spec_val(a, a->start_ev, arg[4], true, &pp->start_val))
			return false;
		pp->has_start_val = true;
		pp->start_val_str = bpf_val__is_str(&pp->start_val);
	}
	if (a->pending)
		return pending_vals(a, n > 5 ? arg[5] : NULL);
	if (n > 5) {
		if (!spec_val(a, end, arg[5], true, &a->end_val))
			return false;
		if (a->end_val.col == BCOL_STACK) /* the end's own stack: GROUP BY stack */
			return bpf_an__no(a, "pairs()'s END_COL 'stack' is read on the ring only");
		a->has_end_val = true;
	}
	return true;
}

/* ------------------------------------------------------------------------ which tables */

/* the pairs() of statement i (itself, or its parts) that read src, as start and end each */
static int pair_refs(const struct bpf_stmt *parent, const struct bpf_stmt *b,
		     const struct source *src)
{
	int n = (b->start_src == src) + (b->src == src);

	for (int k = 0; parent && k < parent->nr_parts; k++) {
		const struct bpf_stmt *p = &parent->parts[k].st;

		if (p != b && p->start_src)
			n += (p->start_src == src) + (p->src == src);
	}
	return n;
}

/* why the pair's tables stay on the ring, or NULL */
static const char *pair_reason(const struct bpf_stmt *b, int i, const struct bpf_stmt *parent)
{
	const struct source *srcs[2] = { b->start_src, b->src };

	for (int k = 0; k < 2; k++) {
		if (!strcmp(srcs[k]->ev->system, "lock")) /* fired inside a map's own locks */
			return "lock:* tracepoints fire inside the locks the BPF maps take: "
			       "updates "
			       "would fail there";
		if (srcs[k]->scanned_by)
			return "read by more than one statement or table (another "
			       "statement reads its tables)";
		if (srcs[k]->nr_pairers != pair_refs(parent, b, srcs[k]))
			return "read by more than one statement or table (another pairs() "
			       "reads its tables)";
		if (srcs[k]->paired_by & ~(1ull << i)) /* the same pairs(): made once */
			return "read by more than one statement or table (another statement "
			       "reads pairs() or pending() of its tables)";
		if (srcs[k]->user_str)
			return "its rows come from the BPF program that copies user strings";
	}
	return NULL;
}

static void hook_text(const struct tp_event *ev, const struct bpf_pair *pp, char *buf, size_t len)
{
	const char *exit_enter = pp->start_hook == BPF_HOOK_SYS_ENTER ? "sys_enter" : "sys_exit";

	if (pp->start_hook == BPF_HOOK_TP && pp->start_hook_why[0])
		snprintf(buf, len, "the tracepoint %s (not tp_btf: %s)", ev->full,
			 pp->start_hook_why);
	else if (pp->start_hook == BPF_HOOK_TP)
		snprintf(buf, len, "the tracepoint %s", ev->full);
	else if (pp->start_hook == BPF_HOOK_TP_BTF)
		snprintf(buf, len, "tp_btf/%s", pp->start_tp_btf.name);
	else if (pp->start_syscall_nr >= 0)
		snprintf(buf, len, "tp_btf/%s (system call %d)", exit_enter, pp->start_syscall_nr);
	else
		snprintf(buf, len, "tp_btf/%s", exit_enter);
}

/* --explain: both programs (prog_id 0: listed, not loaded), the pending map, the
 * percentiles' histogram */
static void pair_notes(struct session *s, const struct bpf_stmt *b, const struct bpf_plan *p,
		       unsigned prog_id, int nr_insns)
{
	const struct bpf_pair *pp = &p->pair;
	char where[256], end_note[768], id[16] = "";

	snprintf(end_note, sizeof(end_note), "%s", plan_note__of(b->src, PLAN_PATH));
	if (prog_id)
		snprintf(id, sizeof(id), " %u", prog_id);
	if (pp->pending_rows) {
		hook_text(b->start_src->ev, pp, where, sizeof(where));
		plan_note__set(b->start_src, PLAN_PATH,
			       "pending() starts in the kernel: BPF program%s of %d insns on %s "
			       "stores (time, start values) by key in a hash of up to %d pending "
			       "starts, which %s's program deletes%s",
			       id, nr_insns, where, pp->max_pending, b->src->ev->name,
			       p->tree_fd >= 0 ? "; both programs count only the tasks in the "
						 "map of tasks (target, below)"
					       : "");
		plan_note__set(b->src, PLAN_PATH,
			       "%s; pending() ended here: deletes the key's pending start (a start "
			       "finding the hash full is dropped, counted lost); no group: the "
			       "statement reads the starts left in the hash at each window's end",
			       end_note);
		return;
	}
	if (pp->role == BPF_PAIR_END) {
		const char *was = plan_note__of(b->start_src, PLAN_PATH);
		char before[720] = "";

		if (was && strncmp(was, "perf ring", 9)) /* it ends another pairs() too */
			snprintf(before, sizeof(before), "%.700s%s", was, "; and ");
		hook_text(b->start_src->ev, pp, where, sizeof(where));
		plan_note__set(b->start_src, PLAN_PATH,
			       "%spairs() starts in the kernel: BPF program%s of %d insns on %s "
			       "stores (time, start value) %s%d%s, which %s's program pairs%s",
			       before, id, nr_insns, where,
			       pp->task_store ? "in the key's task's storage (key 0, the idle "
						"tasks: in a hash of up to "
					      : "by key in a hash of up to ",
			       pp->max_pending, pp->task_store ? ")" : " pending starts",
			       b->src->ev->name,
			       p->tree_fd >= 0 ? "; both programs count only the tasks in the "
						 "map of tasks (target, below)"
					       : "");
	}
	plan_note__set(
		b->src, PLAN_PATH,
		"%s; pairs() %s: looks the key up in the pending starts (%s%d; a start "
		"finding it full is dropped, counted lost), %s, aggregates latency = end - "
		"start%s%s",
		end_note,
		pp->role == BPF_PAIR_BOTH ? "ended and started by this one program" : "ended here",
		pp->task_store ? "the key's task's storage; key 0, the idle tasks, a hash of up to "
			       : "hash, up to ",
		pp->max_pending, pp->task_store ? "consumes it" : "deletes it",
		pp->start_member ? "; is_target(key, start_time): a start whose key is not "
				   "in the map of tasks as it fires is not stored"
				 : "",
		bpf_plan__has_loglin(p)
			? "; percentiles from a log-linear histogram per group (exact "
			  "below 128 ns, 64 buckets per power of 2 above: within 0.8 %)"
			: "");
}

void bpf_pairs__pick(struct query *q, struct session *s, struct bpf_stmt *b, int i,
		     const struct bpf_stmt *parent, const struct query_ops *ops, void *ctx)
{
	const char *why = b->ok ? pair_reason(b, i, parent) : b->why;
	const char *fn = strncmp(b->pair_name, "pending", 7) ? "pairs()" : "pending()";
	struct bpf_table *t = NULL;

	if (why) {
		plan_note__set(b->start_src, PLAN_PATH, "perf ring: %s: %s", fn, why);
		plan_note__set(b->src, PLAN_PATH, "perf ring: %s: %s", fn, why);
		return;
	}
	/* --max-groups raises it too: the remedy the lost warning names (engine/query.c) */
	b->plan.pair.max_pending =
		q->max_groups > BPF_PAIRS_MAX_PENDING ? q->max_groups : BPF_PAIRS_MAX_PENDING;
	if (bpf_pick__to_kernel(q, s, b, i, ops, ctx) ||
	    (!s->replay && !(t = b->is_part ? b->table : bpf_session__table(s, b->src)))) {
		char was[768];
		const char *n = plan_note__of(b->src, PLAN_PATH);

		snprintf(was, sizeof(was), "%s", n && strlen(n) > 11 ? n + 11 : "failed");
		plan_note__set(b->src, PLAN_PATH, "perf ring: %s: %s", fn, was);
		plan_note__set(b->start_src, PLAN_PATH, "perf ring: %s: %s", fn, was);
		return;
	}
	if (!t) { /* offline: listed, not loaded (engine/bpf_offline.c) */
		pair_notes(s, b, &b->plan, 0, b->nr_start_insns);
		return;
	}
	t->start_src = b->start_src;
	b->start_src->bpf = true;
	for (int k = 0; k < s->nr_extra; k++)
		if (!strcmp(s->extra[k].name, b->pair_name))
			t->pair_stat = k;
	pair_notes(s, b, &t->plan, t->start_prog_id, t->start_nr_insns);
}
