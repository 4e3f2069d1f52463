/*
 * engine/query.c - one query, end to end (see engine/query.h): open a session, plan (prepare
 * every statement and run it once over empty windows, so the tables named, columns read and
 * WHERE values decide what is opened and filtered), collect, and hand each window to the
 * caller. The command line, the REPL, the server and the extension all run queries here.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include "bpf/facts.h"
#include "bpf/pairs.h"
#include "bpf/source.h"
#include "bpf/table.h"
#include "core/bp_probe.h"
#include "core/capture.h"
#include "core/record.h"
#include "engine/bpf_plan.h"
#include "engine/pushdown.h"
#include "engine/query.h"
#include "engine/user_str.h"
#include "sqlite/functions.h"
#include "symbols/probes.h"
#include "vtab/tp_table.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

static void notice(const struct query_ops *ops, void *ctx, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void notice(const struct query_ops *ops, void *ctx, const char *fmt, ...)
{
	char line[1024];
	va_list ap;

	if (!ops->notice)
		return;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	ops->notice(ctx, line);
}

int query__sql_err(struct query *q, struct session *s, const char *msg, struct err *e)
{
	const char *key = "no such table: ";
	char near[256] = "";

	msg = lockdown__error(&q->lock, msg); /* the time budget, a refusal: say which */
	err_set(e, -EINVAL, "%s", msg);
	if (!strncmp(msg, key, strlen(key))) {
		const char *name = msg + strlen(key);

		if (!strncmp(name, "main.", 5))
			name += 5;
		catalog__suggest(s->cat, name, near, sizeof(near));
		if (near[0])
			err_hint(e, "did you mean: %s?", near);
		else
			err_hint(e,
				 "list tables with: perf-sql \"select name from perf_sql_events\"");
	} else if (!strncmp(msg, "no such column: ", 16)) {
		err_hint(e, "list a table's columns with: perf-sql --schema TABLE");
	} else if (!strncmp(msg, "vtable constructor called recursively: ", 39)) {
		err_set(e, -EINVAL,
			"profiler %s refers to itself (its SQL selects from it, directly "
			"or through another profiler)",
			msg + 39);
	}
	return -EINVAL;
}

int query__bind_params(struct query *q, sqlite3_stmt *st)
{
	for (int i = 0; i < q->nr_params; i++) {
		const struct query_param *p = &q->params[i];
		int idx = sqlite3_bind_parameter_index(st, p->name), rc = SQLITE_OK;

		if (!idx)
			continue;
		switch (p->type) {
		case SQLITE_INTEGER: rc = sqlite3_bind_int64(st, idx, p->i); break;
		case SQLITE_FLOAT: rc = sqlite3_bind_double(st, idx, p->d); break;
		case SQLITE_TEXT:
			rc = sqlite3_bind_text(st, idx, p->text, -1, SQLITE_TRANSIENT);
			break;
		default: rc = sqlite3_bind_null(st, idx); break;
		}
		if (rc != SQLITE_OK)
			return rc;
	}
	return SQLITE_OK;
}

/* SQL that does not prepare (syntax, no such table or column, a bad parameter) is the
 * caller's input, as are the engine's limits: usage, exit 2 (docs/cli.md#exit-statuses) */
static int prepare_err(struct query *q, struct session *s, struct err *e)
{
	query__sql_err(q, s, sqlite3_errmsg(q->db), e);
	return err_usage(e);
}

