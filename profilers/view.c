/*
 * profilers/view.c - every profiler, built-in and saved, as a table in SQL.
 *
 *   SELECT * FROM rundelay ORDER BY p99_us DESC LIMIT 5;
 *   SELECT syscall, calls FROM syscalls('1ms') WHERE calls >= 1000;     -- than = 1ms
 *   SELECT * FROM syscalls WHERE than = '1ms' AND syscall = 'write';   -- the same, by name
 *   SELECT r.comm, r.p99_us, s.calls FROM rundelay r JOIN "task-state" s USING (comm);
 *   SELECT * FROM top('sched_switch', 'prev_comm');                     -- identifier params
 *
 * HOW IT WORKS
 * (1) One eponymous virtual table per profiler, named as the profiler, and, when the name is
 *     no bare identifier ("kvm-exit"), also with '_' for '-' (kvm_exit). A tracepoint, PMU or
 *     built-in table of the same name wins: the profiler is then reachable only by its other
 *     name (profilers__table_name() says which, for `perf-sql help`).
 * (2) Columns: the result columns of the profiler's main statement (its last one: the others,
 *     if any, only print in a run by name), then one HIDDEN column per parameter, in the
 *     profiler's parameter order, so they are the table-valued function's arguments. A
 *     parameter named as a result column (syscalls' `syscall`) is the hidden column _NAME.
 * (3) Rows: a cursor prepares the main statement on the same connection and steps it. Its
 *     tables are connected and planned like any (filters pushed down, counting mode), in the
 *     planning dry run, so a profiler in a query opens what its own SQL would.
 * (4) Value parameters (durations, sizes, numbers, text) are bound per scan, from the
 *     arguments or WHERE param = value, else their default, checked by type (param__parse).
 * (5) Identifier parameters (table, column) change the SQL itself, so they must be literal
 *     arguments: register() reads them from the query text (NAME('sched_switch', ...)) before
 *     it is prepared; one value per profiler and statement.
 * (6) A profiler whose SQL reaches itself (saved `a` = select from a) is refused with one line.
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sqlite3.h>
#include "engine/query.h"
#include "profilers/profiler.h"
#include "profilers/view.h"
#include "vtab/tp_table.h"

#define MAX_ARGS PROF_MAX_PARAMS

struct view_mod { /* one per profiler: the module's aux */
	struct profiler *p;
	struct session *s;
	int connecting;       /* (6) */
	char *args[MAX_ARGS]; /* (5) "table=sched_switch", from the query text */
	int nr_args;
};

struct view_vtab {
	sqlite3_vtab base;
	struct view_mod *m;
	sqlite3 *db;
	char *sql;                          /* the main statement, identifiers substituted */
	struct query_param binds[MAX_ARGS]; /* the bound defaults (names point into m->p) */
	int nr_binds;
	int nr_cols; /* result columns; hidden ones follow */
};

struct view_cursor {
	sqlite3_vtab_cursor base;
	sqlite3_stmt *st;
	bool eof;
	sqlite3_value *vals[MAX_ARGS]; /* the hidden columns' values of this scan */
};

static const char *const builtin_tables[] = { "counters",       "pairs",     "perf_sql_events",
					      "perf_sql_stats", "hist_rows", "heatmap_rows" };

static bool is_table(struct session *s, const char *name)
{
	for (size_t i = 0; i < sizeof(builtin_tables) / sizeof(builtin_tables[0]); i++)
		if (!strcmp(name, builtin_tables[i]))
			return true;
	return catalog__find(s->cat, name) != NULL;
}

int profilers__table_name(struct session *s, const char *name, char *buf, size_t len)
{
	char alias[80];

	snprintf(alias, sizeof(alias), "%s", name);
	for (char *c = alias; *c; c++)
		if (*c == '-')
			*c = '_';
	if (!is_table(s, name))
		snprintf(buf, len, strcmp(alias, name) ? "\"%s\"" : "%s", name);
	else if (strcmp(alias, name) && !is_table(s, alias))
		snprintf(buf, len, "%s", alias);
	else
		return -EEXIST;
	return 0;
}

int profilers__shadowed(struct session *s, const char *name, char *buf, size_t len,
			const char **full)
{
	char alias[80];
	struct tp_event *ev;

	snprintf(alias, sizeof(alias), "%s", name);
	for (char *c = alias; *c; c++)
		if (*c == '-')
			*c = '_';
	if (is_table(s, name))
		snprintf(buf, len, "%s", name);
	else if (strcmp(alias, name) && is_table(s, alias))
		snprintf(buf, len, "%s", alias);
	else
		return -ENOENT;
	ev = catalog__find(s->cat, buf);
	*full = ev ? ev->full : buf;
	return 0;
}

