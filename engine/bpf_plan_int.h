/*
 * engine/bpf_plan_int.h - what engine/bpf_plan.c and engine/bpf_where.c share while they read
 * one statement: the analysis state and its helpers. Not for other files.
 */
#ifndef PERF_SQL_BPF_PLAN_INT_H
#define PERF_SQL_BPF_PLAN_INT_H
#include <stdbool.h>
#include <stdint.h>
#include <sqlite3.h>
#include "engine/bpf_plan.h"
#include "engine/sql_expr.h"

#define MAX_REPL 128

enum colk {
	CK_NONE,
	CK_TIME,
	CK_CPU,
	CK_PID,
	CK_TID,
	CK_COMM,
	CK_PERIOD,
	CK_FIELD,
	CK_IP,
	CK_ADDR,
	CK_STACK,
	CK_ARG,       /* uprobes: arg0 .. arg5 */
	CK_RET,       /* uprobes: ret */
	CK_CGROUP_ID, /* _cgroup_id: bpf_get_current_cgroup_id() */
	CK_CGROUP,    /* _cgroup: the same id, a key named as its path in user space */
	CK_PAIR       /* pairs(): a column of it (engine/bpf_pairs.c reads it) */
};
enum where_in { IN_ITEM, IN_HAVING, IN_ORDER_TERM, IN_ORDER };

struct an {
	struct bpf_stmt *b;
	struct query *q;
	struct session *s;
	sqlite3_stmt *orig;
	struct sql_select *sel;
	const struct tp_event *ev;
	int key_node[BPF_MAX_KEYS];
	int agg_arg[BPF_MAX_AGGS]; /* node of each aggregate's value */
	struct {
		int start, end;
		char *text;
	} repl[MAX_REPL];
	int nr_repl;
	/* FROM pairs(...) (engine/bpf_pairs.c); pending(...) too */
	bool pairs, pending;
	struct source *start_src;
	const struct tp_event *start_ev;
	struct bpf_val end_val; /* END_COL, a value of the end event */
	bool has_end_val;
	char where_note[128]; /* how WHERE was read where it is not its text (--explain) */
	int minmax_last;      /* the last new min()/max() slot in SQLite's order, or -1 */
	int on_groups[16];    /* WHERE terms of keys only the program cannot test: on the groups */
	int nr_on_groups;
	int on_rows[4]; /* WHERE terms of _cgroup only: on the groups' rows (engine/bpf_cgroup.c) */
	int nr_on_rows;
};

bool bpf_an__no(struct an *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static inline const struct sql_node *nd(const struct an *a, int n) { return &a->sel->node[n]; }

/* kid k of node n */
static inline int kid(const struct an *a, int n, int k)
{
	int c = nd(a, n)->first;

	while (c >= 0 && k--)
		c = nd(a, c)->next;
	return c;
}

const char *bpf_an__text(const struct an *a, int n, char *buf, int len);
const char *bpf_an__name(const struct an *a, int tok, char *buf);
enum colk bpf_an__resolve(struct an *a, int n, const struct tp_field **f);
bool bpf_an__int_const(const struct an *a, int n, int64_t *out);
bool bpf_an__val(struct an *a, int n, struct bpf_val *v);
/* replaces node n's text in the rewrite */
bool bpf_an__replace(struct an *a, int n, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* SELECT items, HAVING, ORDER BY (engine/bpf_plan.c) */
bool bpf_an__post(struct an *a, int n, enum where_in in);
/* engine/bpf_agg.c: does the statement call an aggregate; an aggregate call's slot and merge */
bool bpf_agg__any(struct an *a);
bool bpf_agg__post_func(struct an *a, int n, enum where_in in);
/* a column beside aggregates (BA_BARE) read from the groups; after every aggregate is read,
 * the bare columns follow the statement's last min() or max() as SQLite's do */
bool bpf_agg__bare(struct an *a, int n);
bool bpf_agg__bare_follow(struct an *a);
/* engine/bpf_cgroup.c: the key of _cgroup (the statement's, or one of the kernel's groups
 * only), -1: refused; a top-level WHERE term that reads only _cgroup as a test of the id in
 * the program (the ids whose path matches now, and any made since) and of the path on the
 * groups' rows, -2: not such a term, -1: refused */
int bpf_cgroup__key(struct an *a, int n);
/* is there a v2 hierarchy to name ids (or a capture's, another kernel's)? false with the
 * reason: without one the columns are NULL, as the ring gives them */
bool bpf_cgroup__v2(struct an *a);
int bpf_cgroup__where(struct an *a, int n);
/* engine/bpf_pairs.c: FROM pairs(...); a column of it as a value (refused: false) */
bool bpf_pairs__table(struct an *a);
/* FROM pending(...): the statement read as it stands (its rows are the kernel's hash) */
bool bpf_pairs__pending_stmt(struct an *a);
bool bpf_pairs__val(struct an *a, int n, struct bpf_val *v);
bool bpf_pairs__is_col(struct an *a, int n);
/* is node n start_value of pairs() whose START_COL is 'stack' (a key BCOL_PAIR_STACK)? */
bool bpf_pairs__is_stack(struct an *a, int n);
bool bpf_an__field_val(struct an *a, const struct tp_field *f, struct bpf_val *v);
/* engine/bpf_pick.c: statement i to the kernel (0, or -errno: it stays on the ring, the note
 * says why) */
int bpf_pick__to_kernel(struct query *q, struct session *s, struct bpf_stmt *b, int i,
			const struct query_ops *ops, void *ctx);
/* engine/bpf_offline.c: where p's program runs, for the path line; p to the tracepoint (why);
 * does p run on tp_btf anywhere; the program of b listed, not loaded (0, or -errno: the note
 * says why) */
void bpf_pick__where(const struct session *s, const struct source *src, const struct bpf_plan *p,
		     char *where, size_t len);
void bpf_pick__to_tracepoint(struct bpf_plan *p, const char *why);
bool bpf_pick__tp_btf(const struct bpf_plan *p);
int bpf_offline__list(struct query *q, struct session *s, struct bpf_stmt *b);
/* engine/bpf_pairs.c: statement i over pairs() to the kernel, when its tables allow */
void bpf_pairs__pick(struct query *q, struct session *s, struct bpf_stmt *b, int i,
		     const struct bpf_stmt *parent, const struct query_ops *ops, void *ctx);
/* engine/bpf_parts.c: statement i's sub-SELECTs that read one table each, analyzed (b->parts);
 * the part of b that reads src, if any; statement i with its parts in the kernel read from
 * their groups (a part that could not be: all of them back on the ring) */
void bpf_parts__find(struct bpf_stmt *b, struct query *q, struct session *s, int i);
struct bpf_stmt *bpf_parts__of(struct bpf_stmt *b, const struct source *src);
void bpf_parts__swap(struct query *q, struct session *s, struct bpf_stmt *b, int i);
/* the WHERE tree at node n as a predicate of the program (engine/bpf_where.c); -1: refused */
int bpf_where__pred(struct an *a, int n);
/* the statement's WHERE: its terms (AND) as the program's predicate, each a term that reads
 * only GROUP BY keys and is not compiled left to the groups (a->on_groups); -1: refused */
int bpf_where__of(struct an *a, int n);
#endif
