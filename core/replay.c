/*
 * core/replay.c - a session fed from a capture (perf-sql -r FILE) instead of perf events.
 *
 * HOW IT WORKS
 * (1) session__new_replay() reads the capture's headers in a first pass: META gives the CPUs,
 *     TABLE blocks become catalog entries (tracepoint fields from the recorded format text,
 *     checked: core/field.h), COMMS (written last) the task names; the other blocks' frames
 *     are stepped over unread. The first pass also finds where a cut file's whole blocks end.
 * (2) Tables and columns are planned exactly as live; then session__run_replay() streams the
 *     capture a second time, block by block: each RECORDS block of a table read joins its
 *     window store (adopted, not copied), each WINDOW block adds received/lost. With -i, one
 *     result per recorded window, whose blocks are freed after it; without, one result for
 *     the whole capture. Memory is one window's rows, bounded by --max-memory either way.
 * (3) Rows past --max-memory are not kept: they are counted per table and CPU as lost (and not
 *     received) in the window they belong to, and the front end says so, as live.
 * (4) A signal (session_stop) ends the stream between two blocks; the rows read so far make
 *     the last result, as a live run's last window.
 * (5) Nothing here needs privileges: golden tests run on captures as any user. What a capture
 *     names is data: names must be printable, formats are checked before libtraceevent reads
 *     them, files it names are opened by the symbols layer only if they are regular files.
 * (6) A table whose TABLE block says its rows carry cgroup ids (CAP_TABLE_CGROUP) has rows
 *     each 8 bytes longer, checked so (core/window.c); CGROUPS names the ids, this machine's
 *     hierarchy is never read.
 * (7) The second pass reads blocks ahead and decompresses them on every CPU (core/capture.c
 *     (6)), an eighth of --max-memory (at most 8 MiB) at a time and never past a window's end;
 *     a query that reads no table (select 1, counters only) decompresses no RECORDS block.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "core/cgroup.h"
#include "core/record.h"
#include "core/replay.h"
#include "core/target.h"
#include "core/tracefs.h"

#define FIRST_PASS                                                                                 \
	(1u << CAP_META | 1u << CAP_TABLE | 1u << CAP_COMMS | 1u << CAP_FACTS | 1u << CAP_CGROUPS)
#define SECOND_PASS (1u << CAP_RECORDS | 1u << CAP_WINDOW | 1u << CAP_MAPS | 1u << CAP_SYMS)

static void release_held(struct replay *r)
{
	for (size_t i = 0; i < r->nr_held; i++)
		free(r->held[i]);
	r->nr_held = 0;
}

void replay__free(void *r_)
{
	struct replay *r = r_;

	if (!r)
		return;
	release_held(r);
	free(r->held);
	capture__free(r->cr);
	for (uint32_t i = 0; i < r->nr_names; i++)
		free(r->names[i]);
	free(r->names);
	free(r->meta);
	free(r->facts);
	free(r->path);
	free(r);
}

/* META: the recorded CPUs, stream by stream ("cpu_list=0,1,...") */
static int read_meta(struct session *s, struct replay *r, const char *text, size_t len,
		     struct err *e)
{
	const char *p;
	int *cpus = NULL, nr = 0, ret;

	free(r->meta);
	r->meta = strndup(text, len);
	if (!r->meta)
		return err_set(e, -ENOMEM, "out of memory");
	/* ts() shows the recording machine's wall clock (older captures: this machine's) */
	if ((p = strstr(r->meta, "\nclock_offset_ns=")))
		s->clock_offset_ns = strtoll(p + 17, NULL, 10);
	p = strstr(r->meta, "\ncpu_list=");
	for (p = p ? p + 10 : ""; *p && *p != '\n';) {
		int *n = realloc(cpus, (size_t)(nr + 1) * sizeof(*cpus));

		if (!n) {
			free(cpus);
			return err_set(e, -ENOMEM, "out of memory");
		}
		cpus = n;
		cpus[nr++] = atoi(p);
		p += strcspn(p, ",\n");
		p += *p == ',';
	}
	ret = nr ? target__map_cpus(s, cpus, nr, e) : 0;
	free(cpus);
	if (ret) {
		char why[sizeof(e->msg)];

		snprintf(why, sizeof(why), "%s", e->msg);
		return err_set(e, ret, "%s: bad cpu_list: %s", r->path, why);
	}
	return 0;
}

