/*
 * tests/fuzz/fuzz_funcs.c - every SQL function, aggregate and table-valued function with typed
 * arguments decoded from the input, on three connections: the engine's over a capture
 * (vtabs__register + sql_functions__register, as engine/query.c; tests/sql/sleeps.cap, read
 * from the tree's root as make fuzz-smoke and test_fuzz_regress run), one without a session,
 * one whose session follows a task tree. What is called is read from each connection
 * (tests/fuzz/funcs.h), so a new function is fuzzed without a change here.
 *
 * Input: a header, then values until the input ends (then NULL):
 *   u8  connection (low 2 bits) and percentile()'s exact cap (next 2 bits: default, 0, 1, 7)
 *   u16 which function (modulo their number)
 *   u8  arity: a fixed one's own, or (bit 7) any of 0..7; a variadic one's 0..7
 *   u8  rows (1..16: over 1, a VALUES table GROUP BY the first column) and (high bits) groups
 *   per value: u8 type tag, then its bytes (fz_value() below): NULL, int64, a special int64,
 *   a double, a special double, text, blob, numeric text, an option word, and well-formed
 *   histograms, heatmaps, stacks, u64 counts and log-linear buckets of fuzzed fields.
 * (1) No crash, no sanitizer report, whatever the values.
 * (2) Each statement runs to its end or fails with one printable line that names the
 *     function (funcs_outcome_ok()); a runaway statement is interrupted.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <linux/perf_event.h>
#include <sqlite3.h>
#include "core/record.h"
#include "core/session.h"
#include "sqlite/functions.h"
#include "symbols/stack.h"
#include "vtab/blob_format.h"
#include "vtab/blob_rows.h"
#include "vtab/tp_table.h"
#include "fuzz.h"
#include "funcs.h"

#define FF_CONNS 3
#define FF_CALLEES 256
#define FF_ROWS_MAX 16
#define FF_ARGS_MAX 8
#define FF_BLOB_MAX 4096

static const int64_t ff_ints[] = { INT64_MIN,     INT64_MAX,     0,          1,          -1,
				   INT64_MIN + 1, INT64_MAX - 1, 1000000000, UINT32_MAX, 1LL << 32,
				   511,           512,           3775,       3776,       1LL << 62,
				   -(1LL << 62) };
static const double ff_doubles[] = { 1e308,  -1e308,  1.7976931348623157e308, -0.0,    0.5,
				     1e-300, -1e-300, 9.2233720368547758e18,  -9.3e18, 1e21 };
static const char *const ff_words[] = { "srcline",   "inline", "noinline", "srcline,inline",
					"ns",        "",       "vec",      "prev_state",
					"gfp_flags", "nosuch", " , ",      "bytes" };

struct ff_conn {
	sqlite3 *db;
	struct session *s;
	struct funcs_callee callees[FF_CALLEES];
	int nr;
};

static struct ff_conn ff_conns[FF_CONNS];
static int ff_nr_conns;
static struct session ff_tree_session;

static int ff_progress(void *arg) { return ++*(long *)arg > 2000; /* x 1000 instructions */ }

static long ff_ops;

static void ff_add_conn(sqlite3 *db, struct session *s)
{
	struct ff_conn *c = &ff_conns[ff_nr_conns++];

	c->db = db;
	c->s = s;
	sqlite3_limit(db, SQLITE_LIMIT_LENGTH, 1 << 20);
	sqlite3_progress_handler(db, 1000, ff_progress, &ff_ops);
	c->nr = funcs_list(db, c->callees, FF_CALLEES);
	FUZZ_ASSERT(c->nr > 0);
}

static void ff_init(void)
{
	struct session_opts so = { 0 };
	struct err e = { 0 };
	struct session *s;
	sqlite3 *db;

	/* the engine's connection over a capture, when run from the tree's root */
	if ((s = session__new_replay(&so, "tests/sql/sleeps.cap", &e))) {
		FUZZ_ASSERT(sqlite3_open(":memory:", &db) == SQLITE_OK);
		FUZZ_ASSERT(vtabs__register(db, s) == SQLITE_OK);
		FUZZ_ASSERT(sql_functions__register(db, s) == SQLITE_OK);
		ff_add_conn(db, s);
	}
	FUZZ_ASSERT(sqlite3_open(":memory:", &db) == SQLITE_OK);
	FUZZ_ASSERT(sql_functions__register(db, NULL) == SQLITE_OK);
	FUZZ_ASSERT(blob_rows__register(db) == SQLITE_OK);
	ff_add_conn(db, NULL);
	ff_tree_session.tree.active = true;
	tree__add(&ff_tree_session.tree, 1);
	tree__fork(&ff_tree_session.tree, 2, 100);
	FUZZ_ASSERT(sqlite3_open(":memory:", &db) == SQLITE_OK);
	FUZZ_ASSERT(sql_functions__register(db, &ff_tree_session) == SQLITE_OK);
	ff_add_conn(db, &ff_tree_session);
}