static int prepare_all(struct query *q, struct session *s, struct err *e)
{
	const char *sql = q->run_sql ? q->run_sql : q->sql, *tail;

	if (vtabs__need_sql(q->db, s, sql) != SQLITE_OK)
		return err_set(e, -ENOMEM, "sqlite: %s", sqlite3_errmsg(q->db));
	while (sql && *sql) {
		sqlite3_stmt *st = NULL;
		int rc;

		session__reading(s, q->nr_stmts); /* the tables say they are read (bpf_pick.c) */
		rc = sqlite3_prepare_v2(q->db, sql, -1, &st, &tail);
		session__reading(s, -1);
		if (rc != SQLITE_OK && q->run_sql) {
			for (int i = 0; i < q->nr_stmts; i++) /* as written, then */
				sqlite3_finalize(q->stmts[i]);
			q->nr_stmts = 0;
			sqlite3_free(q->run_sql);
			q->run_sql = NULL;
			session__reading(s, -2);
			return prepare_all(q, s, e);
		}
		if (rc != SQLITE_OK)
			return prepare_err(q, s, e);
		sql = tail;
		if (!st)
			continue; /* whitespace or a comment */
		if (query__bind_params(q, st) != SQLITE_OK) {
			sqlite3_finalize(st);
			return prepare_err(q, s, e);
		}
		if (q->nr_stmts == QUERY_MAX_STMTS) {
			sqlite3_finalize(st);
			err_set(e, -E2BIG, "too many statements: at most %d", QUERY_MAX_STMTS);
			return err_usage(e);
		}
		q->stmts[q->nr_stmts++] = st;
	}
	if (!q->nr_stmts) {
		err_set(e, -EINVAL, "no SQL statement in '%s'", q->sql ? q->sql : "");
		return err_usage(e);
	}
	return 0;
}

/*
 * Planning dry run: every statement runs once over empty windows, so each table scan sees its
 * constraints' actual values (parameters, workload_pid()) and turns them into kernel filters;
 * values computed from rows are marked first (engine/pushdown.c) and never pushed.
 */
static int dry_run(struct query *q, struct session *s, struct err *e)
{
	int ret = 0;

	s->nr_row_args = 0;
	s->row_args_full = false;
	for (int i = 0; i < q->nr_stmts && !ret; i++)
		if (pushdown__mark(q->db, q->stmts[i], s))
			ret = err_set(e, -ENOMEM, "out of memory reading the query's plan");
	if (ret)
		return ret;
	s->dry_run = true;
	lockdown__arm(&q->lock);
	q->lock.stop_seen = 0; /* planning: a stop that came already ends it (lockdown.h) */
	for (int i = 0; i < q->nr_stmts && !ret; i++) {
		int rc;

		while ((rc = sqlite3_step(q->stmts[i])) == SQLITE_ROW)
			;
		sqlite3_reset(q->stmts[i]);
		if (rc != SQLITE_DONE)
			ret = query__sql_err(q, s, sqlite3_errmsg(q->db), e);
	}
	s->dry_run = false;
	return ret;
}

/* the part of a lost warning after "TABLE lost N events in this window" for ring losses */
static int ring_remedy(char *buf, size_t len, const struct session *s, unsigned long long ring,
		       unsigned long long dropped, bool some)
{
	if (dropped)
		return snprintf(
			buf, len,
			", %llu of them past --max-memory (%zu MiB); raise --max-memory, use "
			"-i, or filter more in WHERE%s",
			dropped, s->opts.max_memory ? s->opts.max_memory >> 20 : 256,
			ring > dropped ? "; raise -m for the rest the ring had no room for" : "");
	return snprintf(buf, len, "; raise -m (now %d pages) or filter more in WHERE%s",
			s->opts.mmap_pages, some ? " for the ones the ring had no room for" : "");
}

/* a replayed table: events lost when it was recorded, and rows this replay did not keep */
static void replay_warning(const struct session *s, const struct source *src,
			   unsigned long long lost, unsigned long long dropped, char *buf,
			   size_t len)
{
	unsigned long long recorded = lost > dropped ? lost - dropped : 0;
	size_t max = s->opts.max_memory ? s->opts.max_memory : (size_t)256 << 20;
	int off = 0;

	if (recorded)
		off = snprintf(buf, len,
			       "warning: %s lost %llu events in this window when it was recorded%s",
			       src->ev->full, recorded, dropped ? ";" : "");
	else
		off = snprintf(buf, len, "warning: %s:", src->ev->full);
	if (dropped && off >= 0 && (size_t)off < len)
		snprintf(
			buf + off, len - (size_t)off,
			" %llu %srows of this window were past --max-memory (%zu %s) in this "
			"replay and not kept (counted as lost); raise --max-memory, replay with -i "
			"(a recorded window at a time), or filter more in WHERE",
			dropped, recorded ? "more " : "", max >= (1 << 20) ? max >> 20 : max >> 10,
			max >= (1 << 20) ? "MiB" : "KiB");
}

