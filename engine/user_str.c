/*
 * engine/user_str.c - how the user strings a query reads are collected (docs/bpf.md, "User
 * strings"): the NAME_str columns of syscalls:sys_enter_* tables.
 *
 * (1) A table one of whose NAME_str columns a scan reads gets a BPF program on its
 *     tracepoint (bpf/user_str.h), and its rows come from that program's output event on
 *     every CPU, each with the strings of its own call; --explain says so on the table's
 *     path line (the program is loaded, not attached).
 * (2) When it cannot (--no-bpf, no BPF or too little privilege, a refusal), a statement that
 *     names the column fails with one line; one that reads it only through `*` (the trace
 *     profiler's SELECT *) runs on the tracepoint as before, its strings NULL, and one line
 *     says why. Never a string that is not its event's.
 * (3) Over a capture or another kernel's facts (--explain), the program is built and listed,
 *     not loaded (bpf/listing.h), as any user.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "bpf/source.h"
#include "bpf/user_str.h"
#include "engine/query.h"
#include "engine/user_str.h"

static bool ident_char(char c) { return c == '_' || isalnum((unsigned char)c); }

/* whether sql has the identifier name (bare or "quoted") outside comments and strings, or a
 * string that is the name alone (an argument of pairs()) */
static bool has_ident(const char *sql, const char *name)
{
	size_t n = strlen(name);

	for (const char *p = sql; p && *p; p++) {
		if (p[0] == '-' && p[1] == '-') {
			p += strcspn(p, "\n");
		} else if (p[0] == '/' && p[1] == '*') {
			const char *e = strstr(p + 2, "*/");

			p = e ? e + 1 : p + strlen(p) - 1;
		} else if (*p == '\'') { /* a string: the name alone is pairs()' column */
			const char *e = strchr(p + 1, '\'');

			if (e && (size_t)(e - p - 1) == n && !strncasecmp(p + 1, name, n))
				return true;
			p = e ? e : p + strlen(p) - 1;
		} else if (!strncasecmp(p, name, n) && (p == sql || !ident_char(p[-1])) &&
			   !ident_char(p[n])) {
			return true;
		}
		if (!*p)
			break;
	}
	return false;
}

/* the first of src's NAME_str columns a statement of q names, in buf; or NULL */
static const char *named_column(struct query *q, const struct source *src, char *buf, size_t len)
{
	const struct tp_event *ev = src->ev;

	for (int i = 0; i < ev->nr_fields; i++) {
		if (!user_str__field(ev, &ev->fields[i]))
			continue;
		snprintf(buf, len, "%s_str", ev->fields[i].name);
		for (int k = 0; k < q->nr_stmts; k++)
			if (has_ident(sqlite3_sql(q->stmts[k]), buf))
				return buf;
	}
	return NULL;
}

static int without(struct query *q, struct session *s, struct source *src, const char *why,
		   const char *hint, const struct query_ops *ops, void *ctx, struct err *e)
{
	char col[96], line[512];

	if (named_column(q, src, col, sizeof(col))) {
		err_set(e, -EOPNOTSUPP,
			"%s: %s needs a BPF program (it copies the string at the "
			"call): %s",
			src->ev->full, col, why);
		return hint ? err_hint(e, "%s", hint) : e->code;
	}
	plan_note__set(src, PLAN_PATH,
		       "perf ring of the tracepoint: its NAME_str columns are NULL (%s)", why);
	snprintf(line, sizeof(line),
		 "%s: its NAME_str columns are NULL: user strings need a BPF program (%s)",
		 src->ev->full, why);
	if (ops && ops->notice)
		ops->notice(ctx, line);
	return 0;
}

/* id 0: built, not loaded (how: what the note says instead) */
static void note(struct session *s, struct source *src, unsigned id, int nr_insns, int nr_strs,
		 const char *how)
{
	char prog[16] = "";

	if (id)
		snprintf(prog, sizeof(prog), " %u", id);
	plan_note__set(src, PLAN_PATH,
		       "perf ring of a BPF output event on every CPU, written by BPF program"
		       "%s of %d insns on %s (%s), which copies the call's %d user string%s "
		       "(at most %d bytes each) with the record",
		       prog, nr_insns, src->ev->full, how, nr_strs, nr_strs == 1 ? "" : "s",
		       USER_STR_MAX);
}

/* a capture or another kernel's facts, --explain: the program built and listed (3) */
static int offline(struct session *s, struct source *src, struct err *e)
{
	char *listing = NULL;
	int nr_insns = 0, nr_strs = 0;

	if (user_str__list(src, s->self, &listing, &nr_insns, e))
		return e->code;
	for (int i = 0; i < src->ev->nr_fields; i++)
		nr_strs += user_str__field(src->ev, &src->ev->fields[i]);
	source__use_user_str(src);
	note(s, src, 0, nr_insns, nr_strs < USER_STR_FIELDS ? nr_strs : USER_STR_FIELDS,
	     "built, not loaded: offline");
	plan_note__take(src, PLAN_SQL, NULL);
	plan_note__take(src, PLAN_LISTING, listing);
	return 0;
}

int user_str_plan__apply(struct query *q, struct session *s, const struct query_ops *ops, void *ctx,
			 struct err *e)
{
	int ret;

	for (int j = 0; j < s->nr_src; j++) {
		struct source *src = s->src[j];
		const struct user_str_prog *p;
		struct err le = { 0 };

		if (!src->want_user_str || src->counter || (s->replay && !q->plan_only))
			continue;
		if (src->bpf) /* aggregated in the kernel: its statement reads no string */
			continue;
		if (q->no_bpf) {
			if ((ret = without(q, s, src, "--no-bpf runs none", "leave --no-bpf out",
					   ops, ctx, e)))
				return ret;
			continue;
		}
		if (s->replay && !q->no_bpf) {
			if ((ret = offline(s, src, e)))
				return ret;
			continue;
		}
		if (user_str__load(s, src, !q->plan_only, &le)) {
			bool perm = le.code == -EPERM || le.code == -EACCES;

			/* a refusal that is not the privilege: root would not help */
			if ((ret = without(q, s, src, le.msg,
					   perm ? "run as root, or give CAP_BPF and CAP_PERFMON"
						: "select the pointer (the column without _str) "
						  "instead",
					   ops, ctx, e)))
				return ret;
			continue;
		}
		source__use_user_str(src);
		p = user_str__of(s, src);
		note(s, src, p->prog_id, p->nr_insns, p->nr_strs,
		     q->plan_only ? "loaded, not attached: --explain" : "attached");
		if (p->listing) /* --explain: what was loaded */
			plan_note__take(src, PLAN_LISTING, strdup(p->listing));
	}
	return 0;
}