/* a number for a structured field: a special one or 8 input bytes */
static uint64_t ff_num(struct fz *f)
{
	uint8_t sel = fz_u8(f);

	if (sel < 0x40)
		return fz_u64(f);
	if (sel < 0x80)
		return sel & 0x3f;
	return (uint64_t)ff_ints[sel % (sizeof(ff_ints) / sizeof(ff_ints[0]))];
}

static void *ff_hist(struct fz *f, int *len)
{
	uint64_t counts[HIST_LOG2_NR + 8];
	uint8_t kind = fz_u8(f);
	uint32_t nr = fz_u8(f) % (HIST_LOG2_NR + 8);
	int64_t min = (int64_t)ff_num(f), max = (int64_t)ff_num(f), step = (int64_t)ff_num(f);

	for (uint32_t i = 0; i < nr; i++)
		counts[i] = ff_num(f);
	return hist_blob__encode(kind & 1 ? HIST_LIN : HIST_LOG2, kind & 2 ? "ns" : "", min, max,
				 step, counts, nr, len);
}

static void *ff_heatmap(struct fz *f, int *len)
{
	uint32_t nr_slots = 1 + fz_u8(f) % 8;
	int64_t slot_ns = (int64_t)ff_num(f), t0 = (int64_t)ff_num(f);
	uint64_t *rows = calloc((size_t)nr_slots * HIST_LOG2_NR, sizeof(*rows));
	void *b;

	if (!rows)
		return NULL;
	for (uint32_t s = 0; s < nr_slots; s++)
		rows[s * HIST_LOG2_NR + fz_u8(f) % HIST_LOG2_NR] = ff_num(f) | 1;
	b = heatmap_blob__encode(rows, nr_slots, slot_ns, t0, len);
	free(rows);
	return b;
}

static void *ff_stack(struct fz *f, int *len)
{
	uint64_t frames[32];
	size_t nr = fz_u8(f) % 32, blen;
	char comm[STACK_COMM_LEN + 1];
	uint32_t pid = (uint32_t)ff_num(f);
	void *b;

	for (size_t i = 0; i < nr; i++) {
		uint8_t sel = fz_u8(f);

		frames[i] = sel < 0x20   ? (uint64_t)PERF_CONTEXT_KERNEL
			    : sel < 0x40 ? (uint64_t)PERF_CONTEXT_USER
					 : ff_num(f);
	}
	fz_str(f, comm, sizeof(comm));
	b = stack_blob__new(pid, pid, comm, frames, nr, &blen);
	*len = (int)blen;
	return b;
}

/* u64 counts (n) or (bucket, count) pairs (n pairs) */
static void *ff_u64s(struct fz *f, int *len, bool pairs)
{
	size_t n = fz_u8(f) % (pairs ? 16 : 72) * (pairs ? 2 : 1);
	uint64_t *v = malloc(n ? n * 8 : 1);

	if (!v)
		return NULL;
	for (size_t i = 0; i < n; i++)
		v[i] = pairs && i % 2 == 0 ? fz_u32(f) % 4096 : ff_num(f); /* 3775: the last */
	*len = (int)(n * 8);
	return v;
}

static void ff_bind_bytes(sqlite3_stmt *st, int col, struct fz *f, bool text)
{
	size_t n = fz_u8(f);

	if (n > f->left)
		n = f->left;
	if (text)
		sqlite3_bind_text(st, col, (const char *)f->p, (int)n, SQLITE_TRANSIENT);
	else
		sqlite3_bind_blob(st, col, f->p, (int)n, SQLITE_TRANSIENT);
	f->p += n;
	f->left -= n;
}

