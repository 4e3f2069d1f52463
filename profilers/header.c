/*
 * profilers/header.c - the annotated header of a profiler's SQL, its parameters' values, and
 * the SQL a run prepares. Format and rules: profilers/profiler.h.
 *
 * profiler__parse() takes (buf, len) and touches nothing else, so a fuzzer can drive it:
 * every malformed header line is an error naming the line, never a crash or a silent skip.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sqlite3.h>
#include "core/units.h"
#include "engine/query.h"
#include "profilers/profiler.h"

static const struct {
	const char *name, *example;
} param_types[] = {
	[PT_DURATION] = { "duration", "a duration like 500us, 4ms or 1s (a bare number is ms)" },
	[PT_SIZE] = { "size", "a size like 4096, 4k or 1M" },
	[PT_INT] = { "int", "a whole number" },
	[PT_FLOAT] = { "float", "a number" },
	[PT_TEXT] = { "text", "any text" },
	[PT_PIDS] = { "pids", "a list of pids like 1,2,3" },
	[PT_TABLE] = { "table", "a table name like sched_switch or sched:sched_switch" },
	[PT_COLUMN] = { "column", "a column name like prev_pid" },
	[PT_AUTO] = { "auto", "a number or text" },
};

const char *param_type__name(enum param_type t) { return param_types[t].name; }

const char *param_type__example(enum param_type t) { return param_types[t].example; }

static bool is_ident(const char *s, size_t n, bool colon)
{
	if (!n)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!isalnum((unsigned char)s[i]) && s[i] != '_' && !(colon && s[i] == ':'))
			return false;
	return true;
}

static void append_line(char *buf, size_t cap, const char *s, size_t n)
{
	size_t len = strlen(buf);

	if (len && len + 1 < cap)
		buf[len++] = '\n';
	snprintf(buf + len, cap - len, "%.*s", (int)n, s);
}

/* "than duration 0 \"report only ...\"" */
static int parse_param(struct profiler *p, const char *s, int line, struct err *e)
{
	struct prof_param *pp = &p->params[p->nr_params];
	char name[64], type[32], def[80];
	int n = 0, t;

	if (p->nr_params == PROF_MAX_PARAMS)
		return err_set(e, -EINVAL, "%s: line %d: too many parameters (at most %d)", p->name,
			       line, PROF_MAX_PARAMS);
	if (sscanf(s, "%63s %31s %79s %n", name, type, def, &n) != 3)
		return err_set(e, -EINVAL,
			       "%s: line %d: expected '-- param: NAME TYPE DEFAULT \"HELP\"'",
			       p->name, line);
	if (strlen(name) > 32 || !is_ident(name, strlen(name), false) ||
	    isdigit((unsigned char)name[0]))
		return err_set(e, -EINVAL,
			       "%s: line %d: parameter name '%s': use letters, digits and "
			       "'_' (at most 32)",
			       p->name, line, name);
	for (int i = 0; i < p->nr_params; i++)
		if (!strcmp(p->params[i].name, name))
			return err_set(e, -EINVAL, "%s: line %d: parameter '%s' declared twice",
				       p->name, line, name);
	for (t = 0; t < PT_AUTO; t++)
		if (!strcmp(type, param_types[t].name))
			break;
	if (t == PT_AUTO)
		return err_set(e, -EINVAL,
			       "%s: line %d: no such parameter type '%s'; choices: duration "
			       "size int float text pids table column",
			       p->name, line, type);
	if (strlen(def) >= sizeof(pp->def))
		return err_set(e, -EINVAL, "%s: line %d: default too long", p->name, line);
	memset(pp, 0, sizeof(*pp));
	strcpy(pp->name, name);
	snprintf(pp->bind, sizeof(pp->bind), ":%s", name);
	pp->type = (enum param_type)t;
	strcpy(pp->def, def);
	s += n;
	if (*s == '"') {
		const char *end = strrchr(s + 1, '"');

		if (!end)
			return err_set(e, -EINVAL, "%s: line %d: help text lacks its closing '\"'",
				       p->name, line);
		snprintf(pp->help, sizeof(pp->help), "%.*s", (int)(end - s - 1), s + 1);
	} else {
		snprintf(pp->help, sizeof(pp->help), "%s", s);
	}
	if (strcasecmp(def, "NULL")) {
		struct query_param qp;
		struct err e2 = { 0 };

		if (param__parse(pp, def, &qp, &e2))
			return err_set(e, -EINVAL, "%s: line %d: default of '%s': %s", p->name,
				       line, name, e2.msg);
	}
	p->nr_params++;
	return 0;
}

