/*
 * core/window.c - the window store (see core/window.h).
 *
 * HOW IT WORKS
 * (1) Rows are appended to per-stream chunks of 256 KiB (bigger for a bigger row); a row is
 *     56 bytes plus the raw payload, so a 1,000,000-event sched_switch window is ~120 MB.
 * (2) Within a stream rows arrive in ring order, which is time order on one CPU, so a scan
 *     is a merge of nr_streams sorted lists (a linear pick: there are few CPUs).
 * (3) The byte budget is shared by every store of a session (--max-memory): past it, rows are
 *     refused and counted, never silently lost.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include "core/window.h"

#define CHUNK_SIZE (256u << 10)

struct wchunk {
	struct wchunk *next;
	size_t used, cap;
	uint8_t *data; /* inline[] , or rows owned by someone else (window__adopt) */
	bool external;
	_Alignas(8) uint8_t inline_data[]; /* rows are read as u64s: keep them aligned */
};

struct window *window__new(int nr_streams, size_t *budget)
{
	struct window *w = calloc(1, sizeof(*w));

	if (!w || nr_streams < 1)
		goto fail;
	w->streams = calloc((size_t)nr_streams, sizeof(*w->streams));
	if (!w->streams)
		goto fail;
	w->nr_streams = nr_streams;
	w->budget = budget;
	return w;
fail:
	free(w);
	return NULL;
}

static void free_chunks(struct wchunk *c)
{
	while (c) {
		struct wchunk *next = c->next;

		free(c);
		c = next;
	}
}

void window__free(struct window *w)
{
	if (!w)
		return;
	window__clear(w);
	for (int i = 0; i < w->nr_streams; i++)
		free_chunks(w->streams[i].head);
	free(w->streams);
	free(w);
}

static struct wchunk *chunk_for(struct wstream *st, size_t need)
{
	struct wchunk *c = st->tail;
	size_t cap = need > CHUNK_SIZE ? need : CHUNK_SIZE;

	if (c && !c->external && c->cap - c->used >= need)
		return c;
	/* a cleared store keeps its first chunk: reuse it before allocating */
	if (c && !c->external && c == st->head && c->used == 0 && c->cap >= need)
		return c;
	c = malloc(sizeof(*c) + cap);
	if (!c)
		return NULL;
	c->next = NULL;
	c->used = 0;
	c->cap = cap;
	c->data = c->inline_data;
	c->external = false;
	if (st->tail)
		st->tail->next = c;
	else
		st->head = c;
	st->tail = c;
	return c;
}

int window__append(struct window *w, int stream, const struct sample *s, int keep_stack)
{
	size_t raw = (s->raw_size + 7u) & ~7u;
	size_t nr_stack = keep_stack ? s->nr_stack : 0;
	size_t nr_regs = s->regs ? (size_t)s->nr_regs : 0;
	size_t need = sizeof(struct wrow) + raw + nr_stack * 8 + nr_regs * 8 + (w->cgroup ? 8 : 0);
	struct wchunk *c;
	struct wrow *r;

	if (stream < 0 || stream >= w->nr_streams)
		return -EINVAL;
	if (w->budget) {
		if (*w->budget < need) {
			w->nr_dropped++;
			return -ENOSPC;
		}
		*w->budget -= need;
	}
	c = chunk_for(&w->streams[stream], need);
	if (!c)
		return -ENOMEM;
	r = (struct wrow *)(c->data + c->used);
	r->time = s->time;
	r->period = s->period;
	r->ip = s->ip;
	r->addr = s->addr;
	r->pid = s->pid;
	r->tid = s->tid;
	r->cpu = s->cpu;
	r->raw_size = s->raw_size;
	r->nr_stack = (uint32_t)nr_stack;
	r->size = (uint32_t)need;
	if (s->raw_size)
		memcpy(r->data, s->raw, s->raw_size);
	if (nr_stack)
		memcpy(r->data + raw, s->stack, nr_stack * 8);
	r->regs_off_nr = nr_regs;
	if (nr_regs)
		memcpy(r->data + raw + nr_stack * 8, s->regs, nr_regs * 8);
	if (w->cgroup)
		memcpy((uint8_t *)r + need - 8, &s->cgroup, 8);
	c->used += need;
	w->nr_rows++;
	w->bytes += need;
	return 0;
}

void window__clear(struct window *w)
{
	for (int i = 0; i < w->nr_streams; i++) {
		struct wstream *st = &w->streams[i];

		if (!st->head)
			continue;
		free_chunks(st->head->next);
		st->head->next = NULL;
		st->head->used = 0;
		st->tail = st->head;
		if (st->head->external) { /* adopted rows are not ours to reuse */
			free(st->head);
			st->head = st->tail = NULL;
		}
	}
	if (w->budget)
		*w->budget += w->bytes;
	w->nr_rows = 0;
	w->bytes = 0;
}