/* one value from the input into parameter col */
static void fz_value(sqlite3_stmt *st, int col, struct fz *f)
{
	uint8_t tag = fz_u8(f);
	void *blob = NULL;
	char buf[64];
	uint64_t u;
	double d;
	int len = 0;

	switch (tag % 16) {
	case 1: sqlite3_bind_int64(st, col, (int64_t)fz_u64(f)); return;
	case 2: sqlite3_bind_int64(st, col, (int64_t)ff_num(f)); return;
	case 3: sqlite3_bind_int64(st, col, (int8_t)fz_u8(f)); return;
	case 4:
		u = fz_u64(f);
		memcpy(&d, &u, sizeof(d));
		sqlite3_bind_double(st, col, d); /* a NaN binds as NULL */
		return;
	case 5:
		sqlite3_bind_double(
			st, col,
			ff_doubles[fz_u8(f) % (sizeof(ff_doubles) / sizeof(ff_doubles[0]))]);
		return;
	case 6: ff_bind_bytes(st, col, f, true); return;
	case 7: ff_bind_bytes(st, col, f, false); return;
	case 8: blob = ff_hist(f, &len); break;
	case 9: blob = ff_heatmap(f, &len); break;
	case 10: blob = ff_stack(f, &len); break;
	case 11: blob = ff_u64s(f, &len, false); break;
	case 12: blob = ff_u64s(f, &len, true); break;
	case 13: /* numeric text: integer affinity, or a REAL's text */
		if (tag & 0x10)
			snprintf(buf, sizeof(buf), "%lld", (long long)ff_num(f));
		else
			snprintf(buf, sizeof(buf), "%.17g", (double)(int64_t)ff_num(f) * 1.5);
		sqlite3_bind_text(st, col, buf, -1, SQLITE_TRANSIENT);
		return;
	case 14:
		sqlite3_bind_text(st, col,
				  ff_words[fz_u8(f) % (sizeof(ff_words) / sizeof(ff_words[0]))], -1,
				  SQLITE_STATIC);
		return;
	default: sqlite3_bind_null(st, col); return;
	}
	if (blob)
		sqlite3_bind_blob(st, col, blob, len, SQLITE_TRANSIENT);
	free(blob);
}

static int ff_arity(const struct funcs_callee *c, uint8_t b)
{
	if (c->table)
		return b % (c->narg + 2);
	if (c->narg < 0 || (b & 0x80))
		return b % FF_ARGS_MAX;
	return c->narg;
}

int FUZZ_ENTRY(const uint8_t *data, size_t size)
{
	static const long caps[] = { -1, 0, 1, 7 };
	struct fz f = { data, size };
	struct funcs_callee *c;
	struct ff_conn *conn;
	sqlite3_stmt *st = NULL;
	uint8_t head, rows_b;
	unsigned which;
	int narg, rows, groups, p = 1, rc;
	char *sql;

	if (!ff_nr_conns)
		ff_init();
	head = fz_u8(&f);
	conn = &ff_conns[(head & 3) % ff_nr_conns];
	percentile_set_exact_cap(caps[(head >> 2) & 3]);
	which = fz_u8(&f);
	which |= (unsigned)fz_u8(&f) << 8;
	c = &conn->callees[which % (unsigned)conn->nr];
	narg = ff_arity(c, fz_u8(&f));
	rows_b = fz_u8(&f);
	rows = c->table ? 1 : 1 + rows_b % FF_ROWS_MAX;
	groups = 1 + (rows_b >> 4) % 4;
	sql = funcs_sql(c, narg, rows);
	FUZZ_ASSERT(sql != NULL);
	rc = sqlite3_prepare_v2(conn->db, sql, -1, &st, NULL);
	for (int r = 0; rc == SQLITE_OK && r < rows; r++) {
		if (rows > 1)
			sqlite3_bind_int(st, p++, r % groups);
		for (int a = 0; a < narg; a++)
			fz_value(st, p++, &f);
	}
	ff_ops = 0;
	if (rc == SQLITE_OK)
		rc = funcs_step_all(conn->db, st);
	if (!funcs_outcome_ok(conn->db, rc, c->name)) {
		fprintf(stderr, "%s: rc %d: %s\n", sql, rc, sqlite3_errmsg(conn->db));
		FUZZ_ASSERT(!"an error that names the function, on one printable line");
	}
	sqlite3_finalize(st);
	sqlite3_free(sql);
	percentile_set_exact_cap(-1);
	return 0;
}
