/*
 * perf_sql_text(V) - scalar: V as perf-sql's csv and json output print it: a histogram
 *   (log2_hist, lin_hist) as its JSON array [{"low":..,"high":..,"count":..},...], any other
 *   BLOB (a heatmap, a stack, an array field) in lower-case hex; other values unchanged.
 * perf_sql_bars(V) - scalar: V as perf-sql's table output prints it: a histogram as bcc-style
 *   star bars, a heatmap as its shaded grid; any other value as perf_sql_text(V).
 *
 *   SELECT perf_sql_text(log2_hist(count)) FROM sys_enter_write;
 *   SELECT perf_sql_bars(log2_hist(count, 'bytes')) FROM sys_enter_write;
 *
 * (1) The aggregates return BLOBs so that they compose (hist_rows(), heatmap_rows()); these two
 *     give a host program the text perf-sql would print. NULL stays NULL.
 * Also here: the JSON values of perf_sql_collect()'s rows, as perf-sql --json writes them.
 */
#include <stdlib.h>
#include "ext/ext.h"
#include "sqlite/heatmap.h"
#include "sqlite/hist.h"

static char *hex(const unsigned char *p, int n)
{
	static const char digits[] = "0123456789abcdef";
	char *s = sqlite3_malloc64((sqlite3_uint64)n * 2 + 1);

	if (!s)
		return NULL;
	for (int i = 0; i < n; i++) {
		s[2 * i] = digits[p[i] >> 4];
		s[2 * i + 1] = digits[p[i] & 15];
	}
	s[2 * n] = '\0';
	return s;
}

/* a malloc'd rendering into the result (NULL from the renderer: malformed or out of memory) */
static void result_rendered(sqlite3_context *ctx, char *text)
{
	if (text)
		sqlite3_result_text(ctx, text, -1, free);
	else
		sqlite3_result_error_nomem(ctx);
}

static void blob_text(sqlite3_context *ctx, sqlite3_value *v, bool bars)
{
	const void *blob = sqlite3_value_blob(v);
	int n = sqlite3_value_bytes(v);
	char *s;

	if (hist_is(blob, n))
		return result_rendered(ctx, bars ? hist_to_text(blob, n) : hist_to_json(blob, n));
	if (bars && heatmap_is(blob, n))
		return result_rendered(ctx, heatmap_to_text(blob, n));
	if (!(s = hex(blob, n)))
		return sqlite3_result_error_nomem(ctx);
	sqlite3_result_text(ctx, s, -1, sqlite3_free);
}

void perf_sql_text_func(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	if (sqlite3_value_type(argv[0]) == SQLITE_BLOB)
		blob_text(ctx, argv[0], false);
	else
		sqlite3_result_value(ctx, argv[0]);
}

void perf_sql_bars_func(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	if (sqlite3_value_type(argv[0]) == SQLITE_BLOB)
		blob_text(ctx, argv[0], true);
	else
		sqlite3_result_value(ctx, argv[0]);
}

void ext_json_string(sqlite3_str *out, const char *s)
{
	sqlite3_str_appendchar(out, 1, '"');
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			sqlite3_str_appendf(out, "\\%c", c);
		else if (c == '\n')
			sqlite3_str_appendall(out, "\\n");
		else if (c == '\t')
			sqlite3_str_appendall(out, "\\t");
		else if (c < 0x20)
			sqlite3_str_appendf(out, "\\u%04x", c);
		else
			sqlite3_str_appendchar(out, 1, (char)c);
	}
	sqlite3_str_appendchar(out, 1, '"');
}

void ext_json_value(sqlite3_str *out, sqlite3_stmt *st, int col)
{
	const void *blob;
	char *s;
	int n;

	switch (sqlite3_column_type(st, col)) {
	case SQLITE_NULL: sqlite3_str_appendall(out, "null"); return;
	case SQLITE_INTEGER:
	case SQLITE_FLOAT:
		sqlite3_str_appendall(out, (const char *)sqlite3_column_text(st, col));
		return;
	case SQLITE_TEXT: ext_json_string(out, (const char *)sqlite3_column_text(st, col)); return;
	}
	blob = sqlite3_column_blob(st, col);
	n = sqlite3_column_bytes(st, col);
	if (hist_is(blob, n)) {
		s = hist_to_json(blob, n);
		sqlite3_str_appendall(out, s ? s : "null");
		free(s);
	} else {
		s = hex(blob, n);
		ext_json_string(out, s ? s : "");
		sqlite3_free(s);
	}
}
