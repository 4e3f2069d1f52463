/*
 * vtab/pairs_match.c - pairs()' matcher (vtab/pairs.c (2), (3)): start rows wait in an open
 * addressing table by key, bounded at PAIRS_MAX_PENDING (the older half evicted, counted lost);
 * each window both tables' rows are merged in time order and every end row with a pending
 * start makes a pair.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include "bpf/user_str.h"
#include "core/field.h"
#include "symbols/stack.h"
#include "vtab/pairs_int.h"

void pairer__rows_free(struct pairer *p)
{
	for (size_t i = 0; i < p->nr_rows; i++) {
		cell_free(&p->rows[i].start_value);
		cell_free(&p->rows[i].end_value);
	}
	p->nr_rows = 0;
}

static bool read_spec(struct session *s, const struct spec *sp, const struct wrow *r,
		      struct cell *out)
{
	const uint8_t *bytes;
	const char *name;
	size_t len;

	out->type = SQLITE_INTEGER;
	switch (sp->kind) {
	case SPEC_TID: out->i = r->tid; return true;
	case SPEC_PID: out->i = r->pid; return true;
	case SPEC_CPU: out->i = r->cpu; return true;
	case SPEC_TIME: out->i = (int64_t)r->time; return true;
	case SPEC_COMM:
		name = session__comm(s, r->tid, r->time);
		out->type = name ? SQLITE_TEXT : SQLITE_NULL;
		snprintf(out->s, sizeof(out->s), "%s", name ? name : "");
		return true;
	case SPEC_FIELD:
		if (sp->f->kind == FIELD_INT)
			return field__int(sp->f, r, &out->i);
		if (!field__bytes(sp->f, r, &bytes, &len))
			return false;
		out->type = SQLITE_TEXT;
		snprintf(out->s, sizeof(out->s), "%.*s", (int)len, (const char *)bytes);
		return true;
	case SPEC_USTR:
		out->type = SQLITE_NULL;
		out->text = NULL;
		if (!(sp->src->user_str || s->replay) ||
		    !user_str__get(sp->src->ev, sp->ustr, wrow_raw(r), r->raw_size,
				   (const char **)&bytes, &len))
			return true;
		out->type = SQLITE_TEXT;
		if (len < sizeof(out->s))
			snprintf(out->s, sizeof(out->s), "%.*s", (int)len, (const char *)bytes);
		else if (!(out->text = strndup((const char *)bytes, len)))
			out->type = SQLITE_NULL;
		return true;
	case SPEC_STACK:
		out->text = stack_blob__new(r->pid, r->tid, session__comm(s, r->tid, r->time),
					    wrow_stack(r), r->nr_stack, &out->len);
		out->type = out->text ? SQLITE_BLOB : SQLITE_NULL;
		return true;
	default: out->type = SQLITE_NULL; return true;
	}
}

static uint32_t home_of(const struct pairer *p, int64_t key)
{
	return (uint32_t)(((uint64_t)key * 0x9e3779b97f4a7c15ull) >> 32) & (p->cap - 1);
}

static uint32_t slot_of(const struct pairer *p, int64_t key)
{
	uint32_t i = home_of(p, key);

	while (p->tab[i].used && p->tab[i].key != key)
		i = (i + 1) & (p->cap - 1);
	return i;
}

static void rehash(struct pairer *p, uint32_t ncap, uint64_t older_than)
{
	struct pending *old = p->tab;
	uint32_t ocap = p->cap;

	p->tab = calloc(ncap, sizeof(*p->tab));
	if (!p->tab) { /* keep the old table: nothing is lost but the growth */
		p->tab = old;
		return;
	}
	p->cap = ncap;
	p->used = 0;
	for (uint32_t i = 0; i < ocap; i++) {
		if (!old[i].used)
			continue;
		if (old[i].time < older_than) {
			pending__cells_free(&old[i]);
			session__extra_add(p->start->s, p->stat, 0, 1); /* evicted: lost */
			continue;
		}
		p->tab[slot_of(p, old[i].key)] = old[i];
		p->used++;
	}
	free(old);
}

/* Bounded: at PAIRS_MAX_PENDING, the older half (by start time) is evicted. */
static void make_room(struct pairer *p)
{
	uint64_t lo = UINT64_MAX, hi = 0;

	if ((p->used + 1) * 2 < p->cap)
		return;
	if (p->cap < PAIRS_MAX_PENDING * 2) {
		rehash(p, p->cap * 2, 0);
		return;
	}
	for (uint32_t i = 0; i < p->cap; i++)
		if (p->tab[i].used) {
			lo = p->tab[i].time < lo ? p->tab[i].time : lo;
			hi = p->tab[i].time > hi ? p->tab[i].time : hi;
		}
	rehash(p, p->cap, lo + (hi - lo) / 2 + 1);
}

static void remove_slot(struct pairer *p, uint32_t i)
{
	uint32_t j = i, mask = p->cap - 1;

	p->tab[i].used = false;
	p->used--;
	/* backward-shift deletion keeps every probe chain unbroken */
	for (;;) {
		uint32_t k;
		bool stays;

		j = (j + 1) & mask;
		if (!p->tab[j].used)
			return;
		k = home_of(p, p->tab[j].key);
		stays = i <= j ? (i < k && k <= j) : (i < k || k <= j);
		if (stays)
			continue;
		p->tab[i] = p->tab[j];
		p->tab[j].used = false;
		i = j;
	}
}