/* a table aggregated in the kernel: groups the map had no room for, chains the stack map had
 * none for, runs the kernel skipped (bpf/table.h (2), (2c), (4)); each with its remedy */
static void bpf_warning(const struct source *src, unsigned long long lost, int max_groups,
			unsigned long long nostack, unsigned long long skipped, char *buf,
			size_t len)
{
	unsigned long long full;
	int off;

	max_groups = max_groups > 0 ? max_groups : BPF_DEFAULT_MAX_GROUPS;
	skipped = skipped > lost ? lost : skipped;
	nostack = nostack > lost - skipped ? lost - skipped : nostack;
	full = lost - skipped - nostack;
	if (full)
		off = snprintf(buf, len,
			       "warning: %s: %llu events of this window found the BPF map full and "
			       "were not aggregated",
			       src->ev->full, full);
	else
		off = snprintf(buf, len, "warning: %s:", src->ev->full);
	if (nostack && off >= 0 && (size_t)off < len)
		off += snprintf(buf + off, len - (size_t)off,
				"%s %llu %shad a call chain the BPF stack map could not take "
				"(full) and were not aggregated",
				full ? "," : "", nostack,
				full ? "more " : "events of this window ");
	if ((full || nostack) && off >= 0 && (size_t)off < len)
		off += snprintf(buf + off, len - (size_t)off, "; raise --max-groups (now %d)%s",
				max_groups, skipped ? ";" : "");
	if (skipped && off >= 0 && (size_t)off < len)
		snprintf(buf + off, len - (size_t)off,
			 " %llu %swere not aggregated: the kernel did not run the program (another "
			 "BPF program or a BPF map call held the CPU); --no-bpf counts on the perf "
			 "ring",
			 skipped, full || nostack ? "more " : "events of this window ");
}

void query__lost_warning(const struct session *s, const struct source *src, int max_groups,
			 unsigned long long nostack, unsigned long long skipped, char *buf,
			 size_t len)
{
	unsigned long long lost = 0, dropped = 0, ring = 0, unwritten;
	int off;

	for (int k = 0; k < s->nr_cpus; k++) {
		lost += src->lost[k];
		dropped += src->dropped[k];
		ring += src->lost_ring ? src->lost_ring[k] : 0;
	}
	buf[0] = '\0';
	if (!lost)
		return;
	if (src->bpf) {
		bpf_warning(src, lost, max_groups, nostack, skipped, buf, len);
		return;
	}
	if (s->replay) {
		replay_warning(s, src, lost, dropped, buf, len);
		return;
	}
	/* lost_ring: PERF_FORMAT_LOST and --max-memory refusals; the rest was never written */
	ring = ring < dropped ? dropped : ring > lost ? lost : ring;
	unwritten = lost - ring;
	off = snprintf(buf, len, "warning: %s lost %llu events in this window", src->ev->full,
		       lost);
	if (ring && off >= 0 && (size_t)off < len)
		off += ring_remedy(buf + off, len - (size_t)off, s, ring, dropped, unwritten > 0);
	if (unwritten && off >= 0 && (size_t)off < len)
		snprintf(
			buf + off, len - (size_t)off,
			ring ? "; the other %llu the kernel counted and never wrote (no -m brings "
			       "those back)"
			     : ": the kernel counted them and never wrote them (a tracepoint in an "
			       "idle CPU's interrupts, or an event of a sleeping task); no -m or "
			       "WHERE brings them back (docs/reliability.md)",
			unwritten);
}

