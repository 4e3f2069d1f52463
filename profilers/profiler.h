/*
 * profilers/profiler.h - the profiler registry: built-in profilers (queries/NAME.sql, embedded
 * at build time) and saved ones ($XDG_CONFIG_HOME/perf-sql/profilers/NAME.sql, read-write;
 * /etc/perf-sql/profilers/NAME.sql, read only). Every profiler is an annotated SQL file:
 *
 *   -- rundelay: wakeup -> run delay per task
 *   -- needs: tracepoints sched:sched_wakeup, sched:sched_switch
 *   -- param: than duration 0 "report only delays longer than this"
 *   -- example: perf-sql rundelay than=4ms -i 1000
 *   -- any other comment line is description, shown by `perf-sql help NAME`
 *   SELECT ... WHERE latency > :than ...
 *
 * (1) The header is the comment lines before the first SQL line. `-- NAME: summary` names the
 *     profiler (NAME must be the file's name); in a file without it (a query saved by the REPL)
 *     the first comment line is the summary.
 * (2) `-- param: NAME TYPE DEFAULT "HELP"`: TYPE is one of duration (4ms, 1s -> ns), size
 *     (4k -> bytes), int, float, text, pids (1,2,3 -> text), table, column. DEFAULT is a value
 *     of that type, or NULL (for table and column: the parameter is required).
 * (3) Value parameters are bound as SQL named parameters (:than) to every statement. table and
 *     column parameters are identifiers, which SQL cannot bind: their value ([A-Za-z0-9_:]+)
 *     replaces :NAME in the SQL text, and ':NAME' as a whole string literal (pairs() arguments).
 * (4) A :NAME in the SQL that no param line declares is an "auto" parameter: an integer, a
 *     number or else text; so a query saved as is takes PARAM=VALUE too.
 * (5) `-- pprof: SQL` (one line): what -f pprof runs instead, for a profiler whose result has
 *     no stack column (folded lines): the same samples with their stacks (docs/pprof.md),
 *     bound with the same parameters.
 */
#ifndef PERF_SQL_PROFILER_H
#define PERF_SQL_PROFILER_H
#include <stdbool.h>
#include <stddef.h>
#include "core/err.h"

struct query_param;

#define PROF_MAX_PARAMS 16

enum param_type {
	PT_DURATION,
	PT_SIZE,
	PT_INT,
	PT_FLOAT,
	PT_TEXT,
	PT_PIDS,
	PT_TABLE,
	PT_COLUMN,
	PT_AUTO
};

enum prof_origin { PROF_BUILTIN, PROF_SYSTEM, PROF_USER };

struct prof_param {
	char name[33]; /* "than" */
	char bind[34]; /* ":than" */
	enum param_type type;
	char def[64]; /* "0", "NULL" */
	char help[160];
};

struct profiler {
	char name[65];
	char summary[200];
	char needs[200];
	char example[400]; /* example lines, '\n'-separated */
	char desc[1000];   /* other header comment lines, '\n'-separated */
	char pprof[400];   /* (5): the SQL of -f pprof, or "" */
	struct prof_param params[PROF_MAX_PARAMS];
	int nr_params;
	char *text;       /* the whole file, owned */
	const char *body; /* into text: the first SQL line */
	enum prof_origin origin;
	char path[4096]; /* where it came from ("queries/rundelay.sql" for built-ins) */
};

/* Parses an annotated SQL file of len bytes (no NUL needed) into p, named name; 0 or -EINVAL. */
int profiler__parse(struct profiler *p, const char *name, const char *buf, size_t len,
		    struct err *e);
void profiler__free(struct profiler *p);
const char *param_type__name(enum param_type t);
/* "a duration like 500us, 4ms or 1s ..." (the man page's parameter types, cli/man.c) */
const char *param_type__example(enum param_type t);

/* The profiler called name (saved ones shadow built-ins), or NULL with e set. */
struct profiler *profiler__find(const char *name, struct err *e);
/* Every profiler, sorted by name, the effective one per name; *nr_out set. */
struct profiler **profilers__list(int *nr_out, struct err *e);
void profilers__free(struct profiler **list, int nr);
/* Is name a built-in profiler? */
bool profiler__is_builtin(const char *name);
/* "built-in", "system" or "saved" (the kind column of perf-sql list and .profilers) */
const char *profiler__origin_name(const struct profiler *p);
/* the kind column: the origin's name, "*" after a saved one shadowing a built-in */
const char *profiler__kind(const struct profiler *p, char *buf, size_t len);

/* 0 if name is [A-Za-z0-9_-]+, at most 64; else -EINVAL (the front end also refuses its
 * subcommands' names: cli/cli.h subcommands__check_name) */
int profiler__check_name(const char *name, struct err *e);
/* The user directory ($XDG_CONFIG_HOME or ~/.config)/perf-sql/profilers. */
int profilers__user_dir(char *buf, size_t len, struct err *e);
/*
 * Saves sql as NAME.sql in the user directory (0600; directories 0700), with a header line
 * "-- NAME: summary" unless sql has one. A built-in name needs force. path_out gets the path.
 */
int profiler__save(const char *name, const char *sql, const char *summary, bool force,
		   char *path_out, size_t len, struct err *e);
/* Removes the user's NAME.sql; built-in and system ones cannot be deleted. */
int profiler__delete(const char *name, char *path_out, size_t len, struct err *e);

/*
 * Parses PARAM=VALUE arguments against p's parameters, adds the defaults of the rest, and
 * builds the SQL to run (identifier parameters substituted; sqlite3_malloc'd into *sql_out:
 * free it with sqlite3_free). out[]
 * gets one query_param per value parameter; names and text point into p, args or *sql_out's
 * companion storage, so p and args must outlive the run. 0, or -EINVAL with one message that
 * lists the valid parameters and their types.
 */
int profiler__bind(const struct profiler *p, int nargs, char **args, struct query_param *out,
		   int max, int *nr_out, char **sql_out, struct err *e);
/* A parameter value checked and converted by type: 0 or -EINVAL (e says what is expected). */
int param__parse(const struct prof_param *pp, const char *value, struct query_param *out,
		 struct err *e);
#endif
