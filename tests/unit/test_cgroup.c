/*
 * tests/unit/test_cgroup.c - cgroup ids to paths (core/cgroup.c), the rows that carry an id
 * (core/window.c), and captures that carry them (core/record.c (5), core/replay.c (6)),
 * crafted: numbers refer to core/cgroup.c's HOW IT WORKS.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "core/capture.h"
#include "core/cgroup.h"
#include "core/record.h"
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

/* a capture of one software table, crafted: its TABLE block's kind word, rows of 64 bytes and
 * a trailer of `trailer` bytes each (the id 5098, or whatever the bytes say), a CGROUPS block */
static int craft(const char *path, uint32_t kind, size_t trailer, const void *cg, size_t cg_len)
{
	static const char meta[] = "host=craft\nkernel=0\nmachine=x86_64\ncpus=1\nstart_ns=1\n"
				   "cpu_list=0\n";
	uint8_t table[8 + sizeof("crafted") + sizeof("clock")], rows[8 + 2 * 72] = { 0 };
	uint8_t win[12 + 24] = { 0 };
	uint32_t hdr[2] = { 0, kind }, nr = 1;
	uint64_t id = 5098, recv = 2;
	struct err e = { 0 };
	struct capture_writer *w = capture__create(path, &e);
	int ret;

	if (!w)
		return -1;
	memcpy(table, hdr, 8);
	memcpy(table + 8, "crafted", sizeof("crafted"));
	memcpy(table + 8 + sizeof("crafted"), "clock", sizeof("clock"));
	for (int k = 0; k < 2; k++) {
		struct wrow *r = (struct wrow *)(rows + 8 + (size_t)k * (64 + trailer));

		r->time = (uint64_t)k + 1;
		r->size = (uint32_t)(64 + trailer);
		if (trailer)
			memcpy((uint8_t *)r + 64, &id, 8);
	}
	memcpy(win + 8, &nr, 4);
	memcpy(win + 20, &recv, 8);
	ret = capture__write(w, CAP_META, meta, sizeof(meta) - 1) ||
	      capture__write(w, CAP_TABLE, table, sizeof(table)) ||
	      capture__write(w, CAP_RECORDS, rows, 8 + 2 * (64 + trailer)) ||
	      capture__write(w, CAP_WINDOW, win, sizeof(win)) ||
	      capture__write(w, CAP_CGROUPS, cg, cg_len);
	return capture__close(w, &e) || ret ? -1 : 0;
}

static int sum_ids(void *ctx, struct session *s)
{
	const struct wrow *r;
	struct wscan sc;

	if (!s->src[0]->win->cgroup)
		return 0; /* rows without an id */
	if (wscan__init(&sc, s->src[0]->win))
		return -1;
	while ((r = wscan__next(&sc)))
		*(uint64_t *)ctx += wrow_cgroup(r);
	wscan__done(&sc);
	return 0;
}

/* replays path; the paths of ids 5098 and 7 into got[2]; 0 or -errno, e set */
static int replay(const char *path, uint64_t *ids, char got[2][32], struct err *e)
{
	struct session_opts opts = { 0 };
	struct session *s = session__new_replay(&opts, path, e);
	int ret;

	if (!s)
		return e->code ? e->code : -1;
	if (!session__source(s, catalog__find(s->cat, "crafted:clock"), e)) {
		session__close(s);
		return -EINVAL;
	}
	ret = session__run_replay(s, sum_ids, ids, e);
	snprintf(got[0], 32, "%s", session__cgroup_path(s, 5098) ?: "(null)");
	snprintf(got[1], 32, "%s", session__cgroup_path(s, 7) ?: "(null)");
	session__close(s);
	return ret;
}

/* core/record.c (5), core/replay.c (6): the TABLE flag, the row trailer, the CGROUPS block */
static void test_capture(void)
{
	char path[] = "/tmp/perf-sql-cgroup-XXXXXX", got[2][32];
	uint8_t cg[16 + 3 + 16 + 4] = { 0 }, lie[16] = { 0 };
	uint64_t id = 5098, id2 = 7, ids = 0;
	uint32_t len = 3, len2 = 4000;
	struct err e = { 0 };
	int fd = mkstemp(path);

	T(fd >= 0, "mkstemp");
	close(fd);
	memcpy(cg, &id, 8); /* 5098 -> "a\nb" (a byte below 0x20 is read as '?'), 7: lying length */
	memcpy(cg + 8, &len, 4);
	memcpy(cg + 16, "a\nb", 3);
	memcpy(cg + 19, &id2, 8);
	memcpy(cg + 27, &len2, 4);
	T(craft(path, 1 | CAP_TABLE_CGROUP, 8, cg, sizeof(cg)) == 0, "write");
	T(replay(path, &ids, got, &e) == 0 && ids == 2 * 5098, "ids read from the rows: %s %llu",
	  e.msg, (unsigned long long)ids);
	T(!strcmp(got[0], "a?b") && !strcmp(got[1], "(null)"),
	  "CGROUPS: a path made printable, a lying entry ends the block: %s %s", got[0], got[1]);
	memset(&e, 0, sizeof(e));
	T(craft(path, 1 | CAP_TABLE_CGROUP, 0, lie, sizeof(lie)) == 0 &&
		  replay(path, &ids, got, &e) == -EINVAL &&
		  strstr(e.msg, "bad rows of crafted:clock"),
	  "rows without the id their table promises: one line: %s", e.msg);
	memset(&e, 0, sizeof(e));
	T(craft(path, 1 | 1u << 17, 0, lie, 0) == 0 && replay(path, &ids, got, &e) == -EINVAL &&
		  strstr(e.msg, "bad table block"),
	  "a flag not known: one line: %s", e.msg);
	memset(&e, 0, sizeof(e));
	T(craft(path, 1, 0, lie, 0) == 0 && replay(path, &ids, got, &e) == 0,
	  "an older capture (no flag, no trailer): %s", e.msg);
	unlink(path);
}

int main(void)
{
	RUN(test_offline);
	RUN(test_live);
	RUN(test_normalize);
	RUN(test_rows);
	RUN(test_capture);
	return t_done("cgroup");
}
