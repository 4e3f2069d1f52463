/*
 * sqlite/functions.h - SQL functions and aggregates, registered from one static table
 * (sqlite/functions.c). Each function lives in the file of its SQL name.
 */
#ifndef PERF_SQL_FUNCTIONS_H
#define PERF_SQL_FUNCTIONS_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sqlite3.h>

struct session;

/* One registry row: what --help, docs and the REPL's completion list. */
struct sql_func {
	const char *name;
	int nr_args;                                            /* -1: variadic */
	void (*func)(sqlite3_context *, int, sqlite3_value **); /* scalar */
	void (*step)(sqlite3_context *, int, sqlite3_value **); /* aggregate */
	void (*final)(sqlite3_context *);                       /* aggregate */
	const char *usage;
	const char *summary;
};

/* Registers every row; user data of each function is the session (may be NULL in tests). */
int sql_functions__register(sqlite3 *db, struct session *s);
const struct sql_func *sql_functions__table(int *nr_out);

/* scalar functions implemented outside sqlite/ helpers */
void workload_pid_func(sqlite3_context *ctx, int argc, sqlite3_value **argv);
void is_target_func(sqlite3_context *ctx, int argc, sqlite3_value **argv);

/* aggregates: sqlite/NAME.c */
void log2_hist_step(sqlite3_context *ctx, int argc, sqlite3_value **argv);
void log2_hist_final(sqlite3_context *ctx);
void lin_hist_step(sqlite3_context *ctx, int argc, sqlite3_value **argv);
void lin_hist_final(sqlite3_context *ctx);
void log2_hist_merge_step(sqlite3_context *ctx, int argc, sqlite3_value **argv);
void lin_hist_merge_step(sqlite3_context *ctx, int argc, sqlite3_value **argv);
void percentile_step(sqlite3_context *ctx, int argc, sqlite3_value **argv);
void p50_step(sqlite3_context *ctx, int argc, sqlite3_value **argv);
void p90_step(sqlite3_context *ctx, int argc, sqlite3_value **argv);
void p95_step(sqlite3_context *ctx, int argc, sqlite3_value **argv);
void p99_step(sqlite3_context *ctx, int argc, sqlite3_value **argv);
void p999_step(sqlite3_context *ctx, int argc, sqlite3_value **argv);
void percentile_final(sqlite3_context *ctx);
void loglin_percentile_step(sqlite3_context *ctx, int argc, sqlite3_value **argv);
void loglin_percentile_final(sqlite3_context *ctx);
void stats_step(sqlite3_context *ctx, int argc, sqlite3_value **argv);
void stats_final(sqlite3_context *ctx);
void heatmap_step(sqlite3_context *ctx, int argc, sqlite3_value **argv);
void heatmap_final(sqlite3_context *ctx);

/* scalars: sqlite/NAME.c */
void syscall_name_func(sqlite3_context *ctx, int argc, sqlite3_value **argv);
void errno_name_func(sqlite3_context *ctx, int argc, sqlite3_value **argv);
void ipv4_func(sqlite3_context *ctx, int argc, sqlite3_value **argv);
void ipv6_func(sqlite3_context *ctx, int argc, sqlite3_value **argv);
void mac_func(sqlite3_context *ctx, int argc, sqlite3_value **argv);
void cgroup_name_func(sqlite3_context *ctx, int argc, sqlite3_value **argv);
void task_state_func(sqlite3_context *ctx, int argc, sqlite3_value **argv);
void dur_func(sqlite3_context *ctx, int argc, sqlite3_value **argv);
void ts_func(sqlite3_context *ctx, int argc, sqlite3_value **argv);

/* exact values kept per percentile() group before switching to the sketch (default 1000000;
 * a negative n restores the default, 0 sketches from the first value) */
void percentile_set_exact_cap(long n);

/* sets the result to an error built as sqlite3_mprintf() does; out of memory becomes
 * SQLITE_NOMEM. No printf format attribute: gcc would reject SQLite's %q and %!g. */
void sql_result_errorf(sqlite3_context *ctx, const char *fmt, ...);
/* an aggregate's state (zeroed on the first row); NULL with the SQL error set when argc is
 * outside [min_args, max_args] (the error is USAGE) or out of memory */
void *sql_agg_state(sqlite3_context *ctx, int argc, int min_args, int max_args, const char *usage,
		    int size);
