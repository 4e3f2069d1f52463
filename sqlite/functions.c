/*
 * sqlite/functions.c - the registry of SQL functions: one row per function, with its usage
 * and summary, so --help, docs/functions.md and REPL completion come from the same table.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "sqlite/functions.h"

#define SCALAR(n, a, f, u, s)                                                                      \
	{                                                                                          \
		n, a, f, NULL, NULL, u, s                                                          \
	}
#define AGG(n, a, st, fi, u, s)                                                                    \
	{                                                                                          \
		n, a, NULL, st, fi, u, s                                                           \
	}

static const struct sql_func sql_funcs[] = {
	SCALAR("workload_pid", 0, workload_pid_func, "workload_pid()",
	       "pid of the workload started with -- CMD (NULL without one)"),
	SCALAR("is_target", 1, is_target_func, "is_target(TID [, TIME])",
	       "1 if the task is in the workload's tree or the -p/-t targets', else 0 (NULL: "
	       "none)"),
	SCALAR("is_target", 2, is_target_func, "is_target(TID, TIME)",
	       "the same, at TIME (a task joins at its fork, the workload at its exec)"),
	SCALAR("stack_text", 1, stack_text_func, "stack_text(STACK [, SEP [, OPTIONS]])",
	       "call chain as text, innermost first: func+0xoff (file)"),
	SCALAR("stack_text", 2, stack_text_func, "stack_text(STACK, SEP)",
	       "the same, frames joined by SEP"),
	SCALAR("stack_text", 3, stack_text_func, "stack_text(STACK, SEP, OPTIONS)",
	       "OPTIONS 'srcline': func (file.c:LINE); 'inline': inlined functions as frames"),
	SCALAR("stack_depth", 1, stack_depth_func, "stack_depth(STACK)", "number of frames"),
	AGG("folded_stack", 1, folded_stack_step, folded_stack_final,
	    "folded_stack(STACK [, OPTIONS])",
	    "flame graph folded lines: comm;outer;...;inner COUNT"),
	AGG("folded_stack", 2, folded_stack_step, folded_stack_final,
	    "folded_stack(STACK, OPTIONS)",
	    "the same, with 'srcline' and/or 'inline' frames as stack_text()"),
	SCALAR("ksym", 1, ksym_func, "ksym(ADDR)", "kernel address -> function+0xoff"),
	SCALAR("usym", 2, usym_func, "usym(PID, ADDR)", "user address -> function+0xoff (file)"),
	SCALAR("srcline", 2, srcline_func, "srcline(PID, ADDR)",
	       "user code address -> source FILE:LINE (DWARF of the binary or its debug file)"),
	SCALAR("symbolic", 2, symbolic_func, "symbolic(FIELD, VALUE)",
	       "VALUE named by the event's __print_symbolic()"),
	SCALAR("flags", 2, flags_func, "flags(FIELD, VALUE)",
	       "VALUE as the event's __print_flags() prints it"),
	AGG("log2_hist", -1, log2_hist_step, log2_hist_final, "log2_hist(V [, UNIT])",
	    "power-of-2 histogram, bcc-style star bars"),
	AGG("lin_hist", -1, lin_hist_step, lin_hist_final, "lin_hist(V, MIN, MAX, STEP [, UNIT])",
	    "linear histogram with under- and overflow buckets"),
	AGG("folded_stack_merge", 2, folded_stack_merge_step, folded_stack_final,
	    "folded_stack_merge(STACK, N [, OPTIONS])",
	    "folded_stack() of N events of STACK (docs/bpf.md)"),
	AGG("folded_stack_merge", 3, folded_stack_merge_step, folded_stack_final,
	    "folded_stack_merge(STACK, N, OPTIONS)", "the same, with OPTIONS"),
	AGG("log2_hist_merge", -1, log2_hist_merge_step, log2_hist_final,
	    "log2_hist_merge(COUNTS [, UNIT])", "log2_hist() of bucket counts (docs/bpf.md)"),
	AGG("lin_hist_merge", -1, lin_hist_merge_step, lin_hist_final,
	    "lin_hist_merge(COUNTS, MIN, MAX, STEP [, UNIT])",
	    "lin_hist() of bucket counts (docs/bpf.md)"),
	AGG("percentile", 2, percentile_step, percentile_final, "percentile(V, P)",
	    "P-th percentile, exact up to 1M values, then a 1 % sketch"),
	AGG("p50", 1, p50_step, percentile_final, "p50(V)", "median: percentile(V, 50)"),
	AGG("p90", 1, p90_step, percentile_final, "p90(V)", "percentile(V, 90)"),
	AGG("p95", 1, p95_step, percentile_final, "p95(V)", "percentile(V, 95)"),
	AGG("p99", 1, p99_step, percentile_final, "p99(V)", "percentile(V, 99)"),
	AGG("p999", 1, p999_step, percentile_final, "p999(V)", "percentile(V, 99.9)"),
	AGG("loglin_percentile", 2, loglin_percentile_step, loglin_percentile_final,
	    "loglin_percentile(BUCKETS, P)",
	    "percentile() of log-linear bucket counts, within 0.8 % (docs/bpf.md)"),
	AGG("stats", 1, stats_step, stats_final, "stats(V)",
	    "count, min, avg, max, population stddev as text"),
	AGG("heatmap", -1, heatmap_step, heatmap_final, "heatmap(TIME_NS, VALUE [, SLOT_NS])",
	    "log2 latency histogram per time slot (default 1 s)"),
	SCALAR("syscall_name", 1, syscall_name_func, "syscall_name(NR)",
	       "x86_64 system call number -> name"),
	SCALAR("errno_name", 1, errno_name_func, "errno_name(RET)",
	       "-errno or errno -> 'ENOENT' (NULL if none)"),
	SCALAR("ipv4", 1, ipv4_func, "ipv4(ADDR)", "4-byte blob or integer -> '127.0.0.1'"),
	SCALAR("ipv6", 1, ipv6_func, "ipv6(ADDR)", "16-byte blob -> '2001:db8::1'"),
	SCALAR("mac", 1, mac_func, "mac(ADDR)", "6-byte blob -> '02:42:ac:11:00:02'"),
	SCALAR("cgroup_name", 1, cgroup_name_func, "cgroup_name(PATH)",
	       "cgroup v2 path -> systemd unit, container ID (12 hex), 'pod UID', or its last "
	       "element"),
	SCALAR("task_state", 1, task_state_func, "task_state(PREV_STATE)",
	       "sched_switch prev_state -> 'R', 'S', 'D', 'R+', ..."),
	SCALAR("dur", 1, dur_func, "dur(NS)",
	       "nanoseconds -> '512ns', '2.50us', '1.23ms', '4.00s'"),
	SCALAR("ts", 1, ts_func, "ts(NS)",
	       "CLOCK_MONOTONIC ns -> local RFC 3339 time with microseconds"),
};

const struct sql_func *sql_functions__table(int *nr_out)
{
	*nr_out = (int)(sizeof(sql_funcs) / sizeof(sql_funcs[0]));
	return sql_funcs;
}

int sql_functions__register(sqlite3 *db, struct session *s)
{
	for (size_t i = 0; i < sizeof(sql_funcs) / sizeof(sql_funcs[0]); i++) {
		const struct sql_func *f = &sql_funcs[i];
		int flags = SQLITE_UTF8 | (f->step ? 0 : SQLITE_DETERMINISTIC);
		int rc;

		/* workload_pid() and friends depend on the session: not deterministic */
		if (f->func == workload_pid_func || f->func == is_target_func)
			flags = SQLITE_UTF8;
		rc = sqlite3_create_function_v2(db, f->name, f->nr_args, flags, s, f->func, f->step,
						f->final, NULL);
		if (rc != SQLITE_OK)
			return rc;
	}
	return SQLITE_OK;
}