int wscan__init(struct wscan *sc, struct window *w)
{
	sc->w = w;
	sc->pos = calloc(w->nr_streams > 0 ? (size_t)w->nr_streams : 1, sizeof(*sc->pos));
	if (!sc->pos)
		return -ENOMEM;
	for (int i = 0; i < w->nr_streams; i++)
		sc->pos[i].chunk = w->streams[i].head;
	return 0;
}

void wscan__done(struct wscan *sc)
{
	free(sc->pos);
	sc->pos = NULL;
}

static const struct wrow *peek(struct wpos *p)
{
	while (p->chunk && p->off >= p->chunk->used) {
		p->chunk = p->chunk->next;
		p->off = 0;
	}
	return p->chunk ? (const struct wrow *)(p->chunk->data + p->off) : NULL;
}

const struct wrow *wscan__next(struct wscan *sc)
{
	const struct wrow *best = NULL, *r;
	int who = -1;

	if (!sc->pos) /* its init failed, or it is done */
		return NULL;
	for (int i = 0; i < sc->w->nr_streams; i++) {
		r = peek(&sc->pos[i]);
		if (r && (!best || r->time < best->time)) {
			best = r;
			who = i;
		}
	}
	if (best)
		sc->pos[who].off += best->size;
	return best;
}

int window__for_each_run(struct window *w, int stream,
			 int (*fn)(void *ctx, const void *rows, size_t len), void *ctx)
{
	int ret = 0;

	if (stream < 0 || stream >= w->nr_streams)
		return -EINVAL;
	for (struct wchunk *c = w->streams[stream].head; c && !ret; c = c->next)
		if (c->used)
			ret = fn(ctx, c->data, c->used);
	return ret;
}

/* every row's sizes agree with its header and the run (and the cgroup id after its body, in
 * a store of rows that carry one): 0 or -EINVAL */
static int check_rows(const uint8_t *p, const uint8_t *end, size_t trailer)
{
	while (p < end) {
		struct wrow hdr;
		size_t body;

		if ((size_t)(end - p) < sizeof(hdr))
			return -EINVAL;
		memcpy(&hdr, p, sizeof(hdr));
		body = ((hdr.raw_size + 7u) & ~7u) + (size_t)hdr.nr_stack * 8 + hdr.regs_off_nr * 8;
		if (hdr.size % 8 || hdr.size < sizeof(hdr) || hdr.size > (size_t)(end - p) ||
		    hdr.regs_off_nr > 64 || body + trailer != hdr.size - sizeof(hdr))
			return -EINVAL;
		p += hdr.size;
	}
	return 0;
}

int window__adopt(struct window *w, int stream, void *rows, size_t len)
{
	struct wstream *st;
	struct wchunk *c;
	size_t n = 0;

	if (stream < 0 || stream >= w->nr_streams || (uintptr_t)rows % 8 ||
	    check_rows(rows, (const uint8_t *)rows + len, w->cgroup ? 8 : 0))
		return -EINVAL;
	if (w->budget) {
		if (*w->budget < len) /* copies what fits, counts the rest as dropped */
			return window__append_rows(w, stream, rows, len);
		*w->budget -= len;
	}
	c = malloc(sizeof(*c));
	if (!c)
		return -ENOMEM;
	*c = (struct wchunk){ .used = len, .cap = len, .data = rows, .external = true };
	st = &w->streams[stream];
	if (st->tail)
		st->tail->next = c;
	else
		st->head = c;
	st->tail = c;
	for (const uint8_t *p = rows; p < (const uint8_t *)rows + len;
	     p += ((const struct wrow *)p)->size)
		n++;
	w->nr_rows += n;
	w->bytes += len;
	return 1;
}

int window__append_rows(struct window *w, int stream, const void *rows, size_t len)
{
	const uint8_t *p = rows, *end = p + len;

	if (stream < 0 || stream >= w->nr_streams || check_rows(p, end, w->cgroup ? 8 : 0))
		return -EINVAL;
	while (p < end) {
		struct wrow hdr;
		struct wchunk *c;

		memcpy(&hdr, p, sizeof(hdr));
		if (w->budget) {
			if (*w->budget < hdr.size) {
				w->nr_dropped++;
				p += hdr.size;
				continue;
			}
			*w->budget -= hdr.size;
		}
		c = chunk_for(&w->streams[stream], hdr.size);
		if (!c)
			return -ENOMEM;
		memcpy(c->data + c->used, p, hdr.size);
		c->used += hdr.size;
		w->nr_rows++;
		w->bytes += hdr.size;
		p += hdr.size;
	}
	return 0;
}