static int vtab_error(char **pzErr, const char *fmt, const char *a, const char *b)
{
	*pzErr = sqlite3_mprintf(fmt, a, b);
	return SQLITE_ERROR;
}

/* the SQL of the last statement of sql, copied */
static char *main_statement(sqlite3 *db, const char *sql, char **pzErr)
{
	const char *tail = sql, *last = NULL;
	sqlite3_stmt *st = NULL;

	while (tail && *tail) {
		const char *at = tail;

		if (sqlite3_prepare_v2(db, at, -1, &st, &tail) != SQLITE_OK) {
			*pzErr = sqlite3_mprintf("%s", sqlite3_errmsg(db));
			return NULL;
		}
		if (st)
			last = at;
		sqlite3_finalize(st);
	}
	if (!last) {
		*pzErr = sqlite3_mprintf("no SQL statement");
		return NULL;
	}
	return sqlite3_mprintf("%.*s", (int)(tail - last), last);
}

static bool name_taken(char **names, int n, const char *name)
{
	for (int i = 0; i < n; i++)
		if (!sqlite3_stricmp(names[i], name))
			return true;
	return false;
}

/* CREATE TABLE x(result columns..., params HIDDEN...) from the prepared main statement; a
 * repeated result name becomes NAME:1 (as in SQLite's views), a parameter named as a column
 * _NAME (as many _ as it takes) */
static char *declare(struct view_vtab *vt, sqlite3_stmt *st)
{
	const struct profiler *p = vt->m->p;
	int nr_cols = sqlite3_column_count(st), n = 0;
	char **names = sqlite3_malloc64((size_t)(nr_cols + p->nr_params) * sizeof(char *) + 1);
	sqlite3_str *out = sqlite3_str_new(NULL);

	vt->nr_cols = nr_cols;
	for (int i = 0; names && i < nr_cols + p->nr_params; i++, n++) {
		const char *base =
			i < nr_cols ? sqlite3_column_name(st, i) : p->params[i - nr_cols].name;

		names[n] = sqlite3_mprintf("%s", base);
		for (int k = 1; names[n] && name_taken(names, n, names[n]); k++) {
			char *prev = names[n];

			names[n] = i < nr_cols ? sqlite3_mprintf("%s:%d", base, k)
					       : sqlite3_mprintf("_%s", prev);
			sqlite3_free(prev);
		}
		sqlite3_str_appendf(out, "%s\"%w\"", i ? ", " : "CREATE TABLE x(", names[n]);
		if (i >= nr_cols)
			sqlite3_str_appendf(out, " param_%s HIDDEN",
					    param_type__name(p->params[i - nr_cols].type));
	}
	sqlite3_str_appendall(out, ")");
	for (int i = 0; names && i < n; i++)
		sqlite3_free(names[i]);
	if (!names)
		sqlite3_str_reset(out);
	sqlite3_free(names);
	return names ? sqlite3_str_finish(out) : (sqlite3_free(sqlite3_str_finish(out)), NULL);
}

static int prepare_main(struct view_vtab *vt, sqlite3_stmt **out, char **pzErr)
{
	if (sqlite3_prepare_v2(vt->db, vt->sql, -1, out, NULL) != SQLITE_OK) {
		*pzErr = sqlite3_mprintf("%s: %s", vt->m->p->name, sqlite3_errmsg(vt->db));
		return SQLITE_ERROR;
	}
	return SQLITE_OK;
}

static int connect_sql(struct view_vtab *vt, char **pzErr)
{
	struct view_mod *m = vt->m;
	struct err e = { 0 };
	char *all = NULL;
	int rc = profiler__bind(m->p, m->nr_args, m->args, vt->binds, MAX_ARGS, &vt->nr_binds, &all,
				&e);

	if (rc) {
		sqlite3_free(all);
		rc = vtab_error(
			pzErr, "%s%s", e.msg,
			e.code == -EINVAL && strstr(e.msg, "needs")
				? "; as a table, give table and column parameters as literal "
				  "arguments, in the order perf-sql help lists them"
				: "");
		return rc;
	}
	if (vtabs__need_sql(vt->db, m->s, all) != SQLITE_OK) { /* the tables it names */
		sqlite3_free(all);
		return vtab_error(pzErr, "%s: %s", m->p->name, sqlite3_errmsg(vt->db));
	}
	vt->sql = main_statement(vt->db, all, pzErr);
	sqlite3_free(all);
	return vt->sql ? SQLITE_OK : SQLITE_ERROR;
}