static void on_start(struct pairer *p, const struct wrow *r, uint64_t lost_mark)
{
	struct session *s = p->start->s;
	struct cell key;
	struct pending *pe;

	if (!read_spec(s, &p->start_key, r, &key))
		return;
	make_room(p);
	pe = &p->tab[slot_of(p, key.i)];
	if (!pe->used) {
		p->used++;
	} else { /* a newer start replaces it */
		pending__cells_free(pe);
		session__extra_pairs(s, p->stat, (const uint64_t[4]){ 1, 0, 0, 0 });
	}
	pe->used = true;
	pe->key = key.i;
	pe->time = r->time;
	pe->cpu = r->cpu;
	pe->pid = r->pid;
	pe->tid = r->tid;
	pe->lost_mark = lost_mark;
	pe->value.type = SQLITE_NULL;
	pe->value.text = NULL;
	if (p->start_col.kind != SPEC_NONE && !read_spec(s, &p->start_col, r, &pe->value))
		pe->value.type = SQLITE_NULL;
	pe->value2.type = SQLITE_NULL;
	pe->value2.text = NULL;
	if (p->pending && p->end_col.kind != SPEC_NONE &&
	    !read_spec(s, &p->end_col, r, &pe->value2))
		pe->value2.type = SQLITE_NULL;
}

static void on_end(struct pairer *p, const struct wrow *r, uint64_t lost_now)
{
	struct session *s = p->end->s;
	struct pair_row *row;
	struct cell key;
	uint32_t i;

	if (!read_spec(s, &p->end_key, r, &key))
		return;
	i = slot_of(p, key.i);
	if (!p->tab[i].used) {
		session__extra_pairs(s, p->stat, (const uint64_t[4]){ 0, 1, 0, 0 });
		return;
	}
	if (p->pending) { /* pending(): an ended start is no row */
		pending__cells_free(&p->tab[i]);
		remove_slot(p, i);
		session__extra_add(s, p->stat, 1, 0);
		return;
	}
	if (p->nr_rows == p->cap_rows) {
		size_t ncap = p->cap_rows ? p->cap_rows * 2 : 4096;
		void *n = realloc(p->rows, ncap * sizeof(*p->rows));

		if (!n)
			return;
		p->rows = n;
		p->cap_rows = ncap;
	}
	row = &p->rows[p->nr_rows++];
	row->key = key.i;
	row->start = p->tab[i].time;
	row->end = r->time;
	row->start_cpu = p->tab[i].cpu;
	row->end_cpu = r->cpu;
	row->start_pid = p->tab[i].pid;
	row->start_tid = p->tab[i].tid;
	row->end_tid = r->tid;
	row->lost = lost_now > p->tab[i].lost_mark;
	row->start_value = p->tab[i].value; /* its text moves to the row */
	p->tab[i].value.text = NULL;
	row->end_value.type = SQLITE_NULL;
	row->end_value.text = NULL;
	if (p->end_col.kind != SPEC_NONE && !read_spec(s, &p->end_col, r, &row->end_value))
		row->end_value.type = SQLITE_NULL;
	remove_slot(p, i);
	session__extra_add(s, p->stat, 1, 0);
}

static uint64_t window_lost(const struct source *src, int nr_cpus)
{
	uint64_t n = 0;

	for (int c = 0; c < nr_cpus; c++)
		n += src->lost[c];
	return n;
}

/* Once per window: merge both tables in time order, pairing as rows go by. 0 or -ENOMEM. */
int pairer__run(struct pairer *p)
{
	struct session *s = p->start->s;
	bool same = p->start == p->end;
	uint64_t now = p->start->total_lost + (same ? 0 : p->end->total_lost);
	uint64_t before = now - window_lost(p->start, s->nr_cpus) -
			  (same ? 0 : window_lost(p->end, s->nr_cpus));
	const struct wrow *a, *b;
	struct wscan sa, sb;

	pairer__rows_free(p);
	p->window = s->nr_windows;
	if (wscan__init(&sa, p->start->win) | wscan__init(&sb, p->end->win)) {
		wscan__done(&sa);
		wscan__done(&sb);
		return -ENOMEM;
	}
	a = wscan__next(&sa);
	b = same ? NULL : wscan__next(&sb);
	for (; same && a; a = wscan__next(&sa)) {
		p->last = a->time > p->last ? a->time : p->last;
		on_end(p, a, now);
		on_start(p, a, before);
	}
	while (a || b) {
		if (a && (!b || a->time <= b->time)) {
			p->last = a->time > p->last ? a->time : p->last;
			on_start(p, a, before);
			a = wscan__next(&sa);
		} else {
			p->last = b->time > p->last ? b->time : p->last;
			on_end(p, b, now);
			b = wscan__next(&sb);
		}
	}
	wscan__done(&sa);
	wscan__done(&sb);
	if (p->pending) { /* the rows' time: now, or a replay's last row; the rows carry the
			   * perf clock (local_clock, a few ms from CLOCK_MONOTONIC): never before
			   * the last row */
		p->now = s->replay ? p->last : now_ns(CLOCK_MONOTONIC);
		p->now = p->now > p->last ? p->now : p->last;
	}
	return 0;
}