/* one "-- ..." header line, without the "--" and leading blanks */
static int header_line(struct profiler *p, const char *s, size_t n, int line, bool first,
		       struct err *e)
{
	size_t name_len = strlen(p->name);
	char tmp[512];

	snprintf(tmp, sizeof(tmp), "%.*s", (int)n, s);
	if (!strncmp(tmp, "needs:", 6)) {
		append_line(p->needs, sizeof(p->needs), tmp + 6 + strspn(tmp + 6, " \t"),
			    strlen(tmp + 6 + strspn(tmp + 6, " \t")));
	} else if (!strncmp(tmp, "param:", 6)) {
		return parse_param(p, tmp + 6, line, e);
	} else if (!strncmp(tmp, "pprof:", 6)) {
		if (p->pprof[0] || strlen(tmp + 6) >= sizeof(p->pprof))
			return err_set(e, -EINVAL,
				       "%s: line %d: one pprof line of at most %zu bytes", p->name,
				       line, sizeof(p->pprof) - 1);
		snprintf(p->pprof, sizeof(p->pprof), "%s", tmp + 6 + strspn(tmp + 6, " \t"));
	} else if (!strncmp(tmp, "example:", 8)) {
		append_line(p->example, sizeof(p->example), tmp + 8 + strspn(tmp + 8, " \t"),
			    strlen(tmp + 8 + strspn(tmp + 8, " \t")));
	} else if (!p->summary[0] && !strncmp(tmp, p->name, name_len) && tmp[name_len] == ':') {
		const char *sum = tmp + name_len + 1;

		snprintf(p->summary, sizeof(p->summary), "%s", sum + strspn(sum, " \t"));
	} else if (first) {
		snprintf(p->summary, sizeof(p->summary), "%s", tmp);
	} else {
		append_line(p->desc, sizeof(p->desc), tmp, strlen(tmp));
	}
	return 0;
}

/* :NAME tokens of the SQL body not declared by a param line become auto parameters */
static int add_auto_params(struct profiler *p, struct err *e)
{
	const char *s = p->body;

	while (*s) {
		if (*s == '\'' || *s == '"') {
			const char *end = strchr(s + 1, *s);

			s = end ? end + 1 : s + strlen(s);
		} else if (s[0] == '-' && s[1] == '-') {
			s += strcspn(s, "\n");
		} else if (*s == ':' && (isalpha((unsigned char)s[1]) || s[1] == '_')) {
			size_t n = 1;
			bool known = false;

			while (isalnum((unsigned char)s[n]) || s[n] == '_')
				n++;
			for (int i = 0; i < p->nr_params; i++)
				if (strlen(p->params[i].name) == n - 1 &&
				    !strncmp(p->params[i].name, s + 1, n - 1))
					known = true;
			if (!known) {
				struct prof_param *pp = &p->params[p->nr_params];

				if (p->nr_params == PROF_MAX_PARAMS || n - 1 > 32)
					return err_set(
						e, -EINVAL,
						"%s: too many or too long parameters in the SQL",
						p->name);
				memset(pp, 0, sizeof(*pp));
				snprintf(pp->name, sizeof(pp->name), "%.*s", (int)(n - 1), s + 1);
				snprintf(pp->bind, sizeof(pp->bind), ":%s", pp->name);
				pp->type = PT_AUTO;
				strcpy(pp->def, "NULL");
				snprintf(pp->help, sizeof(pp->help),
					 "undeclared in the header: NULL unless given");
				p->nr_params++;
			}
			s += n;
		} else {
			s++;
		}
	}
	return 0;
}

int profiler__parse(struct profiler *p, const char *name, const char *buf, size_t len,
		    struct err *e)
{
	const char *s, *end;
	int line = 0;
	bool first = true;