static int view_connect(sqlite3 *db, void *aux, int argc, const char *const *argv,
			sqlite3_vtab **out, char **pzErr)
{
	struct view_mod *m = aux;
	struct view_vtab *vt;
	sqlite3_stmt *st = NULL;
	char *schema = NULL;
	int rc;

	if (m->connecting)
		return vtab_error(pzErr, "profiler %s refers to itself%s", m->p->name,
				  " (a profiler's SQL cannot select from the profiler)");
	if (!(vt = sqlite3_malloc(sizeof(*vt))))
		return SQLITE_NOMEM;
	memset(vt, 0, sizeof(*vt));
	vt->m = m;
	vt->db = db;
	m->connecting++;
	rc = connect_sql(vt, pzErr);
	if (rc == SQLITE_OK)
		rc = prepare_main(vt, &st, pzErr);
	m->connecting--;
	if (rc == SQLITE_OK && !(schema = declare(vt, st)))
		rc = SQLITE_NOMEM;
	if (rc == SQLITE_OK && (rc = sqlite3_declare_vtab(db, schema)) != SQLITE_OK)
		*pzErr = sqlite3_mprintf("%s: %s (%s)", m->p->name, sqlite3_errmsg(db), schema);
	sqlite3_finalize(st);
	sqlite3_free(schema);
	if (rc != SQLITE_OK) {
		sqlite3_free(vt->sql);
		sqlite3_free(vt);
		return rc;
	}
	*out = &vt->base;
	return SQLITE_OK;
}

static int view_disconnect(sqlite3_vtab *base)
{
	struct view_vtab *vt = (struct view_vtab *)base;

	sqlite3_free(vt->sql);
	sqlite3_free(vt);
	return SQLITE_OK;
}

/* (4) an equality on a parameter's hidden column becomes a filter argument */
static int view_best_index(sqlite3_vtab *base, sqlite3_index_info *info)
{
	struct view_vtab *vt = (struct view_vtab *)base;
	int use[MAX_ARGS], n = 0;

	/* filter arguments go in parameter order (view_filter reads them so), one per parameter:
	 * a second equality on the same parameter is left to SQLite to check */
	for (int i = 0; i < MAX_ARGS; i++)
		use[i] = -1;
	for (int i = 0; i < info->nConstraint; i++) {
		const struct sqlite3_index_constraint *c = &info->aConstraint[i];
		int param = c->iColumn - vt->nr_cols;

		if (param < 0 || param >= MAX_ARGS || c->op != SQLITE_INDEX_CONSTRAINT_EQ)
			continue;
		if (!c->usable)
			return SQLITE_CONSTRAINT;
		if (use[param] < 0)
			use[param] = i;
	}
	info->idxNum = 0;
	for (int param = 0; param < MAX_ARGS; param++) {
		if (use[param] < 0)
			continue;
		info->aConstraintUsage[use[param]].argvIndex = ++n;
		info->aConstraintUsage[use[param]].omit = 1;
		info->idxNum |= 1 << param;
	}
	info->estimatedCost = 1000;
	return SQLITE_OK;
}

static int view_open(sqlite3_vtab *base, sqlite3_vtab_cursor **out)
{
	struct view_vtab *vt = (struct view_vtab *)base;
	struct view_cursor *c = sqlite3_malloc(sizeof(*c));
	int rc;

	if (!c)
		return SQLITE_NOMEM;
	memset(c, 0, sizeof(*c));
	vt->m->connecting++;
	rc = prepare_main(vt, &c->st, &base->zErrMsg);
	vt->m->connecting--;
	if (rc != SQLITE_OK) {
		sqlite3_free(c);
		return rc;
	}
	*out = &c->base;
	return SQLITE_OK;
}

static int view_close(sqlite3_vtab_cursor *cur)
{
	struct view_cursor *c = (struct view_cursor *)cur;

	sqlite3_finalize(c->st);
	for (int i = 0; i < MAX_ARGS; i++)
		sqlite3_value_free(c->vals[i]);
	sqlite3_free(c);
	return SQLITE_OK;
}

static int bind_one(sqlite3_stmt *st, const struct query_param *qp)
{
	int idx = sqlite3_bind_parameter_index(st, qp->name);

	if (!idx)
		return SQLITE_OK;
	switch (qp->type) {
	case SQLITE_INTEGER: return sqlite3_bind_int64(st, idx, qp->i);
	case SQLITE_FLOAT: return sqlite3_bind_double(st, idx, qp->d);
	case SQLITE_TEXT: return sqlite3_bind_text(st, idx, qp->text, -1, SQLITE_TRANSIENT);
	default: return sqlite3_bind_null(st, idx);
	}
}