/* the result is BLOB (malloc'd, freed by SQLite); a NULL BLOB is out of memory */
void sql_result_blob_free(sqlite3_context *ctx, void *blob, int len);
/* sqlite/quote.c: values and bytes as errors show them, one line of valid UTF-8 whatever the
 * bytes. VAL (sqlite3_malloc'd, NULL when out of memory): NULL; a number (as SQLite writes it)
 * or a text in single quotes, escaped as sql_quote_bytes(P, N, 40, true) does; a blob as
 * x'HEX' of at most 16 bytes, then "..." */
char *sql_value_quote(sqlite3_value *val);
/* N bytes of P with control bytes, DEL, bytes of no valid UTF-8 sequence and (backslash) the
 * backslash written as \xNN; past MAX bytes of P, "..." instead of the rest */
char *sql_quote_bytes(const char *p, size_t n, size_t max, bool backslash);
/* an INTEGER (or integer text) argument into *out: 1; NULL: 0; anything else: -1 with the
 * error "WHAT'VAL' is not an integer" (WHAT: "ksym: ADDR ") */
int sql_int_arg(sqlite3_context *ctx, sqlite3_value *val, const char *what, sqlite3_int64 *out);
/* the error "BEFORE" VAL quoted "AFTER" */
void sql_result_value_error(sqlite3_context *ctx, const char *before, sqlite3_value *val,
			    const char *after);
/* an integer VAL -> NAME_OF(VAL) as static text (NULL when it has none); VAL NULL -> NULL,
 * another type -> "FNAME: 'VAL' is not an integer" */
void sql_result_name_of(sqlite3_context *ctx, sqlite3_value *val, const char *fname,
			const char *(*name_of)(sqlite3_int64));

/* C helpers behind the SQL functions, for the front end and other aggregates */
const char *syscall_name_of(sqlite3_int64 nr);      /* NULL: no name */
void dur_format(char *buf, size_t size, double ns); /* "1.23ms" */
/* a non-negative number as an integer; false with the SQL error set ("FNAME: value ...") */
bool log2_value(sqlite3_context *ctx, sqlite3_value *val, const char *fname, uint64_t *out);
/* *count += n, kept at most INT64_MAX; false with the SQL error set ("FNAME: a bucket's ...") */
bool hist_count_add(sqlite3_context *ctx, const char *fname, uint64_t *count, uint64_t n);
/* a histogram UNIT argument into unit_out[32]; false with the SQL error set */
bool hist_unit(sqlite3_context *ctx, sqlite3_value *val, const char *fname, char *unit_out);
/* stacks and symbols (sqlite/stack_text.c, folded_stack.c, ksym.c, srcline.c) */
struct symbols;
struct stack_view;
struct stack_frame;
struct symbols *stack_symbols(sqlite3_context *ctx);
/* how frame_text() writes a frame: with +0xOFF (file), with "(file.c:LINE)", with the inlined
 * functions as frames (joined by sep), those outermost first (folded stacks) */
enum { FRAME_OFFSET = 1, FRAME_SRCLINE = 2, FRAME_INLINE = 4, FRAME_OUTER_FIRST = 8 };
void frame_text(struct symbols *sy, const struct stack_view *v, const struct stack_frame *f,
		unsigned flags, const char *sep, sqlite3_str *out);
/* OPTIONS words ('srcline inline noinline') added to *flags (--inline first); -1 on an
 * unknown word, with the SQL error set when fname is not NULL */
int frame_flags(sqlite3_context *ctx, sqlite3_value *opts, const char *fname, unsigned *flags);
void stack_text_func(sqlite3_context *ctx, int argc, sqlite3_value **argv);
void stack_depth_func(sqlite3_context *ctx, int argc, sqlite3_value **argv);
void folded_stack_step(sqlite3_context *ctx, int argc, sqlite3_value **argv);
void folded_stack_final(sqlite3_context *ctx);
void folded_stack_merge_step(sqlite3_context *ctx, int argc, sqlite3_value **argv);
/* a PID argument (sqlite/ksym.c): false when NULL, or with the error set when it is not an
 * integer in [0, 2^32) */
bool sql_pid_arg(sqlite3_context *ctx, sqlite3_value *val, const char *fname, uint32_t *pid_out);
void ksym_func(sqlite3_context *ctx, int argc, sqlite3_value **argv);
void usym_func(sqlite3_context *ctx, int argc, sqlite3_value **argv);
void srcline_func(sqlite3_context *ctx, int argc, sqlite3_value **argv);
void symbolic_func(sqlite3_context *ctx, int argc, sqlite3_value **argv);
void flags_func(sqlite3_context *ctx, int argc, sqlite3_value **argv);
#endif
