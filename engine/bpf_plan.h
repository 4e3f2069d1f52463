/*
 * engine/bpf_plan.h - running a statement's GROUP BY in the kernel (docs/bpf.md).
 *
 * Planning calls bpf_pick__apply() once the statements are prepared and the workload forked:
 *   (1) each statement is read (engine/sql_expr.c) and, when it is one SELECT of one
 *       tracepoint table whose keys, aggregates and WHERE the compiler knows, turned into a
 *       struct bpf_plan and a rewritten statement that aggregates the groups instead
 *       (bpf_stmt__analyze: engine/bpf_plan.c);
 *   (2) a table goes to the kernel when exactly one statement reads it and that statement
 *       can: its program is loaded and attached (switched off), the rewritten statement
 *       replaces the original in q->stmts; else the table stays on the perf ring
 *       (engine/bpf_pick.c). Either way --explain says which path and why.
 * (3) Any failure (no BPF, no privilege, the verifier) leaves the table on the ring: one
 *     line through ops->notice, -v adds the verifier's last lines.
 */
#ifndef PERF_SQL_ENGINE_BPF_PLAN_H
#define PERF_SQL_ENGINE_BPF_PLAN_H
#include <stdbool.h>
#include <stdio.h>
#include "bpf/plan.h"
#include "engine/query.h"

#define BPF_DEFAULT_MAX_GROUPS 10240
#define BPF_DISTINCT_GROUPS 16 /* count(DISTINCT x): --max-groups times this many groups */

/* One statement, read. */
struct bpf_stmt {
	struct source *src;       /* the table it reads, when it was read that far */
	struct source *start_src; /* pairs(): the start table (src is the end's) */
	char pair_name[96];       /* pairs(): its perf_sql_stats row */
	bool ok;                  /* it can run in the kernel */
	bool count_only;          /* count(*) with no key and no WHERE: counting mode is cheaper */
	bool distinct;            /* count(DISTINCT x): x a key, a group per value (more room) */
	char why[256];            /* when not ok */
	struct bpf_plan plan;
	char *sql;          /* the rewritten statement (sqlite3_free) */
	char desc[512];     /* "(comm) -> count, sum(count)" */
	int nr_start_insns; /* offline: pairs()' start program's (engine/bpf_offline.c) */
	char module[40];    /* the groups' table the rewrite reads */
	/* a statement that is not one SELECT of one table: its sub-SELECTs that are
	 * (engine/bpf_parts.c), each compiled as when it stands alone */
	struct bpf_part *parts;
	int nr_parts;
	bool is_part;            /* this is one: loaded, its statement swapped in later */
	struct bpf_table *table; /* a part, or one of several(), once in the kernel */
	/* one of several statements over one table (engine/bpf_pick.c (2b)): its rewrite is
	 * prepared, not swapped in, until every one is in the kernel */
	bool defer;
	sqlite3_stmt *ready;
};

/* a sub-SELECT of a statement: a CTE's body, a subquery in FROM, an arm of a compound */
struct bpf_part {
	int start, end; /* its text in the statement */
	struct bpf_stmt st;
};

/* Reads statement orig (of q) into b; the rewritten statement reads table `module`. */
void bpf_stmt__analyze(struct bpf_stmt *b, struct query *q, struct session *s, sqlite3_stmt *orig,
		       const char *module);
void bpf_stmt__free(struct bpf_stmt *b);

/* (2) above; 0, or -ENOMEM. */
int bpf_pick__apply(struct query *q, struct session *s, const struct query_ops *ops, void *ctx);
/* --explain: the path of src (nothing when the planner never looked at it), the target of a
 * table fed by BPF and, before collecting, its rewritten statement and programs' listing
 * (bpf/listing.h); whether src is (or, offline, would be) fed by BPF. */
bool bpf_pick__explain(const struct session *s, const struct source *src, FILE *f);
#endif