	memset(p, 0, sizeof(*p));
	snprintf(p->name, sizeof(p->name), "%s", name);
	if (memchr(buf, '\0', len))
		return err_set(e, -EINVAL, "%s: the file contains a NUL byte", name);
	if (!(p->text = malloc(len + 1)))
		return err_set(e, -ENOMEM, "%s: out of memory", name);
	memcpy(p->text, buf, len);
	p->text[len] = '\0';
	for (s = p->text; *s; s = *end ? end + 1 : end) {
		const char *t = s + strspn(s, " \t\r");

		end = s + strcspn(s, "\n");
		line++;
		if (t == end)
			continue;
		if (t[0] != '-' || t[1] != '-')
			break;
		t += 2 + strspn(t + 2, " \t");
		if (header_line(p, t, (size_t)(end - t - (end > t && end[-1] == '\r')), line, first,
				e))
			goto fail;
		first = false;
	}
	p->body = s;
	if (!*s || !s[strspn(s, " \t\r\n;")]) {
		err_set(e, -EINVAL, "%s: no SQL after the header comments", name);
		goto fail;
	}
	if (add_auto_params(p, e))
		goto fail;
	return 0;
fail:
	profiler__free(p);
	return e->code;
}

void profiler__free(struct profiler *p)
{
	if (!p)
		return;
	free(p->text);
	p->text = NULL;
	p->body = NULL;
}

int param__parse(const struct prof_param *pp, const char *v, struct query_param *out, struct err *e)
{
	char *end;
	long long ll;
	enum param_type t = pp->type;

	memset(out, 0, sizeof(*out));
	out->name = pp->bind;
	if (!strcasecmp(v, "NULL")) {
		out->type = SQLITE_NULL;
		return 0;
	}
	switch (t) {
	case PT_DURATION:
	case PT_SIZE:
		ll = t == PT_DURATION ? units__ns(v) : units__bytes(v);
		if (ll < 0)
			break;
		out->type = SQLITE_INTEGER;
		out->i = ll;
		return 0;
	case PT_INT:
		errno = 0;
		out->i = strtoll(v, &end, 0);
		if (!*v || *end || errno)
			break;
		out->type = SQLITE_INTEGER;
		return 0;
	case PT_FLOAT:
		out->d = strtod(v, &end);
		if (!*v || *end)
			break;
		out->type = SQLITE_FLOAT;
		return 0;
	case PT_PIDS:
		if (!*v || strspn(v, "0123456789,") != strlen(v) || strstr(v, ",,") || *v == ',' ||
		    v[strlen(v) - 1] == ',')
			break;
		out->type = SQLITE_TEXT;
		out->text = v;
		return 0;
	case PT_TABLE:
	case PT_COLUMN:
		if (!is_ident(v, strlen(v), t == PT_TABLE) || strlen(v) > 128)
			break;
		out->type = SQLITE_TEXT;
		out->text = v;
		return 0;
	case PT_AUTO:
		errno = 0;
		out->i = strtoll(v, &end, 0);
		if (*v && !*end && !errno) {
			out->type = SQLITE_INTEGER;
			return 0;
		}
		out->d = strtod(v, &end);
		if (*v && !*end) {
			out->type = SQLITE_FLOAT;
			return 0;
		}
		/* fall through */
	case PT_TEXT:
		out->type = SQLITE_TEXT;
		out->text = v;
		return 0;
	}
	return err_set(e, -EINVAL, "%s='%s': expected %s", pp->name, v, param_types[t].example);
}

static void list_params(const struct profiler *p, char *buf, size_t len)
{
	size_t off = 0;

	buf[0] = '\0';
	for (int i = 0; i < p->nr_params && off < len; i++)
		off += (size_t)snprintf(buf + off, len - off, "%s%s (%s%s%s)", i ? ", " : "",
					p->params[i].name, param_types[p->params[i].type].name,
					strcasecmp(p->params[i].def, "NULL") ? ", default " : "",
					strcasecmp(p->params[i].def, "NULL") ? p->params[i].def
									     : "");
	if (!p->nr_params)
		snprintf(buf, len, "none");
}

static int bad_param(const struct profiler *p, struct err *e)
{
	char valid[400];

	list_params(p, valid, sizeof(valid));
	snprintf(e->hint, sizeof(e->hint), "parameters of %s: %s", p->name, valid);
	return e->code;
}

