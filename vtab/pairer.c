/*
 * vtab/pairer.c - a pairer from the arguments of pairs() or pending() (vtab/pairs.c,
 * vtab/pending.c): its two tables opened and planned, its keys and columns read, cached per
 * argument list for the run.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "bpf/user_str.h"
#include "core/field.h"
#include "core/session.h"
#include "vtab/pairs_int.h"
#include "vtab/tp_table.h"

/* NAME_str of a system call's string argument NAME: the table's rows then carry it */
static bool parse_ustr(struct source *src, const char *name, struct spec *out)
{
	size_t n = strlen(name);

	if (n < 5 || strcmp(name + n - 4, "_str"))
		return false;
	for (int i = 0; i < src->ev->nr_fields; i++) {
		const struct tp_field *f = &src->ev->fields[i];

		if (strlen(f->name) == n - 4 && !strncmp(f->name, name, n - 4) &&
		    (out->ustr = user_str__index(src->ev, f)) >= 0) {
			out->kind = SPEC_USTR;
			out->src = src;
			src->want_user_str = true; /* engine/user_str.c decides how */
			return true;
		}
	}
	return false;
}

static int parse_spec(struct source *src, const char *fn, const char *name, bool value,
		      struct spec *out, char **err)
{
	static const struct {
		const char *name;
		enum spec_kind kind;
	} metas[] = {
		{ "_tid", SPEC_TID },   { "_pid", SPEC_PID },   { "_cpu", SPEC_CPU },
		{ "_time", SPEC_TIME }, { "_comm", SPEC_COMM },
	};

	for (size_t i = 0; i < sizeof(metas) / sizeof(metas[0]); i++)
		if (!strcmp(name, metas[i].name) && (value || metas[i].kind != SPEC_COMM)) {
			out->kind = metas[i].kind;
			return 0;
		}
	if (value && parse_ustr(src, name, out))
		return 0;
	if (value && !strcmp(name, "stack")) { /* the row's call chain (stack_result's BLOB) */
		out->kind = SPEC_STACK;
		source__plan_more(src, true, false, false);
		return 0;
	}
	out->f = field__find(src->ev, name);
	if (!out->f || (!value && out->f->kind != FIELD_INT)) {
		*err = sqlite3_mprintf("%s: %s has no %s column '%s'; use a field name or "
				       "_tid _pid _cpu _time%s",
				       fn, src->ev->full, value ? "" : "integer", name,
				       value ? " _comm stack" : "");
		return SQLITE_ERROR;
	}
	out->kind = SPEC_FIELD;
	return 0;
}

void pairer__free(struct pairer *p)
{
	if (!p)
		return;
	pairer__rows_free(p);
	for (uint32_t i = 0; p->tab && i < p->cap; i++)
		if (p->tab[i].used)
			pending__cells_free(&p->tab[i]);
	for (int i = 0; i < 6; i++)
		sqlite3_free(p->args[i]);
	free(p->tab);
	free(p->rows);
	free(p);
}

static struct source *table_source(struct session *s, const char *fn, const char *name, char **err)
{
	struct tp_event *ev = catalog__find(s->cat, name);
	struct err e = { 0 };
	struct source *src;

	if (!ev) {
		*err = sqlite3_mprintf("%s: no such table: %s", fn, name);
		return NULL;
	}
	src = session__source(s, ev, &e);
	if (!src)
		*err = sqlite3_mprintf("%s: %s", fn, e.msg);
	return src;
}