/* the value identifier parameter pp was connected with (5) */
static const char *ident_value(const struct view_mod *m, const struct prof_param *pp)
{
	size_t n = strlen(pp->name);

	for (int i = 0; i < m->nr_args; i++)
		if (!strncmp(m->args[i], pp->name, n) && m->args[i][n] == '=')
			return m->args[i] + n + 1;
	return pp->def;
}

/* parameter i of this scan: given (v), or its default; bound by name */
static int bind_param(struct view_vtab *vt, struct view_cursor *c, int i, sqlite3_value *v)
{
	const struct prof_param *pp = &vt->m->p->params[i];
	const char *text = v ? (const char *)sqlite3_value_text(v) : NULL;
	struct query_param qp;
	struct err e = { 0 };

	if (pp->type == PT_TABLE || pp->type == PT_COLUMN) {
		if (text && strcmp(text, ident_value(vt->m, pp))) {
			vt->base.zErrMsg = sqlite3_mprintf("%s: %s '%s' must be a literal argument "
							   "(%s('%s', ...)), not set in WHERE",
							   vt->m->p->name, pp->name, text,
							   vt->m->p->name, text);
			return SQLITE_ERROR;
		}
		return SQLITE_OK;
	}
	if (!v) {
		for (int k = 0; k < vt->nr_binds; k++)
			if (!strcmp(vt->binds[k].name, pp->bind))
				return bind_one(c->st, &vt->binds[k]);
		return SQLITE_OK;
	}
	if (sqlite3_value_type(v) == SQLITE_NULL) {
		qp = (struct query_param){ .name = pp->bind, .type = SQLITE_NULL };
	} else if (param__parse(pp, text, &qp, &e)) {
		vt->base.zErrMsg = sqlite3_mprintf("%s: %s", vt->m->p->name, e.msg);
		return SQLITE_ERROR;
	}
	return bind_one(c->st, &qp);
}

static int view_next(sqlite3_vtab_cursor *cur)
{
	struct view_cursor *c = (struct view_cursor *)cur;
	int rc = sqlite3_step(c->st);

	c->eof = rc != SQLITE_ROW;
	if (rc == SQLITE_ROW || rc == SQLITE_DONE)
		return SQLITE_OK;
	cur->pVtab->zErrMsg = sqlite3_mprintf("%s", sqlite3_errmsg(sqlite3_db_handle(c->st)));
	return rc;
}

static int view_filter(sqlite3_vtab_cursor *cur, int idxNum, const char *idxStr, int argc,
		       sqlite3_value **argv)
{
	struct view_cursor *c = (struct view_cursor *)cur;
	struct view_vtab *vt = (struct view_vtab *)cur->pVtab;
	int k = 0, rc = SQLITE_OK;

	sqlite3_reset(c->st);
	sqlite3_clear_bindings(c->st);
	for (int i = 0; i < vt->m->p->nr_params && rc == SQLITE_OK; i++) {
		sqlite3_value *v = (idxNum >> i) & 1 && k < argc ? argv[k++] : NULL;

		sqlite3_value_free(c->vals[i]);
		c->vals[i] = v ? sqlite3_value_dup(v) : NULL;
		rc = bind_param(vt, c, i, v);
	}
	return rc == SQLITE_OK ? view_next(cur) : rc;
}

static int view_eof(sqlite3_vtab_cursor *cur) { return ((struct view_cursor *)cur)->eof; }

static int view_column(sqlite3_vtab_cursor *cur, sqlite3_context *ctx, int col)
{
	struct view_cursor *c = (struct view_cursor *)cur;
	struct view_vtab *vt = (struct view_vtab *)cur->pVtab;
	int param = col - vt->nr_cols;

	if (param < 0) {
		sqlite3_result_value(ctx, sqlite3_column_value(c->st, col));
	} else if (c->vals[param]) {
		sqlite3_result_value(ctx, c->vals[param]);
	} else {
		const struct prof_param *pp = &vt->m->p->params[param];
		const char *def = pp->type == PT_TABLE || pp->type == PT_COLUMN
					  ? ident_value(vt->m, pp)
					  : pp->def;

		if (strcmp(def, "NULL"))
			sqlite3_result_text(ctx, def, -1, SQLITE_TRANSIENT);
	}
	return SQLITE_OK;
}

static int view_rowid(sqlite3_vtab_cursor *cur, sqlite3_int64 *rowid)
{
	*rowid = 0;
	return SQLITE_OK;
}

