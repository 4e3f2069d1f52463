/*
 * vtab/pairs_int.h - what the pairs() table (vtab/pairs.c: arguments, planning, the SQLite
 * module) and its matcher (vtab/pairs_match.c: pending starts by key, pairing each window's
 * rows in time order) share. See vtab/pairs.c for how pairs() works.
 */
#ifndef PERF_SQL_PAIRS_INT_H
#define PERF_SQL_PAIRS_INT_H
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include "core/session.h"
#include "vtab/tp_table.h"

#define PAIRS_MAX_PENDING (1 << 20)
#define PAIRS_MAX 32 /* different pairs() (and as many pending()) per run */

enum spec_kind {
	SPEC_NONE,
	SPEC_FIELD,
	SPEC_TID,
	SPEC_PID,
	SPEC_CPU,
	SPEC_TIME,
	SPEC_COMM,
	SPEC_USTR, /* NAME_str: a user string the BPF program copied (bpf/user_str.h) */
	SPEC_STACK /* stack: the row's call chain, a stack BLOB (symbols/stack.h) */
};

struct spec {
	enum spec_kind kind;
	const struct tp_field *f;
	int ustr; /* SPEC_USTR: which of the event's user strings */
	const struct source *src;
};

struct cell {
	int type; /* SQLITE_NULL, SQLITE_INTEGER, SQLITE_TEXT or SQLITE_BLOB */
	int64_t i;
	char s[48];
	char *text; /* a longer text (a user string), or the BLOB: malloc'd, owned by the cell */
	size_t len; /* SQLITE_BLOB: its bytes */
};

static inline void cell_free(struct cell *c)
{
	free(c->text);
	c->text = NULL;
}

struct pending {
	int64_t key;
	uint64_t time, lost_mark;
	uint32_t cpu, pid, tid;
	bool used;
	struct cell value, value2; /* START_COL; pending(): its second START_COL */
};

static inline void pending__cells_free(struct pending *pe)
{
	cell_free(&pe->value);
	cell_free(&pe->value2);
}

struct pair_row {
	int64_t key;
	uint64_t start, end;
	uint32_t start_cpu, end_cpu, start_pid, start_tid, end_tid;
	bool lost;
	struct cell start_value, end_value;
};

struct pairer {
	char *args[6];
	bool pending;  /* pending(): the starts still waiting are the rows; end_col is a second
		       * column of the start table */
	uint64_t now;  /* pending(): the time its rows are of (now; a replay: its last row's) */
	uint64_t last; /* the latest row merged so far */
	struct source *start, *end;
	struct spec start_key, end_key, start_col, end_col;
	struct pending *tab; /* open addressing on key */
	uint32_t cap, used;
	struct pair_row *rows; /* this window's pairs */
	size_t nr_rows, cap_rows;
	int window; /* s->nr_windows the rows belong to, -1: none yet */
	int stat;   /* index in s->extra */
};

/* vtab/pairer.c: the pairer of these arguments (args[0..5], NULL where absent), found in
 * cache[0..*nr) or created there and planned (tables opened, raw data); NULL with *err set
 * (NULL too when out of memory). Freed by pairer__free(). */
struct pairer *pairer__get(struct session *s, struct pairer **cache, int *nr, bool pending,
			   char **args, char **err);
void pairer__free(struct pairer *p);
/* xBestIndex of pairs() and pending(): the literal arguments (hidden columns arg0..arg0+5)
 * read, the pairer got (info->idxNum its index in cache); an SQLite code, *err set on error */
int pairer__best_index(struct session *s, struct pairer **cache, int *nr, bool pending,
		       sqlite3_index_info *info, int arg0, char **err);
/* a cell as an SQL result (NULL: no result) */
void pairer__cell_result(sqlite3_context *ctx, const struct cell *v);
/* Frees this window's pairs (their texts too). */
void pairer__rows_free(struct pairer *p);
/* Once per window: merges both tables' rows in time order, pairing as rows go by, into
 * p->rows. 0 or -ENOMEM. */
int pairer__run(struct pairer *p);
#endif