struct pairer *pairer__get(struct session *s, struct pairer **cache, int *nr, bool pending,
			   char **args, char **err)
{
	const char *fn = pending ? "pending" : "pairs";
	struct pairer *p;
	bool raw_s, raw_e;

	for (int i = 0; i < *nr; i++) {
		bool same = true;

		for (int k = 0; k < 6; k++)
			same &= !strcmp(cache[i]->args[k] ? cache[i]->args[k] : "",
					args[k] ? args[k] : "");
		if (same)
			return cache[i];
	}
	if (*nr == PAIRS_MAX) {
		*err = sqlite3_mprintf("%s: at most %d different %s() per run", fn, PAIRS_MAX, fn);
		return NULL;
	}
	p = calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	for (int k = 0; k < 6; k++)
		p->args[k] = args[k] ? sqlite3_mprintf("%s", args[k]) : NULL;
	p->window = -1;
	p->pending = pending;
	p->cap = 1024;
	p->tab = calloc(p->cap, sizeof(*p->tab));
	if (!p->tab || !(p->start = table_source(s, fn, args[0], err)) ||
	    !(p->end = table_source(s, fn, args[2], err)) ||
	    parse_spec(p->start, fn, args[1], false, &p->start_key, err) ||
	    parse_spec(p->end, fn, args[3], false, &p->end_key, err) ||
	    (args[4] && parse_spec(p->start, fn, args[4], true, &p->start_col, err)) ||
	    (args[5] &&
	     parse_spec(pending ? p->start : p->end, fn, args[5], true, &p->end_col, err))) {
		pairer__free(p);
		return NULL;
	}
	raw_s = p->start_key.kind == SPEC_FIELD || p->start_col.kind >= SPEC_FIELD;
	raw_s |= pending && p->end_col.kind >= SPEC_FIELD; /* pending(): both values the start's */
	raw_e = p->end_key.kind == SPEC_FIELD || (!pending && p->end_col.kind >= SPEC_FIELD);
	source__plan_pairer(p->start, raw_s);
	source__plan_pairer(p->end, raw_e);
	/* pairing needs every row: no other scan's WHERE may become these tables' filter */
	source__dry_scan(p->start, NULL);
	source__dry_scan(p->end, NULL);
	p->stat = session__extra_stat(s, "%s(%s, %s, %s, %s)", fn, args[0], args[1], args[2],
				      args[3]);
	session__extra_pairs(s, p->stat, (const uint64_t[4]){ 0 }); /* marks the row */
	cache[(*nr)++] = p;
	return p;
}

int pairer__best_index(struct session *s, struct pairer **cache, int *nr, bool pending,
		       sqlite3_index_info *info, int arg0, char **err)
{
	const char *fn = pending ? "pending" : "pairs";
	char *args[6] = { 0 };
	struct pairer *p;
	int n = 0;

	for (int i = 0; i < info->nConstraint; i++) {
		const struct sqlite3_index_constraint *c = &info->aConstraint[i];
		sqlite3_value *v = NULL;
		int k = c->iColumn - arg0;

		if (k < 0 || c->op != SQLITE_INDEX_CONSTRAINT_EQ)
			continue;
		if (!c->usable)
			return SQLITE_CONSTRAINT;
		if (sqlite3_vtab_rhs_value(info, i, &v) != SQLITE_OK || !v ||
		    sqlite3_value_type(v) != SQLITE_TEXT) {
			*err = sqlite3_mprintf(
				"%s: arguments must be string literals, e.g. %s", fn,
				pending ? "pending('kmalloc', 'ptr', 'kfree', 'ptr', "
					  "'call_site')"
					: "pairs('sys_enter', '_tid', 'sys_exit', '_tid')");
			return SQLITE_ERROR;
		}
		args[k] = (char *)sqlite3_value_text(v);
		info->aConstraintUsage[i].argvIndex = ++n;
		info->aConstraintUsage[i].omit = 1;
	}
	if (!args[0] || !args[1] || !args[2] || !args[3]) {
		*err = sqlite3_mprintf("%s: needs (start_table, start_key, end_table, end_key [, "
				       "start_col [, %s]])",
				       fn, pending ? "start_col2" : "end_col");
		return SQLITE_ERROR;
	}
	if (!(p = pairer__get(s, cache, nr, pending, args, err)))
		return *err ? SQLITE_ERROR : SQLITE_NOMEM;
	source__read_by_pairer(p->start);
	source__read_by_pairer(p->end);
	for (info->idxNum = 0; cache[info->idxNum] != p; info->idxNum++)
		;
	info->estimatedCost = 1000;
	return SQLITE_OK;
}

void pairer__cell_result(sqlite3_context *ctx, const struct cell *v)
{
	if (v->type == SQLITE_INTEGER)
		sqlite3_result_int64(ctx, v->i);
	else if (v->type == SQLITE_TEXT)
		sqlite3_result_text(ctx, v->text ? v->text : v->s, -1, SQLITE_TRANSIENT);
	else if (v->type == SQLITE_BLOB)
		sqlite3_result_blob64(ctx, v->text, v->len, SQLITE_TRANSIENT);
}
