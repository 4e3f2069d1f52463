/*
 * profilers/registry.c - where profilers come from: the built-in table (queries/NAME.sql,
 * embedded by scripts/embed-queries.sh into build/gen/queries.h), the system directory
 * /etc/perf-sql/profilers (read only) and the user's $XDG_CONFIG_HOME/perf-sql/profilers
 * (default ~/.config/perf-sql/profilers). API and file format: profilers/profiler.h.
 *
 * (1) Lookup order: user, system, built-in; so a saved profiler shadows a built-in of the same
 *     name, which `save` only writes with --force.
 * (2) Saved files are created 0600 in directories 0700 (queries name pids and paths), written
 *     to a new file and renamed (core/outfile.h), so a reader never sees half a profiler, and
 *     a link at NAME.sql is refused, not written through.
 * (3) PERF_SQL_SYSTEM_PROFILERS overrides the system directory (for tests).
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <sqlite3.h>
#include "core/outfile.h"
#include "core/tracefs.h"
#include "engine/query.h"
#include "profilers/profiler.h"
#include "profilers/view.h"

struct builtin_query {
	const char *name;
	const char *path;
	const char *text;
};

#include "queries.h"

#define NR_BUILTINS (sizeof(builtin_queries) / sizeof(builtin_queries[0]))
#define MAX_LISTED 4096

int profiler__check_name(const char *name, struct err *e)
{
	size_t n = strspn(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-");

	if (!n || name[n] || n > 64 || name[0] == '-')
		return err_set(e, -EINVAL,
			       "profiler name '%s': use 1 to 64 letters, digits, '_' or "
			       "'-' (not first)",
			       name);
	return 0;
}

bool profiler__is_builtin(const char *name)
{
	for (size_t i = 0; i < NR_BUILTINS; i++)
		if (!strcmp(builtin_queries[i].name, name))
			return true;
	return false;
}

const char *profiler__origin_name(const struct profiler *p)
{
	static const char *const names[] = { "built-in", "system", "saved" };

	return names[p->origin];
}

const char *profiler__kind(const struct profiler *p, char *buf, size_t len)
{
	snprintf(buf, len, "%s%s", profiler__origin_name(p),
		 p->origin != PROF_BUILTIN && profiler__is_builtin(p->name) ? "*" : "");
	return buf;
}

int profilers__user_dir(char *buf, size_t len, struct err *e)
{
	const char *xdg = getenv("XDG_CONFIG_HOME"), *home = getenv("HOME");
	int n;

	if (xdg && xdg[0] == '/')
		n = snprintf(buf, len, "%s/perf-sql/profilers", xdg);
	else if (home && home[0])
		n = snprintf(buf, len, "%s/.config/perf-sql/profilers", home);
	else
		return err_set(e, -ENOENT,
			       "saved profilers: neither XDG_CONFIG_HOME nor HOME is set");
	if (n >= (int)len)
		return err_set(e, -ENAMETOOLONG, "saved profilers: directory name too long");
	return 0;
}

static const char *system_dir(void)
{
	const char *d = getenv("PERF_SQL_SYSTEM_PROFILERS");

	return d && d[0] ? d : "/etc/perf-sql/profilers";
}

static struct profiler *parse_new(const char *name, const char *text, size_t len,
				  enum prof_origin origin, const char *path, struct err *e)
{
	struct profiler *p = malloc(sizeof(*p));

	if (!p) {
		err_set(e, -ENOMEM, "%s: out of memory", name);
		return NULL;
	}
	if (profiler__parse(p, name, text, len, e)) {
		free(p);
		return NULL;
	}
	p->origin = origin;
	snprintf(p->path, sizeof(p->path), "%s", path);
	return p;
}

/* dir/NAME.sql, or NULL: e set only when the file exists but cannot be read or parsed */
static struct profiler *load_file(const char *dir, const char *name, enum prof_origin origin,
				  struct err *e)
{
	char path[PATH_MAX + 80], *text = NULL;
	size_t cap = 0;
	ssize_t n;
	struct profiler *p;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s.sql", dir, name);
	if (!(f = fopen(path, "r"))) {
		if (errno != ENOENT)
			err_set(e, -errno, "%s: %s", path, strerror(errno));
		return NULL;
	}
	n = getdelim(&text, &cap, '\0', f);
	fclose(f);
	if (n < 0) {
		free(text);
		err_set(e, -EIO, "%s: cannot read", path);
		return NULL;
	}
	p = parse_new(name, text, (size_t)n, origin, path, e);
	free(text);
	if (!p)
		err_hint(e, "fix or delete %s", path);
	return p;
}

static struct profiler *load_builtin(size_t i, struct err *e)
{
	const struct builtin_query *b = &builtin_queries[i];