bool query__lost_again(struct source *src, const struct session *s)
{
	unsigned long long lost = 0, ring = 0;

	if (src->bpf || s->replay)
		return false;
	for (int k = 0; k < s->nr_cpus; k++) {
		lost += src->lost[k];
		ring += src->dropped[k] + (src->lost_ring ? src->lost_ring[k] : 0);
	}
	if (!lost || ring)
		return false;
	if (!src->unwritten_said) {
		src->unwritten_said = true;
		return false;
	}
	src->unwritten_later += lost;
	return true;
}

void query__lost_repeats(const struct source *src, char *buf, size_t len)
{
	buf[0] = '\0';
	if (src->unwritten_later)
		snprintf(buf, len,
			 "warning: %s lost %llu more events in later windows, all of them counted "
			 "by the kernel and never written, as said above (perf_sql_stats has each "
			 "window's)",
			 src->ev->full, (unsigned long long)src->unwritten_later);
}

/* a pairs() row whose starts or ends the kernel lost (bpf/pairs.h (2)): one line, or "" */
void query__pairs_warning(const struct extra_stat *x, int max_pending, char *buf, size_t len)
{
	int off;

	buf[0] = '\0';
	if (!x->pairs || (!x->refused && !x->skipped))
		return;
	off = snprintf(buf, len,
		       "warning: %s: %llu %s of this window were lost in the kernel:", x->name,
		       (unsigned long long)(x->refused + x->skipped),
		       strncmp(x->name, "pending(", 8) ? "pairs" : "starts or ends");
	if (x->refused && off >= 0 && (size_t)off < len)
		off += snprintf(buf + off, len - (size_t)off,
				" %llu starts found the pending map full (raise --max-groups, "
				"now %d pending starts)%s",
				(unsigned long long)x->refused, max_pending, x->skipped ? ";" : "");
	if (x->skipped && off >= 0 && (size_t)off < len)
		snprintf(buf + off, len - (size_t)off,
			 " %llu starts or ends the kernel did not run the program for (it already "
			 "ran on that CPU when an interrupt fired the event, or, on a classic "
			 "tracepoint, another BPF program or a BPF map call held the CPU; --no-bpf "
			 "pairs on the ring)",
			 (unsigned long long)x->skipped);
}

static void warn_lost(struct query *q, struct session *s, const struct query_ops *ops, void *ctx)
{
	char line[640];
	int max_pending =
		q->max_groups > BPF_PAIRS_MAX_PENDING ? q->max_groups : BPF_PAIRS_MAX_PENDING;
	int max = 0;
	unsigned long long refused = bpf_session__tree_refused(s, &max);

	for (int i = 0; i < s->nr_extra; i++) {
		query__pairs_warning(&s->extra[i], max_pending, line, sizeof(line));
		if (line[0])
			notice(ops, ctx, "%s", line);
	}
	if (refused)
		notice(ops, ctx,
		       "warning: %llu new tasks of the %s were not followed in the kernel (its BPF "
		       "map of tasks holds %d alive at once): tables aggregated in the kernel miss "
		       "their events; use --no-bpf (the perf ring follows every task)",
		       refused, s->wl.pid ? "workload" : "targets", max);

	for (int i = 0; i < s->nr_src; i++) {
		const struct bpf_table *t =
			s->src[i]->bpf ? bpf_session__table(s, s->src[i]) : NULL;

		if (query__lost_again(s->src[i], s))
			continue;
		query__lost_warning(s, s->src[i], q->max_groups, t ? t->nr_nostack : 0,
				    t ? t->nr_skipped : 0, line, sizeof(line));
		if (line[0])
			notice(ops, ctx, "%s", line);
	}
}

struct run_ctx {
	struct query *q;
	const struct query_ops *ops;
	void *ctx;
	struct err e; /* why a window failed (the session's error only says "query failed") */
};