static const sqlite3_module view_module = {
	.iVersion = 0,
	.xCreate = NULL, /* eponymous only: exists by being named */
	.xConnect = view_connect,
	.xBestIndex = view_best_index,
	.xDisconnect = view_disconnect,
	.xDestroy = view_disconnect,
	.xOpen = view_open,
	.xClose = view_close,
	.xFilter = view_filter,
	.xNext = view_next,
	.xEof = view_eof,
	.xColumn = view_column,
	.xRowid = view_rowid,
};

static void view_mod_free(void *arg)
{
	struct view_mod *m = arg;

	for (int i = 0; i < m->nr_args; i++)
		free(m->args[i]);
	profiler__free(m->p);
	free(m->p);
	free(m);
}

/* (5) NAME('a', 'b', ...) in sql: the literal arguments of identifier parameters */
static int scan_args(struct view_mod *m, const char *name, const char *sql)
{
	size_t n = strlen(name);

	for (const char *at = sql; (at = strcasestr(at, name)); at += n) {
		const char *s = at + n;
		bool quoted = at > sql && at[-1] == '"' && *s == '"';

		if (at > sql && !quoted && (isalnum((unsigned char)at[-1]) || at[-1] == '_'))
			continue;
		s += quoted;
		s += strspn(s, " \t\n");
		if (*s != '(')
			continue;
		for (int i = 0; i < m->p->nr_params && *s != ')'; i++) {
			const struct prof_param *pp = &m->p->params[i];
			size_t len;

			s += 1 + strspn(s + 1, " \t\n");
			if (*s != '\'')
				break; /* not a string literal: no identifier from it */
			len = strcspn(s + 1, "'");
			if (!s[1 + len])
				break; /* an unclosed literal: SQLite will say so */
			if ((pp->type == PT_TABLE || pp->type == PT_COLUMN) &&
			    m->nr_args < MAX_ARGS && !(m->args[m->nr_args] = NULL) &&
			    asprintf(&m->args[m->nr_args], "%s=%.*s", pp->name, (int)len, s + 1) >
				    0)
				m->nr_args++;
			s += len + 2;
			s += strspn(s, " \t\n");
		}
		return 0; /* the first use decides (5) */
	}
	return 0;
}

static int register_one(sqlite3 *db, struct session *s, struct profiler *p, const char *sql)
{
	char name[80];
	struct view_mod *m = calloc(1, sizeof(*m));
	int rc;

	if (!m) {
		profiler__free(p);
		free(p);
		return SQLITE_NOMEM;
	}
	m->p = p;
	m->s = s;
	if (profilers__table_name(s, p->name, name, sizeof(name))) {
		view_mod_free(m);
		return SQLITE_OK; /* shadowed under both names: `perf-sql help` says so */
	}
	if (name[0] == '"') { /* "kvm-exit", and kvm_exit unless a table has that name */
		memmove(name, name + 1, strlen(name));
		name[strlen(name) - 1] = '\0';
	}
	scan_args(m, name, sql ? sql : "");
	if (!m->nr_args && strchr(name, '-')) { /* or through the alias: num_dist('t', 'f') */
		char alias[80];

		snprintf(alias, sizeof(alias), "%s", name);
		for (char *c = alias; *c; c++)
			*c = *c == '-' ? '_' : *c;
		scan_args(m, alias, sql ? sql : "");
	}
	/* the module owns m: freed when the connection closes, or at once if this fails */
	rc = sqlite3_create_module_v2(db, name, &view_module, m, view_mod_free);
	if (rc == SQLITE_OK && strchr(name, '-')) {
		char alias[80];

		snprintf(alias, sizeof(alias), "%s", name);
		for (char *c = alias; *c; c++)
			*c = *c == '-' ? '_' : *c;
		if (!is_table(s, alias))
			rc = sqlite3_create_module_v2(db, alias, &view_module, m, NULL);
	}
	return rc;
}

int profilers__register_views(sqlite3 *db, struct session *s, const char *sql, struct err *e)
{
	int nr = 0, rc = SQLITE_OK;
	struct profiler **list = profilers__list(&nr, e);

	if (!list)
		return e->code;
	for (int i = 0; i < nr; i++) {
		if (rc == SQLITE_OK) {
			rc = register_one(db, s, list[i], sql); /* takes list[i] */
		} else {
			profiler__free(list[i]);
			free(list[i]);
		}
	}
	free(list);
	if (rc != SQLITE_OK)
		return err_set(e, -ENOMEM, "profiler tables: %s", sqlite3_errstr(rc));
	return 0;
}
