/*
 * vtab/tp_lazy.c - the event tables of a connection, registered as statements name them.
 *
 * HOW IT WORKS
 * (1) SQLite finds an eponymous table by its module's name and has no hook for a name it does
 *     not know, so the modules a statement may use are registered before it is prepared: the
 *     words of its text (bare, "quoted", `quoted`, [quoted], 'quoted': a table-valued pragma
 *     names its table in a string) are looked up in the catalog (a binary search each).
 * (2) A word registers a module only under a name the eager registration (vtabs__register)
 *     gives the event: "system:event", the short name when no other system has it, perf's
 *     "system/event/" for a raw PMU event; SQLite's names are case-insensitive, so a word is
 *     looked up as written and in lower case. So every statement sees the tables it would
 *     have seen with all of them registered, and a misspelt name still fails in SQLite, with
 *     the engine's suggestions.
 * (3) A word that names an event and is no table (a string compared to comm) registers a
 *     module nothing uses: harmless, modules are not listed (module_list is not an allowed
 *     pragma, engine/lockdown.c).
 * (4) The per-event state (each module's aux, which names are registered) is one malloc hung
 *     on the session (s->tables), freed by session__close() after the connection is closed.
 */
#include <ctype.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "core/session.h"
#include "vtab/tp_table.h"
#include "vtab/tp_table_int.h"

enum { NAME_FULL = 1, NAME_SHORT = 2, NAME_PERF = 4 };

struct tp_lazy {
	sqlite3 *db;
	int nr;
	struct tp_aux *aux; /* one per catalog event, the modules' aux */
	uint8_t *done;      /* NAME_* registered, per event */
};

int vtabs__register_lazy(sqlite3 *db, struct session *s)
{
	int n = catalog__nr_events(s->cat);
	struct tp_lazy *l;

	if (s->tables) /* one lazy connection per session: another one gets every table */
		return vtabs__register(db, s);
	l = calloc(1, sizeof(*l) + (size_t)n * (sizeof(struct tp_aux) + 1));
	if (!l)
		return SQLITE_NOMEM;
	l->db = db;
	l->nr = n;
	l->aux = (struct tp_aux *)(l + 1);
	l->done = (uint8_t *)(l->aux + n);
	for (int i = 0; i < n; i++)
		l->aux[i] = (struct tp_aux){ s, catalog__event(s->cat, i) };
	s->tables = l;
	stack_hooks__install(s);
	return vtabs__register_builtin(db, s);
}

/* which name of ev word is (NAME_*), 0 if none the eager registration gives it */
static int spelling(const struct tp_event *ev, const char *word)
{
	char perf[256];

	if (!strcasecmp(word, ev->full))
		return NAME_FULL;
	if (ev->short_unique && !strcasecmp(word, ev->name))
		return NAME_SHORT;
	if (ev->kind == EV_RAW) {
		snprintf(perf, sizeof(perf), "%s/%s/", ev->system, ev->name);
		if (!strcasecmp(word, perf))
			return NAME_PERF;
	}
	return 0;
}

static int need_word(struct tp_lazy *l, struct session *s, const char *word)
{
	char lower[256], perf[256];
	struct tp_event *ev = catalog__find(s->cat, word);
	const char *name;
	int i, which;

	if (!ev) {
		for (i = 0; word[i] && i < (int)sizeof(lower) - 1; i++)
			lower[i] = (char)tolower((unsigned char)word[i]);
		lower[i] = '\0';
		if (strcmp(lower, word))
			ev = catalog__find(s->cat, lower);
	}
	i = ev ? (int)(ev - catalog__event(s->cat, 0)) : -1;
	if (i < 0 || i >= l->nr || !(which = spelling(ev, word)) || (l->done[i] & which))
		return SQLITE_OK;
	if (which == NAME_PERF)
		snprintf(perf, sizeof(perf), "%s/%s/", ev->system, ev->name);
	name = which == NAME_FULL ? ev->full : which == NAME_SHORT ? ev->name : perf;
	l->done[i] |= which;
	return sqlite3_create_module_v2(l->db, name, tp_table__module(), &l->aux[i], NULL);
}

/* the end of the word starting at sql[i] (unquoted into buf, "" if too long), or of the
 * token that is no word */
static int scan_word(const char *sql, int i, char *buf, size_t len)
{
	char c = sql[i], close = c == '[' ? ']' : c;
	size_t n = 0;
	bool too_long = false;

	if (c == '"' || c == '\'' || c == '`' || c == '[') {
		for (i++; sql[i]; i++) {
			if (sql[i] == close && (close == ']' || sql[i + 1] != close))
				break;
			if (sql[i] == close)
				i++; /* a doubled quote */
			too_long |= n + 1 >= len;
			if (!too_long)
				buf[n++] = sql[i];
		}
		if (sql[i])
			i++;
	} else if (isalpha((unsigned char)c) || c == '_' || (c & 0x80)) {
		for (; isalnum((unsigned char)sql[i]) || sql[i] == '_' || sql[i] == '$' ||
		       (sql[i] & 0x80);
		     i++) {
			too_long |= n + 1 >= len;
			if (!too_long)
				buf[n++] = sql[i];
		}
	} else if (isdigit((unsigned char)c)) { /* 1e3, 0x1f: no word */
		while (isalnum((unsigned char)sql[i]) || sql[i] == '.')
			i++;
	} else {
		i++;
	}
	buf[too_long ? 0 : n] = '\0'; /* too long for any name: no word */
	return i;
}

int vtabs__need_sql(sqlite3 *db, struct session *s, const char *sql)
{
	struct tp_lazy *l = s ? s->tables : NULL;
	char word[256];
	int i = 0, rc = SQLITE_OK;

	if (!l || l->db != db || !sql)
		return SQLITE_OK; /* every table is registered */
	while (sql[i] && rc == SQLITE_OK) {
		if (sql[i] == '-' && sql[i + 1] == '-') {
			while (sql[i] && sql[i] != '\n')
				i++;
		} else if (sql[i] == '/' && sql[i + 1] == '*') {
			const char *end = strstr(sql + i + 2, "*/");

			i = end ? (int)(end - sql) + 2 : (int)strlen(sql);
		} else {
			i = scan_word(sql, i, word, sizeof(word));
			if (word[0])
				rc = need_word(l, s, word);
		}
	}
	return rc;
}