static int on_window(void *arg, struct session *s)
{
	struct run_ctx *r = arg;
	int ret;

	warn_lost(r->q, s, r->ops, r->ctx);
	if (r->q->capture) { /* recording: the window's rows go to the file */
		if ((ret = record__window(s, r->q->capture)))
			err_set(&r->e, ret, "%s: %s", r->q->record_path, strerror(-ret));
		return ret;
	}
	lockdown__arm(&r->q->lock);
	return r->ops->window ? r->ops->window(r->ctx, r->q, s, &r->e) : 0;
}

/*
 * A breakpoint table with no rows: did nothing touch the address, or does this machine not
 * deliver breakpoint hits at all (some hypervisors)? The probe of a store of our own says.
 */
static int probe_breakpoints(struct session *s)
{
	for (int i = 0; i < s->nr_src; i++)
		if (s->src[i]->ev->kind == EV_BREAKPOINT && !s->replay)
			return bp_probe__hits();
	return -ENOENT; /* no breakpoint table */
}

static void report_breakpoints(struct session *s, int hits, const struct query_ops *ops, void *ctx)
{
	for (int i = 0; i < s->nr_src && hits == 0; i++)
		if (s->src[i]->ev->kind == EV_BREAKPOINT && !s->src[i]->total_received)
			notice(ops, ctx,
			       "warning: %s: no rows, and this machine delivers no hardware "
			       "breakpoint hits (a breakpoint on a store of perf-sql's own counted "
			       "0 of "
			       "16 writes; some hypervisors accept breakpoints and never fire "
			       "them)",
			       s->src[i]->ev->full);
}

static void report_workload(const struct workload *w, const struct query_ops *ops, void *ctx)
{
	if (!w->pid || !w->exited)
		return;
	if (WIFEXITED(w->status) && WEXITSTATUS(w->status))
		notice(ops, ctx, "workload '%s' exited with status %d", w->argv[0],
		       WEXITSTATUS(w->status));
	else if (WIFSIGNALED(w->status))
		notice(ops, ctx, "workload '%s' was killed by signal %d (%s)", w->argv[0],
		       WTERMSIG(w->status), strsignal(WTERMSIG(w->status)));
}

/* --uprobe/--uretprobe/--breakpoint tables join the catalog before the tables are registered */
static int add_probes(struct query *q, struct session *s, struct err *e)
{
	int nr_bp = 0, ret = 0;

	for (int i = 0; i < q->nr_probes && !ret; i++) {
		if (q->probes[i].kind == PROBE_BREAKPOINT)
			ret = probes__add_breakpoint(s->cat, q->probes[i].spec,
						     q->so.workload ? q->so.workload[0] : NULL,
						     nr_bp++, e);
		else if (q->probes[i].kind == PROBE_USDT)
			ret = probes__add_usdt(s->cat, q->probes[i].spec, e);
		else
			ret = probes__add_uprobe(s->cat, q->probes[i].spec,
						 q->probes[i].kind == PROBE_URETPROBE, e);
	}
	return ret;
}

/* the kernel's facts (bpf/facts.h), so --explain over the capture lists what this kernel would
 * load; none without BTF (a replay then asks the replaying kernel's) */
static int record_facts(struct query *q, struct session *s)
{
	const struct bpf_facts *f = bpf_facts__kernel(NULL);
	char *buf = NULL;
	size_t len = 0;
	FILE *o;
	int ret;

	if (!f)
		return 0;
	if (!(o = open_memstream(&buf, &len)))
		return -ENOMEM;
	ret = bpf_facts__write(f, s->nr_cpu_ids, o);
	ret = fclose(o) ? -ENOMEM : ret ? ret : capture__write(q->capture, CAP_FACTS, buf, len);
	free(buf);
	return ret;
}