/* a table's system or event name: printable ASCII, no blank (it goes into error lines) */
static bool plain_name(const char *p)
{
	for (; *p; p++)
		if (*p <= ' ' || *p >= 0x7f)
			return false;
	return true;
}

static int add_name(struct replay *r, uint32_t idx, const char *sys, const char *name,
		    struct err *e)
{
	char **n;

	if (idx >= r->nr_names) {
		n = realloc(r->names, (idx + 1) * sizeof(*n));
		if (!n)
			return err_set(e, -ENOMEM, "out of memory");
		memset(n + r->nr_names, 0, (idx + 1 - r->nr_names) * sizeof(*n));
		r->names = n;
		r->nr_names = idx + 1;
	}
	free(r->names[idx]);
	if (asprintf(&r->names[idx], "%s:%s", sys, name) < 0) {
		r->names[idx] = NULL;
		return err_set(e, -ENOMEM, "out of memory");
	}
	return 0;
}

static int read_table(struct session *s, struct replay *r, const uint8_t *b, size_t len,
		      struct err *e)
{
	const char *sys, *name, *fmt;
	struct tp_event *ev;
	uint32_t hdr[2], flags;

	if (len < 10 || !memchr(b + 8, 0, len - 8))
		return err_set(e, -EINVAL, "%s: bad table block", r->path);
	memcpy(hdr, b, 8);
	flags = hdr[1] & ~CAP_KIND_MASK;
	hdr[1] &= CAP_KIND_MASK;
	sys = (const char *)b + 8;
	name = sys + strlen(sys) + 1;
	if ((size_t)(name - (const char *)b) >= len ||
	    !memchr(name, 0, len - (size_t)(name - (const char *)b)) || hdr[1] > EV_RAW ||
	    hdr[0] > 4096 || (flags & ~CAP_TABLE_CGROUP))
		return err_set(e, -EINVAL, "%s: bad table block", r->path);
	if (!*sys || !*name || !plain_name(sys) || !plain_name(name))
		return err_set(e, -EINVAL,
			       "%s: bad table block: table %u's name is not printable text",
			       r->path, hdr[0]);
	fmt = name + strlen(name) + 1;
	ev = catalog__add(s->cat, sys, name, (enum event_kind)hdr[1], e);
	if (!ev)
		return e->code;
	ev->cgroup_rows = flags & CAP_TABLE_CGROUP;
	if (hdr[1] == EV_TRACEPOINT) {
		ev->parsed = false;
		if (catalog__parse_text(s->cat, ev, fmt, len - (size_t)(fmt - (const char *)b),
					e)) {
			char why[sizeof(e->msg)];

			snprintf(why, sizeof(why), "%s", e->msg);
			return err_set(e, e->code, "%s: %s", r->path, why);
		}
	}
	return add_name(r, hdr[0], sys, name, e);
}

static void read_comms(struct session *s, const uint8_t *b, size_t len)
{
	for (size_t off = 0; off + 32 <= len; off += 32) {
		uint32_t tid;
		uint64_t since;
		char comm[17] = { 0 };

		memcpy(&tid, b + off, 4);
		memcpy(&since, b + off + 8, 8);
		memcpy(comm, b + off + 16, 16);
		comm_map__set(s->comms, tid, since, comm);
	}
}

/* CAP_CGROUPS (core/record.c): id -> path; a path must be printable text, a short or lying
 * entry ends the block */
static int read_cgroups(struct session *s, const uint8_t *b, size_t len, struct err *e)
{
	char path[4096];

	if (!s->cgroups && !(s->cgroups = cgroup_map__new_offline()))
		return err_set(e, -ENOMEM, "out of memory");
	for (size_t off = 0; off + 16 <= len;) {
		uint64_t id;
		uint32_t plen;

		memcpy(&id, b + off, 8);
		memcpy(&plen, b + off + 8, 4);
		if (!plen || plen >= sizeof(path) || plen > len - off - 16)
			break;
		memcpy(path, b + off + 16, plen);
		path[plen] = '\0';
		for (uint32_t i = 0; i < plen; i++)
			if ((unsigned char)path[i] < ' ' || path[i] == 0x7f)
				path[i] = '?';
		if (cgroup_map__set(s->cgroups, id, path) == -ENOMEM)
			return err_set(e, -ENOMEM, "out of memory");
		off += 16 + plen;
	}
	return 0;
}

