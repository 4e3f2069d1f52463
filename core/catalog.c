/*
 * core/catalog.c - the event catalog: every tracepoint under tracefs events/SYSTEM/EVENT.
 *
 * HOW IT WORKS
 * (1) catalog__new() lists directories only (~2,300 events, a few ms); no format is read.
 * (2) Names: "system:event" always; the bare "event" when no other system has that name.
 * (3) catalog__parse() reads one event's format with libtraceevent (tep_parse_event) the first
 *     time the event is used, and turns its fields into struct tp_field (offset, size, kind).
 *     events/header_page is parsed once, before the first format.
 * (4) Suggestions for unknown names rank by edit distance over short and full names.
 * (5) A capture's formats, or another kernel's (an offline catalog), are checked
 *     (core/format_check.h), then parsed in a child first (parse_in_child()), so a parser
 *     crash is a refused capture, not ours.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <event-parse.h>
#include "core/catalog.h"
#include "core/field.h"
#include "core/format_check.h"
#include "core/tracefs.h"

struct catalog {
	char tracefs[256];
	struct tp_event *events;   /* sorted by full name */
	struct tp_event **by_name; /* the same, sorted by short name (catalog__find) */
	int nr_events, cap;
	struct tep_handle *tep;
	bool header_parsed;
	bool offline; /* formats come from a capture: checked strictly (core/format_check.h) */
};

static int cmp_full(const void *a, const void *b)
{
	return strcmp(((const struct tp_event *)a)->full, ((const struct tp_event *)b)->full);
}

static int cmp_name_ptr(const void *a, const void *b)
{
	return strcmp((*(struct tp_event *const *)a)->name, (*(struct tp_event *const *)b)->name);
}

static bool skip_entry(const struct dirent *d)
{
	return d->d_name[0] == '.' || d->d_type != DT_DIR;
}

static int add_event(struct catalog *c, const char *sys, const char *name)
{
	struct tp_event *ev;

	free(c->by_name); /* stale until catalog__sort(): catalog__find() scans meanwhile */
	c->by_name = NULL;
	if (c->nr_events == c->cap) {
		int ncap = c->cap ? c->cap * 2 : 1024;
		void *n = realloc(c->events, (size_t)ncap * sizeof(*c->events));

		if (!n)
			return -ENOMEM;
		c->events = n;
		c->cap = ncap;
	}
	ev = &c->events[c->nr_events];
	memset(ev, 0, sizeof(*ev));
	ev->system = strdup(sys);
	ev->name = strdup(name);
	if (asprintf(&ev->full, "%s:%s", sys, name) < 0)
		ev->full = NULL;
	if (!ev->system || !ev->name || !ev->full)
		return -ENOMEM;
	ev->id = -1;
	c->nr_events++;
	return 0;
}

static int list_system(struct catalog *c, const char *sys)
{
	char path[600];
	struct dirent *d;
	DIR *dir;
	int ret = 0;

	snprintf(path, sizeof(path), "%s/events/%s", c->tracefs, sys);
	dir = opendir(path);
	if (!dir)
		return 0; /* a system that vanished (module unloaded) is not an error */
	while (!ret && (d = readdir(dir)))
		if (!skip_entry(d))
			ret = add_event(c, sys, d->d_name);
	closedir(dir);
	return ret;
}

/* the by-name index, and which short names are unique */
static void mark_unique(struct catalog *c)
{
	struct tp_event **by_name = realloc(c->by_name, (size_t)c->nr_events * sizeof(*by_name));

	if (!by_name)
		return; /* catalog__find() then scans */
	c->by_name = by_name;
	for (int i = 0; i < c->nr_events; i++)
		by_name[i] = &c->events[i];
	qsort(by_name, (size_t)c->nr_events, sizeof(*by_name), cmp_name_ptr);
	for (int i = 0; i < c->nr_events; i++) {
		bool dup =
			(i > 0 && !strcmp(by_name[i]->name, by_name[i - 1]->name)) ||
			(i + 1 < c->nr_events && !strcmp(by_name[i]->name, by_name[i + 1]->name));
		by_name[i]->short_unique = !dup;
	}
}

static void catalog__sort(struct catalog *c)
{
	if (!c->nr_events)
		return; /* events is NULL: qsort() must not see it */
	qsort(c->events, (size_t)c->nr_events, sizeof(*c->events), cmp_full);
	mark_unique(c);
}

struct tp_event *catalog__add(struct catalog *c, const char *system, const char *name,
			      enum event_kind kind, struct err *e)
{
	struct tp_event *ev;