	return parse_new(b->name, b->text, strlen(b->text), PROF_BUILTIN, b->path, e);
}

struct profiler *profiler__find(const char *name, struct err *e)
{
	char dir[PATH_MAX], near[300] = "";
	struct profiler *p;

	if (profiler__check_name(name, e))
		return NULL;
	e->code = 0;
	if (!profilers__user_dir(dir, sizeof(dir), &(struct err){ 0 }) &&
	    ((p = load_file(dir, name, PROF_USER, e)) || e->code))
		return p;
	if ((p = load_file(system_dir(), name, PROF_SYSTEM, e)) || e->code)
		return p;
	for (size_t i = 0; i < NR_BUILTINS; i++)
		if (!strcmp(builtin_queries[i].name, name))
			return load_builtin(i, e);
	/* near names: a shared prefix of 3, or one containing the other */
	for (size_t i = 0; i < NR_BUILTINS; i++) {
		const char *b = builtin_queries[i].name;

		if ((!strncmp(b, name, 3) || strstr(b, name) || strstr(name, b)) &&
		    strlen(near) + strlen(b) + 3 < sizeof(near))
			snprintf(near + strlen(near), sizeof(near) - strlen(near), "%s%s",
				 near[0] ? " " : "", b);
	}
	err_set(e, -ENOENT, "no such profiler '%s'", name);
	if (near[0])
		err_hint(e, "did you mean: %s? (perf-sql list shows them all)", near);
	else
		err_hint(e, "perf-sql list shows them all");
	return NULL;
}

static int by_name(const void *a, const void *b)
{
	const struct profiler *x = *(struct profiler *const *)a, *y = *(struct profiler *const *)b;
	int c = strcmp(x->name, y->name);

	return c ? c : (int)y->origin - (int)x->origin; /* user first: it shadows the others */
}

static int add_dir(struct profiler **list, int *nr, const char *dir, enum prof_origin origin,
		   struct err *e)
{
	struct dirent *d;
	DIR *dp = opendir(dir);

	if (!dp)
		return errno == ENOENT ? 0 : err_set(e, -errno, "%s: %s", dir, strerror(errno));
	while ((d = readdir(dp)) && *nr < MAX_LISTED) {
		size_t n = strlen(d->d_name);
		char name[80];
		struct err skip = { 0 };

		if (n <= 4 || n - 4 >= sizeof(name) || strcmp(d->d_name + n - 4, ".sql"))
			continue;
		snprintf(name, sizeof(name), "%.*s", (int)(n - 4), d->d_name);
		if (profiler__check_name(name, &skip))
			continue; /* not a file save could have written */
		if ((list[*nr] = load_file(dir, name, origin, &skip)))
			(*nr)++;
		else if (skip.code) {
			/* list it anyway, so `list` shows what is broken */
			struct profiler *p = calloc(1, sizeof(*p));

			if (!p)
				continue;
			snprintf(p->name, sizeof(p->name), "%.64s", name);
			snprintf(p->summary, sizeof(p->summary), "[broken: %.180s]", skip.msg);
			snprintf(p->path, sizeof(p->path), "%s/%s", dir, d->d_name);
			p->origin = origin;
			list[(*nr)++] = p;
		}
	}
	closedir(dp);
	return 0;
}

struct profiler **profilers__list(int *nr_out, struct err *e)
{
	struct profiler **list = calloc(MAX_LISTED + NR_BUILTINS, sizeof(*list));
	char dir[PATH_MAX];
	int nr = 0, kept = 0;

	*nr_out = 0;
	if (!list) {
		err_set(e, -ENOMEM, "out of memory");
		return NULL;
	}
	for (size_t i = 0; i < NR_BUILTINS; i++)
		if (!(list[nr++] = load_builtin(i, e)))
			goto fail;
	if (add_dir(list, &nr, system_dir(), PROF_SYSTEM, e))
		goto fail;
	if (!profilers__user_dir(dir, sizeof(dir), &(struct err){ 0 }) &&
	    add_dir(list, &nr, dir, PROF_USER, e))
		goto fail;
	qsort(list, (size_t)nr, sizeof(*list), by_name);
	for (int i = 0; i < nr; i++) {
		if (kept && !strcmp(list[kept - 1]->name, list[i]->name)) {
			profiler__free(list[i]);
			free(list[i]);
			continue;
		}
		list[kept++] = list[i];
	}
	*nr_out = kept;
	return list;
fail:
	profilers__free(list, nr);
	return NULL;
}

void profilers__free(struct profiler **list, int nr)
{
	if (!list)
		return;
	for (int i = 0; i < nr; i++) {
		profiler__free(list[i]);
		free(list[i]);
	}
	free(list);
}

struct saved_text {
	const char *head, *sql;
};

