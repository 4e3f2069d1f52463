/*
 * tests/unit/test_cgroup.c - cgroup ids to paths (core/cgroup.c) and the rows that carry an id
 * (core/window.c): numbers refer to core/cgroup.c's HOW IT WORKS.
 */
#include <errno.h>
#include <string.h>
#include <sys/stat.h>
#include "core/cgroup.h"
#include "core/window.h"
#include "tests/unit/t.h"

static int is(const char *got, const char *want)
{
	return got && want ? !strcmp(got, want) : got == want;
}

/* (3) an offline map (a capture's) answers from what it was given, never from this machine */
static void test_offline(void)
{
	struct cgroup_map *m = cgroup_map__new_offline();

	T(m && !cgroup_map__root(m), "an offline map has no hierarchy");
	T(cgroup_map__set(m, 1, "/") == 0, "root set");
	T(cgroup_map__set(m, 5098, "system.slice/nginx.service") == 0, "path set");
	T(cgroup_map__set(m, 0, "x") == -EINVAL && cgroup_map__set(m, 7, NULL) == -EINVAL,
	  "id 0 and a NULL path are refused");
	T(is(cgroup_map__path(m, 5098), "system.slice/nginx.service"), "path of an id");
	T(is(cgroup_map__path(m, 5098), "system.slice/nginx.service"), "the same, cached");
	T(is(cgroup_map__path(m, 1), "/"), "the root");
	T(cgroup_map__path(m, 4242) == NULL && cgroup_map__path(m, 0) == NULL, "unknown ids");
	T(cgroup_map__set(m, 5098, "other") == 0 &&
		  is(cgroup_map__path(m, 5098), "system.slice/nginx.service"),
	  "a known path is kept");
	int bad = 0;

	for (uint64_t id = 100; id < 2100; id++) /* past the first table's size: it grows */
		bad += cgroup_map__set(m, id, id % 2 ? "odd" : "even") != 0;
	T(bad == 0, "2,000 ids set");
	T(is(cgroup_map__path(m, 1999), "odd") && is(cgroup_map__path(m, 2000), "even") &&
		  is(cgroup_map__path(m, 5098), "system.slice/nginx.service"),
	  "every id found after growing");
	cgroup_map__free(m);
	cgroup_map__free(NULL);
}

/* (1), (2): this machine's hierarchy, when it has one: the root's id is its inode */
static void test_live(void)
{
	struct cgroup_map *m = cgroup_map__new();
	struct stat st;

	T(m != NULL, "map made");
	if (m && cgroup_map__root(m) && !stat(cgroup_map__root(m), &st))
		T(is(cgroup_map__path(m, st.st_ino), "/"), "the root's id names '/'");
	T(m && cgroup_map__path(m, ~0ull) == NULL, "an id no cgroup has");
	cgroup_map__free(m);
}

static void test_normalize(void)
{
	char out[64];

	cgroup_path__normalize("/system.slice/nginx.service/", out, sizeof(out));
	T(is(out, "system.slice/nginx.service"), "slashes dropped: %s", out);
	cgroup_path__normalize("/", out, sizeof(out));
	T(is(out, "/"), "the root");
	cgroup_path__normalize("", out, sizeof(out));
	T(is(out, "/"), "empty is the root");
	cgroup_path__normalize("a/b", out, 3);
	T(is(out, "a/"), "cut to the buffer");
}

/* core/window.h: a store whose rows carry a cgroup id has it last; rows without it are refused */
static void test_rows(void)
{
	struct window *w = window__new(1, NULL), *plain = window__new(1, NULL);
	uint8_t raw[12] = { 1, 2, 3 };
	struct sample s = { .time = 5, .raw = raw, .raw_size = sizeof(raw), .cgroup = 5098 };
	const struct wrow *r = NULL;
	struct wscan sc;

	w->cgroup = true;
	T(window__append(w, 0, &s, 0) == 0 && window__append(plain, 0, &s, 0) == 0, "appended");
	T(wscan__init(&sc, w) == 0 && (r = wscan__next(&sc)) && wrow_cgroup(r) == 5098 &&
		  r->size == 64 + 16 + 8 && r->raw_size == 12,
	  "the id after the body");
	wscan__done(&sc);
	T(wscan__init(&sc, plain) == 0 && (r = wscan__next(&sc)), "plain row");
	T(r && window__append_rows(w, 0, r, r->size) == -EINVAL,
	  "a row without an id is refused where ids are carried");
	wscan__done(&sc);
	window__free(w);
	window__free(plain);
}

int main(void)
{
	RUN(test_offline);
	RUN(test_live);
	RUN(test_normalize);
	RUN(test_rows);
	return t_done("cgroup");
}