	if (catalog__find(c, name) && kind >= EV_UPROBE) {
		err_set(e, -EEXIST, "table %s exists already", name);
		return NULL;
	}
	if (add_event(c, system, name)) {
		err_set(e, -ENOMEM, "catalog: out of memory");
		return NULL;
	}
	ev = &c->events[c->nr_events - 1];
	ev->kind = kind;
	ev->parsed = true; /* no format: the columns are the sample's own */
	return ev;
}

/* After catalog__add()s: pointers to events move, so callers look events up again. */
void catalog__resort(struct catalog *c) { catalog__sort(c); }

const char *event_kind_name(enum event_kind kind)
{
	static const char *const names[] = { "tracepoint", "software",   "hardware", "cache",
					     "uprobe",     "breakpoint", "pmu" };

	return names[kind];
}

struct catalog *catalog__new_offline(struct err *e)
{
	struct catalog *c = calloc(1, sizeof(*c));

	if (!c)
		err_set(e, -ENOMEM, "catalog: out of memory");
	else
		c->header_parsed = c->offline = true; /* no header page needed */
	return c;
}

struct catalog *catalog__new(const char *tracefs, struct err *e)
{
	struct catalog *c = calloc(1, sizeof(*c));
	char path[512];
	struct dirent *d;
	DIR *dir = NULL;
	int ret = 0;

	if (!c) {
		err_set(e, -ENOMEM, "catalog: out of memory");
		return NULL;
	}
	snprintf(c->tracefs, sizeof(c->tracefs), "%s", tracefs);
	snprintf(path, sizeof(path), "%s/events", tracefs);
	dir = opendir(path);
	if (!dir) {
		err_set(e, -errno, "%s: %s", path, strerror(errno));
		goto fail;
	}
	while (!ret && (d = readdir(dir)))
		if (!skip_entry(d))
			ret = list_system(c, d->d_name);
	closedir(dir);
	if (ret) {
		err_set(e, ret, "catalog: %s", strerror(-ret));
		goto fail;
	}
	if (pmu__add_events(c, e))
		goto fail;
	catalog__sort(c);
	return c;
fail:
	catalog__free(c);
	return NULL;
}

void catalog__free(struct catalog *c)
{
	if (!c)
		return;
	for (int i = 0; i < c->nr_events; i++) {
		free(c->events[i].system);
		free(c->events[i].name);
		free(c->events[i].full);
		free(c->events[i].fields);
		free(c->events[i].probe_path);
		free(c->events[i].format_text);
	}
	free(c->events);
	free(c->by_name);
	if (c->tep)
		tep_free(c->tep);
	free(c);
}

int catalog__nr_events(const struct catalog *c) { return c->nr_events; }
struct tp_event *catalog__event(struct catalog *c, int idx) { return &c->events[idx]; }

struct tp_event *catalog__find(struct catalog *c, const char *name)
{
	struct tp_event key, *ev;
	char full[256], *sep;

	snprintf(full, sizeof(full), "%s", name);
	if (full[0] && full[strlen(full) - 1] == '/') /* perf's "cpu/mem-loads/" */
		full[strlen(full) - 1] = '\0';
	sep = strpbrk(full, ":/");
	if (sep) {
		*sep = ':';
		key.full = full;
		if (!c->nr_events) /* events is NULL: bsearch wants an array */
			return NULL;
		return bsearch(&key, c->events, (size_t)c->nr_events, sizeof(*c->events), cmp_full);
	}
	if (c->by_name) {
		struct tp_event **hit;

		key.name = (char *)name;
		ev = &key;
		hit = bsearch(&ev, c->by_name, (size_t)c->nr_events, sizeof(*c->by_name),
			      cmp_name_ptr);
		return hit && (*hit)->short_unique ? *hit : NULL;
	}
	for (int i = 0; i < c->nr_events; i++) {
		ev = &c->events[i];
		if (ev->short_unique && !strcmp(ev->name, name))
			return ev;
	}
	return NULL;
}

static enum field_kind field_kind(const struct tep_format_field *f)
{
	bool chars = strstr(f->type, "char") != NULL;

	if (f->flags & TEP_FIELD_IS_DYNAMIC)
		return chars ? FIELD_DYN_STR : FIELD_DYN_BLOB;
	if (f->flags & TEP_FIELD_IS_ARRAY)
		return chars ? FIELD_STR : FIELD_BLOB;
	if (f->size == 1 || f->size == 2 || f->size == 4 || f->size == 8)
		return FIELD_INT;
	return FIELD_BLOB;
}

