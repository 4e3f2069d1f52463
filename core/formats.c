/*
 * core/formats.c - a session planned against the tracepoint formats of a kernel other than the
 * running one (perf-sql --explain --kernel-facts DIR: docs/bpf.md): its catalog is every
 * DIR/events/SYSTEM/EVENT/format, laid out as tracefs lays them out, and the generic software
 * events; its CPUs are 0 .. nr_cpu_ids - 1 of that kernel. Nothing is opened: the session
 * only plans (no capture is loaded: session__run has no rows to give).
 *
 * (1) Nothing here needs privileges or tracefs: the golden tests of tests/bpf/ run as nobody
 *     over the formats committed in tests/bpf/fixture/ (scripts/kernel-facts.sh writes them).
 * (2) A format that does not parse is an error naming its file; so is a DIR without events.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "core/record.h"
#include "core/target.h"
#include "core/tracefs.h"

/* DIR/events/sys/name/format into the catalog */
static int add_format(struct session *s, const char *dir, const char *sys, const char *name,
		      struct err *e)
{
	char path[1024], *text;
	struct tp_event *ev;
	size_t len;
	int ret;

	snprintf(path, sizeof(path), "%s/%s/%s/format", dir, sys, name);
	if (read_file(path, &text, &len))
		return 0; /* events/SYS/enable and the like: not an event */
	ev = catalog__add(s->cat, sys, name, EV_TRACEPOINT, e);
	ret = ev ? catalog__parse_text(s->cat, ev, text, len, e) : e->code;
	free(text);
	if (ret) {
		char why[sizeof(e->msg)];

		snprintf(why, sizeof(why), "%s", e->msg);
		return err_set(e, ret, "%s: %s", path, why);
	}
	return 0;
}

static int add_system(struct session *s, const char *dir, const char *sys, struct err *e)
{
	char path[1024];
	struct dirent *d;
	DIR *evs;
	int ret = 0;

	snprintf(path, sizeof(path), "%s/%s", dir, sys);
	if (!(evs = opendir(path)))
		return 0; /* events/header_page and the like: a file */
	while (!ret && (d = readdir(evs)))
		if (d->d_name[0] != '.')
			ret = add_format(s, dir, sys, d->d_name, e);
	closedir(evs);
	return ret;
}

struct session *session__new_formats(const struct session_opts *opts, const char *dir,
				     int nr_cpu_ids, struct err *e)
{
	struct session *s = session__new_offline(opts, e);
	int *cpus = calloc((size_t)(nr_cpu_ids > 0 ? nr_cpu_ids : 1), sizeof(int)), ret = 0;
	struct dirent *d;
	DIR *sys = NULL;

	if (!s || !cpus) {
		ret = s ? err_set(e, -ENOMEM, "out of memory") : e->code;
		goto out;
	}
	if (!(sys = opendir(dir))) {
		ret = err_set(e, -errno, "%s: %s", dir, strerror(errno));
		goto out;
	}
	while (!ret && (d = readdir(sys)))
		if (d->d_name[0] != '.')
			ret = add_system(s, dir, d->d_name, e);
	if (!ret && !catalog__nr_events(s->cat))
		ret = err_set(e, -ENOENT, "%s: no tracepoint formats (events/SYSTEM/EVENT/format)",
			      dir);
	if (!ret)
		ret = pmu__add_generic(s->cat, e);
	catalog__resort(s->cat);
	for (int i = 0; i < nr_cpu_ids; i++)
		cpus[i] = i;
	if (!ret && nr_cpu_ids > 0 && !(ret = target__map_cpus(s, cpus, nr_cpu_ids, e)))
		s->nr_cpu_ids = nr_cpu_ids; /* that kernel's, not this machine's */
out:
	if (sys)
		closedir(sys);
	free(cpus);
	if (ret) {
		session__close(s);
		return NULL;
	}
	return s;
}
