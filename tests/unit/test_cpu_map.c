/*
 * tests/unit/test_cpu_map.c - CPUs past 64 (issue 12): a fake CPU map of 128 CPUs, dense
 * ("0-127") and sparse ("0,64,127"), given to a session without opening any event. Each CPU
 * has its own window stream, a sample of CPU 127 lands in stream 127 (through the ring's
 * dispatch, as a kernel record would), a CPU outside the map lands in no stream, a scan merges
 * all 128 streams in time order, and a capture of 128 CPUs replays into 128 streams.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/perf_event.h>
#include <perf/cpumap.h>
#include "core/record.h"
#include "core/ring.h"
#include "core/target.h"
#include "t.h"

#define SAMPLE_TYPE                                                                                \
	(PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU |           \
	 PERF_SAMPLE_PERIOD)
#define FAKE_ID 7

static struct tp_event fake_ev = {
	.system = "software",
	.name = "fake",
	.full = "software:fake",
	.kind = EV_SOFTWARE,
	.parsed = true,
};

/* a session over cpu_list with one table (software:fake) whose event id is FAKE_ID */
static struct session *fake_session(const char *cpu_list, struct source **src_out)
{
	struct session *s = calloc(1, sizeof(*s));
	struct perf_cpu_map *map = perf_cpu_map__new(cpu_list);
	struct err e = { 0 };
	int ret;

	s->wl.go_fd = s->wl.err_fd = -1;
	s->budget = 1 << 20;
	ret = target__set_cpus(s, map, &e);
	perf_cpu_map__put(map);
	T(ret == 0, "cpus %s: %s", cpu_list, e.msg);
	*src_out = session__source(s, &fake_ev, &e);
	T(*src_out, "source: %s", e.msg);
	(*src_out)->sample_type = SAMPLE_TYPE;
	s->ids = calloc(1, sizeof(*s->ids));
	s->ids[0] = (struct id_map){ .id = FAKE_ID, .src = *src_out };
	s->nr_ids = 1;
	s->evsrc[s->nr_evsrc++] = &ring_source; /* its close frees the ids */
	return s;
}

/* a PERF_RECORD_SAMPLE as the kernel writes it for SAMPLE_TYPE, through the ring's dispatch */
static void deliver(struct session *s, uint32_t cpu, uint64_t time)
{
	uint64_t rec[6];
	struct perf_event_header h = { .type = PERF_RECORD_SAMPLE, .size = sizeof(rec) };
	uint32_t pid_tid[2] = { 100, 101 }, cpu_res[2] = { cpu, 0 };

	memcpy(&rec[0], &h, 8);
	rec[1] = FAKE_ID;
	memcpy(&rec[2], pid_tid, 8);
	rec[3] = time;
	memcpy(&rec[4], cpu_res, 8);
	rec[5] = 1;
	ring__handle(s, (const union perf_event *)rec);
}

static uint64_t total(const uint64_t *per_cpu, int nr)
{
	uint64_t n = 0;

	for (int i = 0; i < nr; i++)
		n += per_cpu[i];
	return n;
}

static void test_dense(void)
{
	struct source *src;
	struct session *s = fake_session("0-127", &src);
	const struct wrow *r;
	struct wscan sc;
	uint64_t last = 0;
	int n = 0, ok = 1;

	T(s->nr_cpus == 128 && s->nr_cpu_ids >= 128, "128 streams (got %d, ids %d)", s->nr_cpus,
	  s->nr_cpu_ids);
	for (int c = 0; c < 128; c++)
		ok &= s->cpu_num[c] == c && target__stream(s, (uint32_t)c) == c;
	T(ok, "cpu c <-> stream c for all 128");
	T(src->win->nr_streams == 128, "the table's window has 128 streams");
	deliver(s, 127, 5);
	T(src->received[127] == 1 && total(src->received, 128) == 1,
	  "cpu 127's sample in stream 127");
	T(src->win->streams[127].head && !src->win->streams[0].head, "stored in stream 127 only");
	for (int c = 0; c < 127; c++) /* later CPUs first: the scan must merge by time */
		deliver(s, (uint32_t)c, 1000 - (uint64_t)c);
	T(total(src->received, 128) == 128 && total(src->lost, 128) == 0, "128 samples, one a CPU");
	T(wscan__init(&sc, src->win) == 0, "scan of 128 streams");
	while ((r = wscan__next(&sc))) {
		ok &= r->time >= last;
		last = r->time;
		n++;
	}
	wscan__done(&sc);
	T(n == 128 && ok, "128 rows in time order (got %d)", n);
	session__close(s);
}

