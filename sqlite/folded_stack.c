/*
 * folded_stack(STACK) - aggregate: flame graph "folded" lines, one per distinct stack,
 *   "comm;outermost;...;innermost COUNT", as flamegraph.pl and speedscope read them.
 *
 *   perf-sql --flame-graph cpu.svg "SELECT folded_stack(stack) FROM cpu_clock(99)" -d 5s
 *
 * (1) The first element is the task's name at the sample's time (_comm).
 * (2) Frames outermost first, user then kernel, function names only (no offsets), so
 *     samples in the same functions merge.
 * (2b) folded_stack_merge(STACK, N [, OPTIONS]) counts N events of STACK at once: the
 *     rewrite of folded_stack() over the groups the kernel aggregated (docs/bpf.md). N NULL
 *     or 0 adds nothing; N not an integer >= 0 is an error quoting it, and so is a line's
 *     count passing 2^63-1.
 * (3) Lines are sorted by stack text; the result is one TEXT value, lines ending in '\n';
 *     no stacks gives NULL.
 */
#include <stdlib.h>
#include <string.h>
#include "sqlite/functions.h"
#include "symbols/stack.h"

struct folded {
	char **keys;
	sqlite3_int64 *counts;
	size_t cap, nr;
};

static uint64_t hash_str(const char *s)
{
	uint64_t h = 1469598103934665603ull;

	while (*s)
		h = (h ^ (unsigned char)*s++) * 1099511628211ull;
	return h;
}

static int folded_add(struct folded *f, char *key, sqlite3_int64 n)
{
	size_t i;

	if ((f->nr + 1) * 2 > f->cap) {
		struct folded n = { .cap = f->cap ? f->cap * 2 : 256 };

		n.keys = calloc(n.cap, sizeof(*n.keys));
		n.counts = calloc(n.cap, sizeof(*n.counts));
		if (!n.keys || !n.counts) {
			free(n.keys);
			free(n.counts);
			return SQLITE_NOMEM;
		}
		for (size_t k = 0; k < f->cap; k++) {
			if (!f->keys[k])
				continue;
			for (i = hash_str(f->keys[k]) & (n.cap - 1); n.keys[i];
			     i = (i + 1) & (n.cap - 1))
				;
			n.keys[i] = f->keys[k];
			n.counts[i] = f->counts[k];
		}
		free(f->keys);
		free(f->counts);
		n.nr = f->nr;
		*f = n;
	}
	for (i = hash_str(key) & (f->cap - 1); f->keys[i]; i = (i + 1) & (f->cap - 1))
		if (!strcmp(f->keys[i], key)) {
			free(key);
			return __builtin_add_overflow(f->counts[i], n, &f->counts[i]) ? SQLITE_RANGE
										      : SQLITE_OK;
		}
	f->keys[i] = key;
	f->counts[i] = n;
	f->nr++;
	return SQLITE_OK;
}

/* n events of the stack in value st (opts: OPTIONS or NULL) */
static void folded_step(sqlite3_context *ctx, const char *fname, sqlite3_value *st,
			sqlite3_value *opts, sqlite3_int64 events)
{
	struct folded *f = sqlite3_aggregate_context(ctx, sizeof(*f));
	struct stack_frame frames[512];
	unsigned flags = FRAME_OUTER_FIRST;
	struct stack_view v;
	const char *comm;
	sqlite3_str *line;
	char *key, *text;
	size_t n;

	if (!f)
		return sqlite3_result_error_nomem(ctx);
	if (frame_flags(ctx, opts, fname, &flags))
		return;
	if (sqlite3_value_type(st) != SQLITE_BLOB ||
	    !stack_blob__view(sqlite3_value_blob(st), (size_t)sqlite3_value_bytes(st), &v) ||
	    events <= 0)
		return;
	n = stack_frames(&v, frames, 512);
	comm = v.comm[0] ? v.comm : NULL;
	line = sqlite3_str_new(NULL);
	sqlite3_str_appendall(line, comm ? comm : "[unknown]");
	for (size_t i = 0; i < n; i++) {
		sqlite3_str_appendchar(line, 1, ';');
		frame_text(stack_symbols(ctx), &v, &frames[i], flags, ";", line);
	}
	text = sqlite3_str_finish(line);
	key = text ? strdup(text) : NULL;
	sqlite3_free(text);
	if (!key)
		return sqlite3_result_error_nomem(ctx);
	switch (folded_add(f, key, events)) {
	case SQLITE_OK: break;
	case SQLITE_RANGE:
		sql_result_errorf(ctx, "%s: the count of a stack passes 2^63-1", fname);
		break;
	default: sqlite3_result_error_nomem(ctx);
	}
}

void folded_stack_step(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	folded_step(ctx, "folded_stack", argv[0], argc > 1 ? argv[1] : NULL, 1);
}

/* folded_stack_merge(STACK, N [, OPTIONS]): N events of STACK at once (a group of the kernel's,
 * docs/bpf.md) */
void folded_stack_merge_step(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	if (sqlite3_value_type(argv[1]) == SQLITE_NULL)
		return;
	if (sqlite3_value_numeric_type(argv[1]) != SQLITE_INTEGER ||
	    sqlite3_value_int64(argv[1]) < 0)
		return sql_result_value_error(ctx, "folded_stack_merge: N ", argv[1],
					      " is not a count (an integer >= 0)");
	folded_step(ctx, "folded_stack_merge", argv[0], argc > 2 ? argv[2] : NULL,
		    sqlite3_value_int64(argv[1]));
}

static int cmp_idx(const void *a, const void *b, void *keys)
{
	return strcmp(((char **)keys)[*(const size_t *)a], ((char **)keys)[*(const size_t *)b]);
}

void folded_stack_final(sqlite3_context *ctx)
{
	struct folded *f = sqlite3_aggregate_context(ctx, 0);
	sqlite3_str *out;
	size_t *order, n = 0;
	char *text;
	int rc;

	if (!f || !f->nr)
		return;
	order = malloc(f->nr * sizeof(*order));
	out = sqlite3_str_new(sqlite3_context_db_handle(ctx)); /* the connection's length limit */
	for (size_t i = 0; order && i < f->cap; i++)
		if (f->keys[i])
			order[n++] = i;
	if (order)
		qsort_r(order, n, sizeof(*order), cmp_idx, f->keys);
	for (size_t i = 0; i < n; i++)
		sqlite3_str_appendf(out, "%s %lld\n", f->keys[order[i]], f->counts[order[i]]);
	for (size_t i = 0; i < f->cap; i++)
		free(f->keys[i]);
	free(f->keys);
	free(f->counts);
	rc = order ? sqlite3_str_errcode(out) : SQLITE_NOMEM;
	text = sqlite3_str_finish(out);
	if (rc == SQLITE_OK)
		sqlite3_result_text(ctx, text, -1, sqlite3_free);
	else if (rc == SQLITE_TOOBIG)
		sqlite3_result_error(ctx, "folded_stack: the lines pass the length limit", -1);
	else
		sqlite3_result_error_nomem(ctx);
	if (rc != SQLITE_OK)
		sqlite3_free(text);
	free(order);
}