static int record_start(struct query *q, struct session *s, struct err *e)
{
	int ret;

	if (!(q->capture = capture__create(q->record_path, e)))
		return e->code ? e->code : -ENOMEM;
	ret = record__begin(s, q->capture, q->command_line ? q->command_line : "");
	if (!ret)
		ret = record_facts(q, s);
	if (ret)
		return err_set(e, ret, "%s: %s", q->record_path, strerror(-ret));
	q->record_t0 = now_ns(CLOCK_MONOTONIC);
	return 0;
}

/* the capture's last block, then what was written: events, compression ratio, write rate */
static int record_finish(struct query *q, struct session *s, const struct query_ops *ops, void *ctx,
			 struct err *e)
{
	uint64_t raw, file, events = 0, lost = 0;
	double secs = (double)(now_ns(CLOCK_MONOTONIC) - q->record_t0) / 1e9;
	int ret = record__end(s, q->capture);

	capture__sizes(q->capture, &raw, &file);
	if (capture__close(q->capture, e) || ret) {
		q->capture = NULL;
		return e->code ? e->code
			       : err_set(e, ret, "%s: %s", q->record_path, strerror(-ret));
	}
	q->capture = NULL;
	for (int i = 0; i < s->nr_src; i++) {
		events += s->src[i]->total_received;
		lost += s->src[i]->total_lost;
	}
	notice(ops, ctx,
	       "recorded %llu events (%llu lost) of %d tables in %s: %.1f MB of rows in "
	       "%.1f MB (%.1fx), %.1f MB/s",
	       (unsigned long long)events, (unsigned long long)lost, s->nr_src, q->record_path,
	       (double)raw / 1e6, (double)file / 1e6, file ? (double)raw / (double)file : 0.0,
	       secs > 0 ? (double)file / 1e6 / secs : 0.0);
	return 0;
}

/* the connection: the tables of s (an event's once a statement names it: prepare_all()) and
 * its functions, locked down */
static int open_db(struct query *q, struct session *s, struct err *e)
{
	char *msg = NULL;

	int rc = sqlite3_open_v2(":memory:", &q->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_MEMORY,
				 NULL);

	if (rc == SQLITE_OK && (rc = vtabs__register_lazy(q->db, s)) == SQLITE_OK)
		rc = sql_functions__register(q->db, s);
	if (rc != SQLITE_OK)
		return err_set(e, -ENOMEM, "sqlite: %s", sqlite3_errstr(rc));
	if (q->extend && q->extend(q->db, s, q->sql, e))
		return e->code;
	if (q->rewrite && !q->no_bpf)
		q->run_sql = q->rewrite(q->db, s, q->sql);
	if (lockdown__apply(q->db, &q->lock, &msg)) {
		err_set(e, -EINVAL, "%s", msg ? msg : "sqlite: cannot lock the connection down");
		sqlite3_free(msg);
		return -EINVAL;
	}
	return 0;
}

static int plan(struct query *q, struct session *s, const struct query_ops *ops, void *ctx,
		struct err *e)
{
	int ret;

	s->no_pushdown = q->no_pushdown;
	s->keep_names = q->record_path != NULL; /* a replay may read any task's name */
	if ((ret = add_probes(q, s, e)) || (ret = open_db(q, s, e)) ||
	    (ret = prepare_all(q, s, e)) || (ret = session__fork(s, e)) ||
	    (ret = bpf_pick__apply(q, s, ops, ctx)) ||
	    (ret = user_str_plan__apply(q, s, ops, ctx, e)) || (ret = dry_run(q, s, e)))
		return ret;
	session__plan_filters(s);
	return ops->planned ? ops->planned(ctx, q, s) : 0;
}

static int run(struct query *q, struct session *s, const struct query_ops *ops, void *ctx,
	       struct err *e)
{
	struct run_ctx r = { q, ops, ctx, { 0 } };
	int ret, bp_hits;