void sql_result_errorf(sqlite3_context *ctx, const char *fmt, ...)
{
	va_list ap;
	char *msg, *line;

	va_start(ap, fmt);
	msg = sqlite3_vmprintf(fmt, ap);
	va_end(ap);
	/* whatever bytes an argument brought in, the error is one line of valid UTF-8 */
	line = msg ? sql_quote_bytes(msg, strlen(msg), SIZE_MAX, false) : NULL;
	if (!line)
		sqlite3_result_error_nomem(ctx);
	else
		sqlite3_result_error(ctx, line, -1);
	sqlite3_free(msg);
	sqlite3_free(line);
}

void *sql_agg_state(sqlite3_context *ctx, int argc, int min_args, int max_args, const char *usage,
		    int size)
{
	void *st;

	if (argc < min_args || argc > max_args) {
		sqlite3_result_error(ctx, usage, -1);
		return NULL;
	}
	st = sqlite3_aggregate_context(ctx, size);
	if (!st)
		sqlite3_result_error_nomem(ctx);
	return st;
}

void sql_result_blob_free(sqlite3_context *ctx, void *blob, int len)
{
	if (blob)
		sqlite3_result_blob(ctx, blob, len, free);
	else
		sqlite3_result_error_nomem(ctx);
}

int sql_int_arg(sqlite3_context *ctx, sqlite3_value *val, const char *what, sqlite3_int64 *out)
{
	if (sqlite3_value_type(val) == SQLITE_NULL)
		return 0;
	if (sqlite3_value_numeric_type(val) != SQLITE_INTEGER) {
		sql_result_value_error(ctx, what, val, " is not an integer");
		return -1;
	}
	*out = sqlite3_value_int64(val);
	return 1;
}

void sql_result_name_of(sqlite3_context *ctx, sqlite3_value *val, const char *fname,
			const char *(*name_of)(sqlite3_int64))
{
	const char *name;
	char *v;

	if (sqlite3_value_type(val) == SQLITE_NULL)
		return;
	if (sqlite3_value_numeric_type(val) != SQLITE_INTEGER) {
		v = sql_value_quote(val);
		sql_result_errorf(ctx, "%s: %s is not an integer", fname, v);
		sqlite3_free(v);
		return;
	}
	name = name_of(sqlite3_value_int64(val));
	if (name)
		sqlite3_result_text(ctx, name, -1, SQLITE_STATIC);
}
