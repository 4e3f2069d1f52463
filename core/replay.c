/*
 * core/replay.c - a session fed from a capture (perf-sql -r FILE) instead of perf events.
 *
 * HOW IT WORKS
 * (1) session__new_replay() reads the whole capture: META gives the CPUs, TABLE blocks
 *     become catalog entries (tracepoint fields from the recorded format text), COMMS the
 *     task names; RECORDS and WINDOW blocks are kept, in order, for session__run().
 * (2) Tables and columns are planned exactly as live, then replay appends each RECORDS block
 *     to its table's window store and each WINDOW block sets received/lost: with -i, one
 *     result per recorded window; without, one result for the whole capture.
 * (3) Nothing here needs privileges: golden tests run on captures as any user.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "core/record.h"
#include "core/target.h"
#include "core/tracefs.h"

struct rblock {
	uint32_t type;
	uint8_t *data;
	size_t len;
};

struct replay {
	struct rblock *blocks;
	size_t nr, cap;
	char **names; /* capture table index -> "system:name" */
	uint32_t nr_names;
	char *meta;
	char *facts; /* CAP_FACTS: the recording kernel's facts (bpf/facts.h), or NULL */
	int truncated;
};

static int keep_block(struct replay *r, uint32_t type, void *data, size_t len)
{
	if (r->nr == r->cap) {
		size_t ncap = r->cap ? r->cap * 2 : 64;
		void *p = realloc(r->blocks, ncap * sizeof(*r->blocks));

		if (!p) {
			free(data);
			return -ENOMEM;
		}
		r->blocks = p;
		r->cap = ncap;
	}
	if (!data)
		return -ENOMEM;
	r->blocks[r->nr].data = data; /* taken from the reader: no copy */
	r->blocks[r->nr].type = type;
	r->blocks[r->nr++].len = len;
	return 0;
}

void replay__free(void *r_)
{
	struct replay *r = r_;

	if (!r)
		return;
	for (size_t i = 0; i < r->nr; i++)
		free(r->blocks[i].data);
	for (uint32_t i = 0; i < r->nr_names; i++)
		free(r->names[i]);
	free(r->names);
	free(r->blocks);
	free(r->meta);
	free(r->facts);
	free(r);
}

/* META: the recorded CPUs, stream by stream ("cpu_list=0,1,...") */
static int read_meta(struct session *s, struct replay *r, const char *text, size_t len,
		     struct err *e)
{
	const char *p;
	int *cpus = NULL, nr = 0, ret;

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
		return err_set(e, ret, "capture: bad cpu_list: %s", why);
	}
	return 0;
}

static int read_table(struct session *s, struct replay *r, const uint8_t *b, size_t len,
		      struct err *e)
{
	const char *sys, *name, *fmt;
	struct tp_event *ev;
	uint32_t hdr[2];
	char **n;