static const struct prof_param *param_named(const struct profiler *p, const char *name, size_t n)
{
	for (int i = 0; i < p->nr_params; i++)
		if (strlen(p->params[i].name) == n && !strncmp(p->params[i].name, name, n))
			return &p->params[i];
	return NULL;
}

/*
 * Identifier parameters: :NAME outside strings and comments becomes the name (quoted when it
 * holds a ':', as "sched:sched_switch" must be); a string literal ':NAME' becomes 'value'.
 */
static char *substitute(const struct profiler *p, const char *vals[], struct err *e)
{
	sqlite3_str *out = sqlite3_str_new(NULL);
	const char *s = p->text;

	while (*s) {
		const struct prof_param *pp;
		size_t n = 0;

		if (s[0] == '-' && s[1] == '-') {
			n = strcspn(s, "\n");
			sqlite3_str_append(out, s, (int)n);
			s += n;
		} else if (*s == '\'') {
			const char *end = strchr(s + 1, '\'');

			n = end ? (size_t)(end - s) + 1 : strlen(s);
			pp = n > 3 && s[1] == ':' ? param_named(p, s + 2, n - 3) : NULL;
			if (pp && (pp->type == PT_TABLE || pp->type == PT_COLUMN))
				sqlite3_str_appendf(out, "'%s'", vals[pp - p->params]);
			else
				sqlite3_str_append(out, s, (int)n);
			s += n;
		} else if (*s == ':' && (isalpha((unsigned char)s[1]) || s[1] == '_')) {
			n = 1;
			while (isalnum((unsigned char)s[n]) || s[n] == '_')
				n++;
			pp = param_named(p, s + 1, n - 1);
			if (pp && (pp->type == PT_TABLE || pp->type == PT_COLUMN)) {
				const char *v = vals[pp - p->params];

				sqlite3_str_appendf(out, strchr(v, ':') ? "\"%w\"" : "%s", v);
			} else {
				sqlite3_str_append(out, s, (int)n);
			}
			s += n;
		} else {
			sqlite3_str_appendchar(out, 1, *s++);
		}
	}
	if (sqlite3_str_errcode(out)) {
		sqlite3_free(sqlite3_str_finish(out));
		err_set(e, -ENOMEM, "%s: out of memory", p->name);
		return NULL;
	}
	return sqlite3_str_finish(out);
}

int profiler__bind(const struct profiler *p, int nargs, char **args, struct query_param *out,
		   int max, int *nr_out, char **sql_out, struct err *e)
{
	const char *vals[PROF_MAX_PARAMS] = { 0 };
	int nr = 0;

	*nr_out = 0;
	*sql_out = NULL;
	for (int i = 0; i < nargs; i++) {
		const char *eq = strchr(args[i], '=');
		const struct prof_param *pp =
			eq ? param_named(p, args[i], (size_t)(eq - args[i])) : NULL;

		if (!eq) {
			err_set(e, -EINVAL, "%s: '%s' is not PARAM=VALUE", p->name, args[i]);
			return bad_param(p, e);
		}
		if (!pp) {
			err_set(e, -EINVAL, "%s has no parameter '%.*s'", p->name,
				(int)(eq - args[i]), args[i]);
			return bad_param(p, e);
		}
		vals[pp - p->params] = eq + 1;
	}
	for (int i = 0; i < p->nr_params; i++) {
		const struct prof_param *pp = &p->params[i];
		struct query_param qp;
		const char *v = vals[i] ? vals[i] : pp->def;

		if (param__parse(pp, v, &qp, e)) {
			if (!vals[i])
				err_set(e, -EINVAL, "%s: the default of '%s' is malformed", p->name,
					pp->name);
			return bad_param(p, e);
		}
		if (pp->type == PT_TABLE || pp->type == PT_COLUMN) {
			if (qp.type == SQLITE_NULL) {
				err_set(e, -EINVAL, "%s needs %s=%s", p->name, pp->name,
					pp->type == PT_TABLE ? "TABLE" : "COLUMN");
				return bad_param(p, e);
			}
			vals[i] = qp.text;
			continue;
		}
		if (nr == max)
			return err_set(e, -EINVAL, "%s: too many parameters (at most %d)", p->name,
				       max);
		out[nr++] = qp;
	}
	if (!(*sql_out = substitute(p, vals, e)))
		return e->code;
	*nr_out = nr;
	return 0;
}