static int put_profiler(FILE *f, void *ctx)
{
	const struct saved_text *t = ctx;
	size_t n = strlen(t->sql);

	fputs(t->head, f);
	fputs(t->sql, f);
	if (n && t->sql[n - 1] != '\n')
		fputc('\n', f);
	if (fflush(f) || ferror(f))
		return errno ? -errno : -EIO;
	return 0;
}

static int write_file(const char *path, const char *head, const char *sql, struct err *e)
{
	struct saved_text t = { head, sql };

	return outfile__replace(path, 0600, put_profiler, &t, e);
}

/*
 * What is saved must prepare, as it will run: with its parameters' defaults bound. A profiler
 * whose table or column parameter has no default cannot be prepared without a value: it is
 * saved unchecked (its header was checked).
 */
static int check_sql(const struct profiler *p, struct err *e)
{
	struct query q = { 0 };
	struct err be = { 0 };
	char *sql = NULL;
	int rc;

	if (profiler__bind(p, 0, NULL, q.params, QUERY_MAX_PARAMS, &q.nr_params, &sql, &be)) {
		sqlite3_free(sql);
		return 0;
	}
	q.sql = sql;
	q.extend = profilers__register_views;
	rc = query__check(&q, e);
	sqlite3_free(sql);
	if (rc && e->code != -EACCES && e->code != -EPERM) {
		char msg[sizeof(e->msg)];

		snprintf(msg, sizeof(msg), "%s", e->msg);
		snprintf(e->msg, sizeof(e->msg), "not saved: %.480s", msg);
		e->usage = true;
	}
	return rc;
}

int profiler__save(const char *name, const char *sql, const char *summary, bool force,
		   char *path_out, size_t len, struct err *e)
{
	char dir[PATH_MAX], head[400] = "", first[120];
	struct profiler check;
	int rc;

	if (profiler__check_name(name, e) || profilers__user_dir(dir, sizeof(dir), e))
		return e->code;
	if (profiler__is_builtin(name) && !force) {
		err_set(e, -EEXIST, "'%s' is a built-in profiler", name);
		return err_hint(e, "pick another name, or pass --force to shadow the built-in");
	}
	/* a header of its own (an edited profiler file) is kept as it is */
	if (!(sql[0] == '-' && sql[1] == '-' &&
	      !strncmp(sql + 2 + strspn(sql + 2, " "), name, strlen(name)))) {
		if (!summary) {
			/* the SQL's start, on one line */
			snprintf(first, sizeof(first), "%s", sql + strspn(sql, " \t\n"));
			for (char *c = first; *c; c++)
				if (*c == '\n' || *c == '\t')
					*c = ' ';
			if (strlen(sql) > 60)
				strcpy(first + 57, "...");
			summary = first;
		}
		if (strchr(summary, '\n'))
			return err_set(e, -EINVAL, "--summary: one line only");
		snprintf(head, sizeof(head), "-- %s: %s\n", name, summary);
	}
	{
		/* what is saved must parse: check the header before it is written */
		size_t hl = strlen(head), sl = strlen(sql);
		char *all = malloc(hl + sl + 1);

		if (!all)
			return err_set(e, -ENOMEM, "out of memory");
		memcpy(all, head, hl);
		memcpy(all + hl, sql, sl + 1);
		rc = profiler__parse(&check, name, all, hl + sl, e);
		free(all);
		if (!rc)
			rc = check_sql(&check, e);
		profiler__free(&check);
		if (rc)
			return rc;
	}
	if ((rc = mkdir_p(dir)))
		return err_set(e, rc, "%s: %s", dir, strerror(-rc));
	snprintf(path_out, len, "%s/%s.sql", dir, name);
	return write_file(path_out, head, sql, e);
}

int profiler__delete(const char *name, char *path_out, size_t len, struct err *e)
{
	char dir[PATH_MAX], sys[PATH_MAX + 80];

	if (profiler__check_name(name, e) || profilers__user_dir(dir, sizeof(dir), e))
		return e->code;
	snprintf(path_out, len, "%s/%s.sql", dir, name);
	if (!unlink(path_out))
		return 0;
	if (errno != ENOENT)
		return err_set(e, -errno, "%s: %s", path_out, strerror(errno));
	snprintf(sys, sizeof(sys), "%s/%s.sql", system_dir(), name);
	if (!access(sys, F_OK)) {
		err_set(e, -EINVAL, "'%s' is a system-wide profiler (%s)", name, sys);
		return err_hint(e, "perf-sql does not delete those: remove the file as its owner");
	}
	if (profiler__is_builtin(name))
		return err_set(e, -EINVAL, "'%s' is a built-in profiler: it cannot be deleted",
			       name);
	err_set(e, -ENOENT, "no saved profiler '%s' (%s)", name, path_out);
	return err_hint(e, "perf-sql list shows the saved ones");
}