/* a file cut short: the line the front end prints ("" for a whole file) */
static void cut_note(struct replay *r)
{
	uint64_t size, at = capture__cut_at(r->cr, &size);

	r->note[0] = '\0';
	if (at)
		snprintf(r->note, sizeof(r->note),
			 "%s: cut short: read up to its last whole block (%llu of its %llu bytes; "
			 "the recording was killed or its disk filled)",
			 r->path, (unsigned long long)at, (unsigned long long)size);
}

int replay__block(struct session *s, uint32_t type, const void *data, size_t len, struct err *e)
{
	struct replay *r = s->replay;
	int ret = 0;

	if (!r || (!r->path && !(r->path = strdup("capture"))))
		return err_set(e, -ENOMEM, "out of memory");
	if (type == CAP_META)
		ret = read_meta(s, r, data, len, e);
	else if (type == CAP_TABLE)
		ret = read_table(s, r, data, len, e);
	else if (type == CAP_COMMS)
		read_comms(s, data, len);
	else if (type == CAP_CGROUPS)
		ret = read_cgroups(s, data, len, e);
	else if (type == CAP_FACTS && !r->facts && !(r->facts = strndup(data, len)))
		ret = err_set(e, -ENOMEM, "out of memory");
	return ret;
}

/* (1): the first pass; the reader stays open for the second */
static int load(struct session *s, struct replay *r, const char *path, struct err *e)
{
	const void *data;
	uint32_t type;
	size_t len;
	int ret, cut;

	if (!(r->path = strdup(path)))
		return err_set(e, -ENOMEM, "out of memory");
	if (!(r->cr = capture__open(path, e)))
		return e->code;
	while ((ret = capture__next_of(r->cr, FIRST_PASS, &type, &data, &len, &cut, e)) == 1)
		if ((ret = replay__block(s, type, data, len, e)) < 0)
			break;
	catalog__resort(s->cat);
	cut_note(r);
	return ret < 0 ? ret : 0;
}

const char *replay__note(const struct session *s)
{
	const struct replay *r = s->replay;

	return r && r->note[0] ? r->note : NULL;
}

struct session *session__new_offline(const struct session_opts *opts, struct err *e)
{
	struct session *s = calloc(1, sizeof(*s));
	struct replay *r = calloc(1, sizeof(*r));

	if (!s || !r) {
		free(s);
		free(r);
		err_set(e, -ENOMEM, "out of memory");
		return NULL;
	}
	s->opts = *opts;
	if (s->opts.freq <= 0) /* as session__new: what a plan of a sampled table reads */
		s->opts.freq = 99;
	s->wl.go_fd = s->wl.err_fd = -1;
	s->budget = s->opts.max_memory ? s->opts.max_memory : (size_t)256 << 20;
	s->replay = r;
	s->replay_free = replay__free;
	s->cat = catalog__new_offline(e);
	s->comms = comm_map__new();
	if (!s->cat || !s->comms) {
		err_set(e, -ENOMEM, "out of memory");
		goto fail;
	}
	comm_map__set_offline(s->comms);
	if (target__map_cpus(s, (const int[]){ 0 }, 1, e))
		goto fail;
	return s;
fail:
	session__close(s);
	return NULL;
}

struct session *session__new_replay(const struct session_opts *opts, const char *path,
				    struct err *e)
{
	struct session *s = session__new_offline(opts, e);

	if (s && load(s, s->replay, path, e)) {
		session__close(s);
		return NULL;
	}
	return s;
}

const char *replay__facts(const struct session *s)
{
	const struct replay *r = s->replay;

	return r ? r->facts : NULL;
}

int session__machine_catalog(struct session *s, struct err *e)
{
	struct catalog *cat;
	char tracefs[256];

	if (tracefs__find(tracefs, sizeof(tracefs), e) || !(cat = catalog__new(tracefs, e)))
		return e->code ? e->code : -ENOMEM;
	catalog__free(s->cat);
	s->cat = cat;
	return 0;
}