	if (len < 10 || !memchr(b + 8, 0, len - 8))
		return err_set(e, -EINVAL, "capture: bad table block");
	memcpy(hdr, b, 8);
	sys = (const char *)b + 8;
	name = sys + strlen(sys) + 1;
	if ((size_t)(name - (const char *)b) >= len ||
	    !memchr(name, 0, len - (size_t)(name - (const char *)b)) || hdr[1] > EV_RAW ||
	    hdr[0] > 4096)
		return err_set(e, -EINVAL, "capture: bad table block");
	fmt = name + strlen(name) + 1;
	ev = catalog__add(s->cat, sys, name, (enum event_kind)hdr[1], e);
	if (!ev)
		return e->code;
	if (hdr[1] == EV_TRACEPOINT) {
		ev->parsed = false;
		if (catalog__parse_text(s->cat, ev, fmt, len - (size_t)(fmt - (const char *)b), e))
			return e->code;
	}
	if (hdr[0] >= r->nr_names) {
		n = realloc(r->names, (hdr[0] + 1) * sizeof(*n));
		if (!n)
			return err_set(e, -ENOMEM, "out of memory");
		memset(n + r->nr_names, 0, (hdr[0] + 1 - r->nr_names) * sizeof(*n));
		r->names = n;
		r->nr_names = hdr[0] + 1;
	}
	free(r->names[hdr[0]]);
	if (asprintf(&r->names[hdr[0]], "%s:%s", sys, name) < 0)
		r->names[hdr[0]] = NULL;
	return 0;
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

static int load(struct session *s, struct replay *r, const char *path, struct err *e)
{
	struct capture_reader *cr = capture__open(path, e);
	const void *data;
	uint32_t type;
	size_t len;
	int ret;

	if (!cr)
		return e->code;
	while ((ret = capture__next(cr, &type, &data, &len, &r->truncated, e)) == 1) {
		if (type == CAP_META)
			ret = read_meta(s, r, data, len, e);
		else if (type == CAP_TABLE)
			ret = read_table(s, r, data, len, e);
		else if (type == CAP_COMMS)
			read_comms(s, data, len);
		else if (type == CAP_FACTS && !r->facts && !(r->facts = strndup(data, len)))
			ret = err_set(e, -ENOMEM, "out of memory");
		else if (type == CAP_RECORDS || type == CAP_WINDOW || type == CAP_MAPS ||
			 type == CAP_SYMS)
			ret = keep_block(r, type, capture__take(cr), len)
				      ? err_set(e, -ENOMEM, "out of memory")
				      : 0;
		if (ret < 0)
			break;
	}
	capture__free(cr);
	catalog__resort(s->cat);
	return ret < 0 ? ret : 0;
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

	if (!r || s->nr_src || r->nr || r->nr_names || r->meta)
		return err_set(e, -EBUSY, "%s: the session already holds a capture", path);
	t = session__new_replay(&s->opts, path, e);
	if (!t)
		return e->code ? e->code : -ENOMEM;
	SWAP(s->cat, t->cat);
	SWAP(s->comms, t->comms);
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

	for (size_t off = 0; s->on_mmap && off + 32 <= len;) {
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
		s->on_mmap(s->stack_ctx, pid, start, end - start, pgoff, plen ? path : NULL);
		off += 32 + plen;
	}
}

int session__run_replay(struct session *s, window_fn on_window, void *ctx, struct err *e)
{
	struct replay *r = s->replay;
	uint64_t next_tick = 0;
	bool first = true;
	int ret = 0;

	for (size_t i = 0; i < r->nr && !ret && !session_stop; i++) {
		struct rblock *b = &r->blocks[i];
		struct source *src;
		uint32_t hdr[2];

		if (s->opts.tick && now_ns(CLOCK_MONOTONIC) >= next_tick) {
			session__tick(s);
			next_tick = now_ns(CLOCK_MONOTONIC) + SESSION_TICK_MS * 1000000ull;
		}

		if (b->type == CAP_MAPS) {
			apply_maps(s, b->data, b->len);
			continue;
		}
		if (b->type == CAP_SYMS) {
			if (s->on_syms)
				s->on_syms(s->stack_ctx, b->data, b->len);
			continue;
		}
		if (b->type == CAP_RECORDS && b->len >= 8) {
			memcpy(hdr, b->data, 8);
			src = source_of(s, r, hdr[0]);
			/* the rows stay in the block's memory: the window borrows them */
			if (src &&
			    (ret = window__adopt(src->win, (int)hdr[1], b->data + 8, b->len - 8)))
				return err_set(e, ret, "capture: bad rows of %s", src->ev->full);
			continue;
		}
		if (b->type != CAP_WINDOW)
			continue;
		apply_window(s, r, b->data, b->len, first);
		first = false;
		if (s->opts.interval_ms) {
			ret = on_window(ctx, s);
			session__clear_window(s);
			first = true;
		}
	}
	if (!ret && (!s->opts.interval_ms || first == false))
		ret = on_window(ctx, s);
	return ret ? err_set(e, ret < 0 ? ret : -EIO, "query failed") : 0;
}

int replay__info(const char *path, FILE *out, struct err *e)
{
	struct session_opts opts = { 0 };
	struct session *s = session__new_replay(&opts, path, e);
	struct replay *r;

	if (!s)
		return e->code;
	r = s->replay;
	fprintf(out, "file        %s%s\n", path,
		r->truncated ? "  (cut short: read up to its "
			       "last whole block)"
			     : "");
	for (char *p = r->meta; p && *p;) {
		size_t n = strcspn(p, "\n");
		char *eq = memchr(p, '=', n);

		if (eq)
			fprintf(out, "%-11.*s %.*s\n", (int)(eq - p), p,
				(int)(n - (size_t)(eq - p) - 1), eq + 1);
		p += n + (p[n] == '\n');
	}
	if (r->facts)
		fprintf(out,
			"bpf facts   its kernel's (--explain lists the programs it would load)\n");
	for (uint32_t t = 0; t < r->nr_names; t++) {
		uint64_t recv = 0, lost = 0, lo = UINT64_MAX, hi = 0, windows = 0;

		for (size_t i = 0; i < r->nr; i++) {
			const uint8_t *b = r->blocks[i].data;
			uint32_t nr, ids[2];

			if (r->blocks[i].type != CAP_WINDOW || r->blocks[i].len < 12)
				continue;
			windows++;
			memcpy(&nr, b + 8, 4);
			for (size_t k = 0; k < nr && 12 + (k + 1) * 24 <= r->blocks[i].len; k++) {
				uint64_t v;

				memcpy(ids, b + 12 + k * 24, 8);
				if (ids[0] != t)
					continue;
				memcpy(&v, b + 12 + k * 24 + 8, 8);
				recv += v;
				memcpy(&v, b + 12 + k * 24 + 16, 8);
				lost += v;
			}
		}
		for (size_t i = 0; i < r->nr; i++) {
			const uint8_t *b = r->blocks[i].data, *p, *end = b + r->blocks[i].len;
			uint32_t hdr[2];

			if (r->blocks[i].type != CAP_RECORDS || r->blocks[i].len < 8)
				continue;
			memcpy(hdr, b, 8);
			for (p = b + 8; hdr[0] == t && p + sizeof(struct wrow) <= end;) {
				struct wrow w;

				memcpy(&w, p, sizeof(w));
				if (w.size < sizeof(w))
					break;
				lo = w.time < lo ? w.time : lo;
				hi = w.time > hi ? w.time : hi;
				p += w.size;
			}
		}
		fprintf(out, "table       %s: %llu events, %llu lost, %llu windows",
			r->names[t] ? r->names[t] : "?", (unsigned long long)recv,
			(unsigned long long)lost, (unsigned long long)windows);
		if (hi >= lo)
			fprintf(out, ", %.6f s of events", (double)(hi - lo) / 1e9);
		fputc('\n', out);
	}
	session__close(s);
	return 0;
}