static int convert_fields(struct tp_event *ev, struct tep_event *tev)
{
	struct tep_format_field *f;
	int n = 0;

	for (f = tev->format.fields; f; f = f->next)
		n++;
	ev->fields = calloc((size_t)n + 1, sizeof(*ev->fields));
	if (!ev->fields)
		return -ENOMEM;
	for (f = tev->format.fields; f; f = f->next) {
		struct tp_field *tf = &ev->fields[ev->nr_fields++];

		tf->name = f->name;
		tf->type = f->type;
		tf->offset = f->offset;
		tf->size = f->size;
		tf->kind = field_kind(f);
		tf->is_signed = (f->flags & TEP_FIELD_IS_SIGNED) != 0;
		tf->is_relative = (f->flags & TEP_FIELD_IS_RELATIVE) != 0;
	}
	ev->print_fmt = tev->print_fmt.format;
	return 0;
}

static int parse_header(struct catalog *c, struct err *e)
{
	char path[512], *buf;
	size_t len;
	int ret;

	c->tep = tep_alloc();
	if (!c->tep)
		return err_set(e, -ENOMEM, "libtraceevent: out of memory");
	tep_set_long_size(c->tep, sizeof(long));
	tep_set_page_size(c->tep, 4096);
	snprintf(path, sizeof(path), "%s/events/header_page", c->tracefs);
	ret = read_file(path, &buf, &len);
	if (ret)
		return err_set(e, ret, "%s: %s", path, strerror(-ret));
	ret = tep_parse_header_page(c->tep, buf, (unsigned long)len, sizeof(long));
	free(buf);
	c->header_parsed = true;
	return ret ? err_set(e, -EINVAL, "%s: cannot parse", path) : 0;
}

int catalog__parse(struct catalog *c, struct tp_event *ev, struct err *e)
{
	char path[512], *buf = NULL;
	size_t len;
	int ret;

	if (ev->parsed)
		return 0;
	if (!c->header_parsed && (ret = parse_header(c, e)))
		return ret;
	snprintf(path, sizeof(path), "%s/events/%s/%s/format", c->tracefs, ev->system, ev->name);
	ret = read_file(path, &buf, &len);
	if (ret)
		return err_set(e, ret, "%s: cannot read its format (%s)", ev->full, strerror(-ret));
	ret = catalog__parse_text(c, ev, buf, len, e);
	free(buf);
	return ret;
}

/*
 * A capture's format is parsed by libtraceevent in a child first: 1.7.1 crashes on some texts
 * of the shape core/format_check.c lets through (fuzz_capture_text finds them), and a crafted capture
 * must not take perf-sql, or the host of perf_sql_open(), with it. The child parses the same
 * text against a copy of the same state, so after a clean parse there the parent's is the
 * same. 0, or -EINVAL with e saying why.
 */
static int parse_in_child(struct catalog *c, struct tp_event *ev, const char *text, size_t len,
			  struct err *e)
{
	int status;
	pid_t pid = fork();

	if (pid < 0)
		return err_set(e, -errno, "%s: checking its format: fork: %s", ev->full,
			       strerror(errno));
	if (pid == 0) {
		struct rlimit none = { 0, 0 };
		struct tep_event *tev = NULL;
		int fd = open("/dev/null", O_WRONLY | O_CLOEXEC);

		setrlimit(RLIMIT_CORE, &none); /* a crash here is expected: no core file */
		if (fd >= 0)
			dup2(fd, STDOUT_FILENO), dup2(fd, STDERR_FILENO);
		alarm(10);
		_exit(tep_parse_format(c->tep, &tev, text, (unsigned long)len, ev->system) ==
					      TEP_ERRNO__SUCCESS &&
				      tev
			      ? 0
			      : 2);
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR) /* ECHILD: the host ignores SIGCHLD, the status is gone */
			return 0;
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
		return 0;
	if (WIFEXITED(status) && WEXITSTATUS(status) == 2)
		return err_set(e, -EINVAL, "%s: cannot parse its format", ev->full);
	return err_set(e, -EINVAL,
		       "%s: libtraceevent crashed reading its format (%s): the capture is damaged "
		       "or crafted",
		       ev->full,
		       WIFSIGNALED(status) ? strsignal(WTERMSIG(status)) : "a sanitizer's report");
}

int catalog__parse_text(struct catalog *c, struct tp_event *ev, const char *text, size_t len,
			struct err *e)
{
	struct tep_event *tev = NULL;
	int ret;