#define SWAP(a, b)                                                                                 \
	do {                                                                                       \
		__typeof__(a) tmp_ = (a);                                                          \
		(a) = (b);                                                                         \
		(b) = tmp_;                                                                        \
	} while (0)

/* all or nothing: the capture is read into a session of its own, then what load() filled
 * (catalog, task names, blocks, CPUs) changes places with s's empty ones */
int session__load_replay(struct session *s, const char *path, struct err *e)
{
	struct replay *r = s->replay;
	struct session *t;

	if (!r || s->nr_src || r->cr)
		return err_set(e, -EBUSY, "%s: the session already holds a capture", path);
	t = session__new_replay(&s->opts, path, e);
	if (!t)
		return e->code ? e->code : -ENOMEM;
	SWAP(s->cat, t->cat);
	SWAP(s->comms, t->comms);
	SWAP(s->cgroups, t->cgroups);
	SWAP(s->replay, t->replay);
	SWAP(s->cpu_num, t->cpu_num);
	SWAP(s->cpu_idx, t->cpu_idx);
	SWAP(s->nr_cpus, t->nr_cpus);
	SWAP(s->nr_cpu_ids, t->nr_cpu_ids);
	SWAP(s->clock_offset_ns, t->clock_offset_ns);
	session__close(t);
	return 0;
}

static struct source *source_of(struct session *s, struct replay *r, uint32_t idx)
{
	if (idx >= r->nr_names || !r->names[idx])
		return NULL;
	for (int i = 0; i < s->nr_src; i++)
		if (!s->src[i]->counter && !strcmp(s->src[i]->ev->full, r->names[idx]))
			return s->src[i];
	return NULL;
}

static void apply_window(struct session *s, struct replay *r, const uint8_t *b, size_t len,
			 bool first)
{
	uint32_t nr;

	if (len < 12)
		return;
	if (first)
		memcpy(&s->window_start_ns, b, 8);
	memcpy(&nr, b + 8, 4);
	for (size_t k = 0; k < nr && 12 + (k + 1) * 24 <= len; k++) {
		const uint8_t *ent = b + 12 + k * 24;
		uint32_t ids[2];
		uint64_t recv, lost;
		struct source *src;

		memcpy(ids, ent, 8);
		memcpy(&recv, ent + 8, 8);
		memcpy(&lost, ent + 16, 8);
		src = source_of(s, r, ids[0]);
		if (src && ids[1] < (uint32_t)s->nr_cpus) {
			src->received[ids[1]] += recv;
			src->lost[ids[1]] += lost;
		}
	}
}

/* CAP_MAPS entries (core/record.c) to the symbols layer, in order; a short entry ends them */
static void apply_maps(struct session *s, const uint8_t *b, size_t len)
{
	char path[4096];

	for (size_t off = 0; s->stacks && off + 32 <= len;) {
		uint32_t pid, plen;
		uint64_t start, end, pgoff;

		memcpy(&pid, b + off, 4);
		memcpy(&plen, b + off + 4, 4);
		memcpy(&start, b + off + 8, 8);
		memcpy(&end, b + off + 16, 8);
		memcpy(&pgoff, b + off + 24, 8);
		if (plen >= sizeof(path) || plen > len - off - 32 || end < start)
			return;
		memcpy(path, b + off + 32, plen);
		path[plen] = '\0';
		s->stacks->mmap(s->stack_ctx, pid, start, end - start, pgoff, plen ? path : NULL);
		off += 32 + plen;
	}
}

/* (3): a RECORDS block's rows join their table's store, adopted while --max-memory lasts */
static int add_rows(struct session *s, struct replay *r, const uint8_t *b, size_t len,
		    struct err *e)
{
	struct source *src;
	uint32_t hdr[2];
	uint64_t before;
	int ret;