	if ((ret = plan(q, s, ops, ctx, e)) || q->plan_only)
		return ret;
	if (replay__note(s)) /* a capture cut short: its answers are of the part before the cut */
		notice(ops, ctx, "warning: %s", replay__note(s));
	if ((ret = session__start(s, e)) || (ops->started && (ret = ops->started(ctx, q, s))))
		return ret;
	if (q->record_path && (ret = record_start(q, s, e)))
		return ret;
	bp_hits = probe_breakpoints(s);
	if ((ret = session__run(s, on_window, &r, e))) {
		if (r.e.code)
			*e = r.e;
		return ret;
	}
	if (q->capture && (ret = record_finish(q, s, ops, ctx, e)))
		return ret;
	for (int i = 0; i < s->nr_src; i++) {
		char line[256];

		query__lost_repeats(s->src[i], line, sizeof(line));
		if (line[0])
			notice(ops, ctx, "%s", line);
	}
	report_breakpoints(s, bp_hits, ops, ctx);
	report_workload(&s->wl, ops, ctx);
	return 0;
}

static void query__end(struct query *q, struct session *s)
{
	for (int i = 0; i < q->nr_stmts; i++)
		sqlite3_finalize(q->stmts[i]);
	q->nr_stmts = 0;
	sqlite3_close(q->db); /* before the session: the tables point into it */
	q->db = NULL;
	sqlite3_free(q->run_sql);
	q->run_sql = NULL;
	if (q->capture) { /* a failed recording: close what was written */
		struct err ignore = { 0 };

		capture__close(q->capture, &ignore);
		q->capture = NULL;
	}
	session__close(s);
}

/* --kernel-facts DIR: its BTF facts (DIR/facts); an offline plan (nothing is loaded) */
static int open_facts(struct query *q, struct err *e)
{
	char path[1024];

	if (q->so.workload || q->so.pid_list || q->so.tid_list || q->so.cgroup) {
		err_set(e, -EINVAL,
			"--kernel-facts plans for every task of another kernel: -- CMD, -p, -t and "
			"--cgroup need the running one");
		err_hint(e, "leave them out, or use --explain without --kernel-facts");
		return err_usage(e);
	}
	snprintf(path, sizeof(path), "%s/facts", q->kernel_facts);
	if (!(q->facts = bpf_facts__open(path, e)))
		return e->code;
	q->plan_only = true;
	return 0;
}

/* --kernel-facts DIR without a capture: the tables are DIR/events' formats */
static struct session *new_formats(struct query *q, struct err *e)
{
	char path[1024];

	snprintf(path, sizeof(path), "%s/events", q->kernel_facts);
	return session__new_formats(&q->so, path, bpf_facts__nr_cpu_ids(q->facts), e);
}

int query__run(struct query *q, const struct query_ops *ops, void *ctx, struct err *e)
{
	struct session *s;
	int ret;

	q->db = NULL;
	q->nr_stmts = 0;
	if (q->kernel_facts && (ret = open_facts(q, e)))
		return ret;
	/* session_stop is the caller's: a signal that came before this run still stops it */
	s = q->replay_path    ? session__new_replay(&q->so, q->replay_path, e)
	    : q->kernel_facts ? new_formats(q, e)
			      : session__new(&q->so, e);
	if (!s) {
		bpf_facts__free(q->facts);
		q->facts = NULL;
		return e->code ? e->code : -ENOMEM;
	}
	if (!q->facts && q->plan_only && replay__facts(s) && /* the recording kernel's */
	    !(q->facts = bpf_facts__parse(replay__facts(s), q->replay_path, e))) {
		session__close(s);
		return e->code;
	}
	ret = run(q, s, ops, ctx, e);
	query__end(q, s);
	bpf_facts__free(q->facts);
	q->facts = NULL;
	return ret;
}

int query__check(struct query *q, struct err *e)
{
	struct session_opts so = { 0 };
	struct session *s = session__new(&so, e);
	int ret;

	if (!s)
		return e->code ? e->code : -ENOMEM;
	q->db = NULL;
	q->nr_stmts = 0;
	ret = open_db(q, s, e);
	if (!ret)
		ret = prepare_all(q, s, e);
	query__end(q, s);
	return ret;
}