	if (!c->tep && !(c->tep = tep_alloc()))
		return err_set(e, -ENOMEM, "libtraceevent: out of memory");
	if ((ret = format__check(ev->full, text, len, c->offline, e)) ||
	    (c->offline && (ret = parse_in_child(c, ev, text, len, e))))
		return ret;
	if (tep_parse_format(c->tep, &tev, text, (unsigned long)len, ev->system) !=
		    TEP_ERRNO__SUCCESS ||
	    !tev)
		return err_set(e, -EINVAL, "%s: cannot parse its format", ev->full);
	ev->format_text = strndup(text, len);
	if (!ev->format_text)
		return err_set(e, -ENOMEM, "%s: out of memory", ev->full);
	ev->id = tev->id;
	ev->tep_event = tev;
	ret = convert_fields(ev, tev);
	if (ret)
		return err_set(e, ret, "%s: out of memory", ev->full);
	for (int i = 0; i < ev->nr_fields; i++)
		if ((ret = field__check(ev->full, &ev->fields[i], e))) {
			free(ev->fields);
			ev->fields = NULL;
			ev->nr_fields = 0;
			return ret;
		}
	ev->parsed = true;
	return 0;
}

static int edit_distance(const char *a, const char *b)
{
	int la = (int)strlen(a), lb = (int)strlen(b), d[64 + 1];

	if (la > 64 || lb > 64)
		return 99;
	for (int j = 0; j <= lb; j++)
		d[j] = j;
	for (int i = 1; i <= la; i++) {
		int prev = d[0];

		d[0] = i;
		for (int j = 1; j <= lb; j++) {
			int cur = d[j], sub = prev + (a[i - 1] != b[j - 1]);
			int del = d[j] + 1, ins = d[j - 1] + 1;

			d[j] = sub < del ? (sub < ins ? sub : ins) : (del < ins ? del : ins);
			prev = cur;
		}
	}
	return d[lb];
}

void catalog__suggest(struct catalog *c, const char *name, char *buf, size_t len)
{
	int best[3] = { 99, 99, 99 }, who[3] = { -1, -1, -1 };
	bool full = strpbrk(name, ":/") != NULL;
	size_t off = 0;

	for (int i = 0; i < c->nr_events; i++) {
		const struct tp_event *ev = &c->events[i];
		int d = edit_distance(name, full ? ev->full : ev->name);

		/* a name that contains the query, or that it contains, is close too */
		if (d > 2 && (strstr(ev->name, name) || strstr(name, ev->name)))
			d = 3;
		for (int k = 0; k < 3; k++) {
			if (d < best[k]) {
				for (int m = 2; m > k; m--) {
					best[m] = best[m - 1];
					who[m] = who[m - 1];
				}
				best[k] = d;
				who[k] = i;
				break;
			}
		}
	}
	buf[0] = '\0';
	for (int k = 0; k < 3 && who[k] >= 0; k++) {
		const struct tp_event *ev = &c->events[who[k]];
		int limit = (int)strlen(name) / 3 + 1;

		if (best[k] > (limit > 3 ? limit : 3))
			break;
		off += (size_t)snprintf(buf + off, len > off ? len - off : 0, "%s%s",
					off ? ", " : "",
					ev->short_unique && !full ? ev->name : ev->full);
	}
}

/* does arg (a field, or an expression over it) read the field named name? */
static bool reads_field(const struct tep_print_arg *arg, const char *name)
{
	if (!arg)
		return false;
	switch (arg->type) {
	case TEP_PRINT_FIELD: return arg->field.name && !strcmp(arg->field.name, name);
	case TEP_PRINT_OP:
		return reads_field(arg->op.left, name) || reads_field(arg->op.right, name);
	case TEP_PRINT_TYPE: return reads_field(arg->typecast.item, name);
	default: return false;
	}
}

static const struct tep_print_arg *find_print_arg(const struct tep_print_arg *arg,
						  const char *field, bool flags)
{
	for (; arg; arg = arg->next) {
		const struct tep_print_arg *hit = NULL;

		if (arg->type == TEP_PRINT_FLAGS && flags && reads_field(arg->flags.field, field))
			return arg;
		if (arg->type == TEP_PRINT_SYMBOL && !flags &&
		    reads_field(arg->symbol.field, field))
			return arg;
		if (arg->type == TEP_PRINT_OP)
			hit = find_print_arg(arg->op.left, field, flags)
				      ?: find_print_arg(arg->op.right, field, flags);
		else if (arg->type == TEP_PRINT_FUNC)
			hit = find_print_arg(arg->func.args, field, flags);
		if (hit)
			return hit;
	}
	return NULL;
}

const void *catalog__print_arg(struct catalog *c, const char *field, bool flags)
{
	for (int i = 0; i < c->nr_events; i++) {
		const struct tep_event *tev = c->events[i].tep_event;
		const struct tep_print_arg *arg;

		if (tev && (arg = find_print_arg(tev->print_fmt.args, field, flags)))
			return arg;
	}
	return NULL;
}