	if (len < 8)
		return 0;
	memcpy(hdr, b, 8);
	if (!(src = source_of(s, r, hdr[0])))
		return 0; /* a table the query does not read */
	if (r->nr_held == r->cap_held) {
		size_t ncap = r->cap_held ? r->cap_held * 2 : 64;
		void **n = realloc(r->held, ncap * sizeof(*n));

		if (!n)
			return err_set(e, -ENOMEM, "out of memory");
		r->held = n;
		r->cap_held = ncap;
	}
	before = src->win->nr_dropped;
	src->win->cgroup = src->ev->cgroup_rows; /* (6): checked against every row's size */
	ret = hdr[1] < (uint32_t)s->nr_cpus
		      ? window__adopt(src->win, (int)hdr[1], (uint8_t *)b + 8, len - 8)
		      : -EINVAL;
	if (ret < 0)
		return err_set(e, ret, "%s: bad rows of %s (CPU index %u)", r->path, src->ev->full,
			       hdr[1]);
	if (ret == 1) /* the store points into the block: kept until the window is cleared */
		r->held[r->nr_held++] = capture__take(r->cr);
	src->dropped[hdr[1]] += src->win->nr_dropped - before;
	return 0;
}

/* the window's counts as a live window's end leaves them: rows not kept are lost */
static void account(struct session *s)
{
	for (int i = 0; i < s->nr_src; i++) {
		struct source *src = s->src[i];

		for (int c = 0; c < s->nr_cpus; c++) {
			uint64_t d = src->dropped[c];

			src->received[c] = src->received[c] > d ? src->received[c] - d : 0;
			src->lost[c] += d;
			src->total_received += src->received[c];
			src->total_lost += src->lost[c];
		}
	}
}

/* -i: a recorded window ends; its rows go with it */
static int end_window(struct session *s, struct replay *r, window_fn on_window, void *ctx)
{
	int ret;

	account(s);
	ret = on_window(ctx, s);
	session__clear_window(s);
	release_held(r);
	return ret;
}

/* (2): RECORDS blocks are decompressed only when the query reads a table */
static uint32_t want_of(const struct session *s)
{
	for (int i = 0; i < s->nr_src; i++)
		if (!s->src[i]->counter)
			return SECOND_PASS;
	return SECOND_PASS & ~(1u << CAP_RECORDS);
}

/* (7): the blocks ahead decompressed on every CPU, an eighth of --max-memory (<= 8 MiB) at a
 * time, within a window */
static int read_ahead(const struct session *s, struct replay *r)
{
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	size_t bytes = s->budget / 8; /* before any row: all of --max-memory */

	return capture__read_ahead(r->cr, cpus > 1 ? (unsigned)cpus : 1,
				   bytes < (8u << 20) ? bytes : 8u << 20);
}

/* (2): the second pass, block by block */
int session__run_replay(struct session *s, window_fn on_window, void *ctx, struct err *e)
{
	struct replay *r = s->replay;
	uint64_t next_tick = 0;
	bool first = true;
	const void *data;
	uint32_t type, want;
	size_t len;
	int ret = 0, cut, failed = 0;

	capture__rewind(r->cr);
	if ((ret = read_ahead(s, r)) < 0)
		return err_set(e, ret, "out of memory");
	want = want_of(s);
	while (!session_stop && !failed &&
	       (ret = capture__next_of(r->cr, want, &type, &data, &len, &cut, e)) == 1) {
		ret = 0;
		if (s->opts.tick && now_ns(CLOCK_MONOTONIC) >= next_tick) {
			session__tick(s);
			next_tick = now_ns(CLOCK_MONOTONIC) + SESSION_TICK_MS * 1000000ull;
		}
		if (type == CAP_MAPS)
			apply_maps(s, data, len);
		else if (type == CAP_SYMS && s->stacks)
			s->stacks->add_syms(s->stack_ctx, data, len);
		else if (type == CAP_RECORDS && data) /* none when no table is read (7) */
			ret = add_rows(s, r, data, len, e);
		else if (type == CAP_WINDOW) {
			apply_window(s, r, data, len, first);
			first = false;
			if (s->opts.interval_ms) {
				failed = end_window(s, r, on_window, ctx);
				first = true;
			}
		}
		if (ret < 0)
			return ret;
	}
	if (ret < 0)
		return ret; /* a corrupt block: e says where */
	/* the last result keeps its rows (perf_sql_open() reads them after this returns) */
	if (!failed && (!s->opts.interval_ms || !first)) {
		account(s);
		failed = on_window(ctx, s);
	}
	return failed ? err_set(e, failed < 0 ? failed : -EIO, "query failed") : 0;
}