static void test_sparse(void)
{
	struct source *src;
	struct session *s = fake_session("0,64,127", &src);

	T(s->nr_cpus == 3 && s->nr_cpu_ids >= 128, "3 streams, cpu ids to 127");
	T(s->cpu_num[0] == 0 && s->cpu_num[1] == 64 && s->cpu_num[2] == 127, "stream -> cpu");
	T(target__stream(s, 0) == 0 && target__stream(s, 64) == 1 && target__stream(s, 127) == 2,
	  "cpu -> stream");
	T(target__stream(s, 5) == -1 && target__stream(s, 128) == -1 &&
		  target__stream(s, 1u << 31) == -1,
	  "cpus outside the map have no stream");
	deliver(s, 127, 1);
	deliver(s, 64, 2);
	T(src->received[2] == 1 && src->received[1] == 1 && src->received[0] == 0,
	  "cpu 127 -> stream 2, cpu 64 -> stream 1");
	deliver(s, 5, 3);
	T(s->nr_stray == 1 && total(src->received, 3) == 2 && total(src->dropped, 3) == 0,
	  "a sample of cpu 5 is in no stream (not stream 0), and counted");
	session__close(s);
}

static void test_bad_lists(void)
{
	struct source *src;
	struct session *s = fake_session("0-3", &src);
	struct err e = { 0 };

	T(target__map_cpus(s, (const int[]){ 1, 1 }, 2, &e) == -EINVAL &&
		  strstr(e.msg, "listed twice"),
	  "a repeated cpu: %s", e.msg);
	T(target__map_cpus(s, (const int[]){ -1 }, 1, &e) == -EINVAL, "a negative cpu");
	T(target__map_cpus(s, (const int[]){ CPU_NR_MAX }, 1, &e) == -EINVAL, "a huge cpu");
	T(target__map_cpus(s, NULL, 0, &e) == -EINVAL, "no cpu");
	T(s->nr_cpus == 4 && s->cpu_num[3] == 3, "a refused list leaves the map as it was");
	session__close(s);
}

static int replay_window(void *ctx, struct session *s)
{
	struct source *src = *(struct source **)ctx;
	const struct wrow *r;
	struct wscan sc;
	int n = 0;

	T(wscan__init(&sc, src->win) == 0, "scan");
	while ((r = wscan__next(&sc))) {
		T(r->cpu == 127 && r->time == 42, "the replayed row: cpu %u", r->cpu);
		n++;
	}
	wscan__done(&sc);
	T(n == 1 && src->received[127] == 1 && total(src->received, s->nr_cpus) == 1,
	  "the row and its count are in stream 127");
	return 0;
}

static void test_capture(void)
{
	char path[] = "/tmp/perf-sql-test-cpus-XXXXXX";
	struct session_opts opts = { 0 };
	struct source *src, *rsrc = NULL;
	struct session *s = fake_session("0-127", &src), *rs;
	struct capture_writer *w;
	struct err e = { 0 };
	int fd = mkstemp(path);

	T(fd >= 0, "temp file");
	close(fd);
	deliver(s, 127, 42);
	w = capture__create(path, &e);
	T(w && !record__begin(s, w, "test") && !record__window(s, w) && !capture__close(w, &e),
	  "capture of 128 cpus: %s", e.msg);
	session__close(s);
	rs = session__new_replay(&opts, path, &e);
	T(rs && rs->nr_cpus == 128 && rs->cpu_num[127] == 127, "replay: 128 cpus: %s", e.msg);
	if (rs)
		rsrc = session__source(rs, catalog__find(rs->cat, "software:fake"), &e);
	T(rsrc && rsrc->win->nr_streams == 128, "replayed table: 128 streams");
	if (rsrc)
		T(session__run(rs, replay_window, &rsrc, &e) == 0, "replay run: %s", e.msg);
	session__close(rs);
	unlink(path);
}

int main(void)
{
	RUN(test_dense);
	RUN(test_sparse);
	RUN(test_bad_lists);
	RUN(test_capture);
	return t_done("cpu_map");
}
