/*
 * render/pprof.c - collecting a query's rows as a pprof profile (see render/pprof.h); the encoding
 * is render/pprof_write.c.
 *
 * HOW IT WORKS: each row is turned into a sample at once, while the window's processes are
 * alive for the symbols layer: its stack's frames become locations, each distinct (mapping,
 * address) symbolized once (names, source lines, inlined functions), its other cells are kept
 * as they came. Whether a column is a sample type or a label is decided at the end, over every
 * value it took (render/pprof.h (2)); so a column NULL in the first window loses nothing.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "core/session.h"
#include "core/units.h"
#include "render/pprof_int.h"
#include "symbols/srcline.h"
#include "symbols/stack.h"
#include "symbols/symbols.h"

#define MAX_FRAMES 512
#define ANON_KEY (1ull << 63) /* | pid: a location outside any file mapping */

static int grow(void *arrp, size_t *cap, size_t want, size_t size)
{
	void **arr = arrp;
	size_t n = *cap ? *cap : 16;
	void *q;

	if (want <= *cap)
		return 0;
	while (n < want)
		n *= 2;
	if (!(q = realloc(*arr, n * size)))
		return -ENOMEM;
	*arr = q;
	*cap = n;
	return 0;
}

#define PUSH(p, name) grow(&(p)->name, &(p)->cap_##name, (p)->nr_##name + 1, sizeof(*(p)->name))

static uint64_t hash_bytes(uint64_t h, const void *s, size_t n)
{
	const unsigned char *c = s;

	for (size_t i = 0; i < n; i++)
		h = (h ^ c[i]) * 1099511628211ull;
	return h;
}

static uint64_t hash_u64s(const uint64_t *v, size_t n)
{
	return hash_bytes(1469598103934665603ull, v, n * sizeof(*v));
}

/* The slot of the entry of hash h that eq() accepts, or the empty slot where it goes. */
static struct pp_slot *idx_find(struct pp_idx *x, uint64_t h,
				bool (*eq)(const struct pprof *, uint32_t, const void *),
				const struct pprof *p, const void *key)
{
	size_t i;

	for (i = h & (x->cap - 1); x->slot[i].v; i = (i + 1) & (x->cap - 1))
		if (x->slot[i].h == h && eq(p, x->slot[i].v - 1, key))
			return &x->slot[i];
	return &x->slot[i];
}

/* Room for one more entry: kept at most half full. */
static int idx_reserve(struct pp_idx *x)
{
	struct pp_idx n;

	if ((x->nr + 1) * 2 <= x->cap)
		return 0;
	n.cap = x->cap ? x->cap * 2 : 64;
	n.nr = x->nr;
	if (!(n.slot = calloc(n.cap, sizeof(*n.slot))))
		return -ENOMEM;
	for (size_t k = 0; k < x->cap; k++) {
		size_t i = x->slot[k].h & (n.cap - 1);

		if (!x->slot[k].v)
			continue;
		while (n.slot[i].v)
			i = (i + 1) & (n.cap - 1);
		n.slot[i] = x->slot[k];
	}
	free(x->slot);
	*x = n;
	return 0;
}

static void idx_put(struct pp_idx *x, struct pp_slot *s, uint64_t h, size_t index)
{
	s->h = h;
	s->v = (uint32_t)index + 1;
	x->nr++;
}

static bool str_eq(const struct pprof *p, uint32_t i, const void *key)
{
	return !strcmp(p->strs[i], key);
}

int64_t pp_str(struct pprof *p, const char *s)
{
	uint64_t h = hash_bytes(1469598103934665603ull, s, strlen(s));
	struct pp_slot *slot;
	char *copy;

	if (idx_reserve(&p->str_idx))
		return -1;
	slot = idx_find(&p->str_idx, h, str_eq, p, s);
	if (slot->v)
		return slot->v - 1;
	if (PUSH(p, strs) || !(copy = strdup(s)))
		return -1;
	p->strs[p->nr_strs] = copy;
	idx_put(&p->str_idx, slot, h, p->nr_strs);
	return (int64_t)p->nr_strs++;
}

struct pprof *pprof__new(void)
{
	struct pprof *p = calloc(1, sizeof(*p));

	if (p && pp_str(p, "") != 0) {
		pprof__free(p);
		return NULL;
	}
	return p;
}

void pprof__free(struct pprof *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < p->nr_strs; i++)
		free(p->strs[i]);
	free(p->strs);
	free(p->cols);
	free(p->cells);
	free(p->samples);
	free(p->loc_ids);
	free(p->locs);
	free(p->lines);
	free(p->funcs);
	free(p->maps);
	free(p->str_idx.slot);
	free(p->col_idx.slot);
	free(p->loc_idx.slot);
	free(p->func_idx.slot);
	free(p->map_idx.slot);
	free(p);
}

void pprof__counts(const struct pprof *p, size_t *rows_out, size_t *samples_out)
{
	*rows_out = p->nr_rows;
	*samples_out = p->nr_samples;
}

static int64_t wall_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* (6): ns between two samples of the one clock table sampled, if there is exactly one: 1e9/HZ,
 * or its period (WHERE period = N: a clock's period is ns of CPU time) */
static uint64_t clock_period(const struct session *s)
{
	uint64_t hz = 0, period = 0;
	int nr = 0;

	for (int i = 0; i < s->nr_src; i++) {
		const struct source *src = s->src[i];
		const char *name = src->ev ? src->ev->name : "";

		if (!src->need_stack || (strcmp(name, "cpu_clock") && strcmp(name, "task_clock")))
			continue;
		nr++;
		hz = src->hz_used;
		period = src->period_used;
		if (src->bpf && !hz &&
		    !period) { /* the kernel path opens its own event, as asked */
			period = src->period;
			hz = period ? 0 : src->hz ? src->hz : (uint64_t)s->opts.freq;
		}
	}
	if (nr != 1)
		return 0;
	return hz ? 1000000000 / hz : period;
}

void pprof__window(struct pprof *p, struct session *s)
{
	p->sy = s->stack_ctx;
	p->inlines = s->opts.inline_frames;
	if (!p->time_nanos)
		p->time_nanos = (int64_t)s->window_start_ns;
	if (!s->replay) { /* a capture keeps neither the rate nor the run's length */
		p->period = clock_period(s);
		p->end_nanos = wall_ns();
	}
}

static bool map_eq(const struct pprof *p, uint32_t i, const void *key)
{
	const struct pp_map *a = &p->maps[i], *b = key;

	return a->start == b->start && a->end == b->end && a->pgoff == b->pgoff &&
	       a->file == b->file;
}

/* the id of the mapping m (added if new); 0 out of memory */
static uint64_t map_id(struct pprof *p, const struct pp_map *m)
{
	uint64_t k[4] = { m->start, m->end, m->pgoff, (uint64_t)m->file };
	uint64_t h = hash_u64s(k, 4);
	struct pp_slot *slot;

	if (idx_reserve(&p->map_idx))
		return 0;
	slot = idx_find(&p->map_idx, h, map_eq, p, m);
	if (slot->v)
		return slot->v;
	if (PUSH(p, maps))
		return 0;
	p->maps[p->nr_maps] = *m;
	idx_put(&p->map_idx, slot, h, p->nr_maps);
	return ++p->nr_maps;
}

/* (5): the kernel's mapping, its bounds grown to take addr; or the user mapping holding addr,
 * 0 when there is none (anonymous memory) or out of memory */
static uint64_t frame_map(struct pprof *p, uint32_t pid, uint64_t addr, bool kernel)
{
	struct pp_map m = { .kernel = kernel };
	struct sym_map sm;
	int64_t bid;

	if (kernel && !p->kernel_map) {
		if ((m.file = pp_str(p, "[kernel.kallsyms]")) < 0 || PUSH(p, maps))
			return 0;
		m.start = addr;
		m.end = addr + 1;
		p->maps[p->nr_maps++] = m; /* never looked up by bounds: no index entry */
		p->kernel_map = p->nr_maps;
	}
	if (kernel) {
		struct pp_map *k = &p->maps[p->kernel_map - 1];

		k->start = addr < k->start ? addr : k->start;
		k->end = addr >= k->end ? addr + 1 : k->end;
		return p->kernel_map;
	}
	if (!p->sy || symbols__map_at(p->sy, pid, addr, &sm))
		return 0;
	if ((m.file = pp_str(p, sm.path)) < 0 || (bid = pp_str(p, sm.build_id)) < 0)
		return 0;
	m.start = sm.start;
	m.end = sm.end;
	m.pgoff = sm.pgoff;
	m.build_id = bid;
	return map_id(p, &m);
}

static bool func_eq(const struct pprof *p, uint32_t i, const void *key)
{
	const struct pp_func *f = key;

	return p->funcs[i].name == f->name && p->funcs[i].file == f->file;
}

/* the id of function name in file (added if new); 0 out of memory */
static uint64_t func_id(struct pprof *p, const char *name, const char *dir, const char *file)
{
	char path[4096];
	struct pp_func f;
	struct pp_slot *slot;
	uint64_t h;

	if (file && file[0] != '/' && dir)
		snprintf(path, sizeof(path), "%s/%s", dir, file);
	else
		snprintf(path, sizeof(path), "%s", file ? file : "");
	if ((f.name = pp_str(p, name)) < 0 || (f.file = pp_str(p, path)) < 0 ||
	    idx_reserve(&p->func_idx))
		return 0;
	h = hash_u64s((uint64_t[]){ (uint64_t)f.name, (uint64_t)f.file }, 2);
	slot = idx_find(&p->func_idx, h, func_eq, p, &f);
	if (slot->v)
		return slot->v;
	if (PUSH(p, funcs))
		return 0;
	p->funcs[p->nr_funcs] = f;
	idx_put(&p->func_idx, slot, h, p->nr_funcs);
	return ++p->nr_funcs;
}

static int add_line(struct pprof *p, const char *name, const char *dir, const char *file, int line)
{
	uint64_t fid = func_id(p, name, dir, file);

	if (!fid || PUSH(p, lines))
		return -ENOMEM;
	p->lines[p->nr_lines++] = (struct pp_line){ fid, line };
	return 0;
}

/* (5): loc's lines, innermost first, as perf-sql names the address */
static int symbolize(struct pprof *p, struct pp_loc *loc, uint32_t pid, bool kernel)
{
	struct pp_map *m = loc->mapping_id ? &p->maps[loc->mapping_id - 1] : NULL;
	const char *name =
		p->sy ? symbols__resolve(p->sy, pid, loc->address, kernel, NULL, NULL) : NULL;
	struct srcline src[16];
	size_t n = 0;
	int ret = 0;

	loc->line0 = p->nr_lines;
	if (!name) {
		if (m)
			m->unnamed = true;
		return 0;
	}
	if (!kernel)
		n = symbols__srcline(p->sy, pid, loc->address, p->inlines, src, 16);
	if (!n)
		ret = add_line(p, name, NULL, NULL, 0);
	for (size_t i = 0; i < n && !ret; i++)
		ret = add_line(p, src[i].inlined ? (src[i].func ? src[i].func : "??") : name,
			       src[i].dir, src[i].file, src[i].line);
	if (m && n)
		m->lines = true;
	loc->nr_lines = p->nr_lines - loc->line0;
	return ret;
}

static bool loc_eq(const struct pprof *p, uint32_t i, const void *key)
{
	const struct pp_loc *l = key;

	return p->locs[i].key == l->key && p->locs[i].address == l->address;
}

/* the id of frame f of v's stack (added and symbolized if new); 0 out of memory */
static uint64_t loc_id(struct pprof *p, const struct stack_view *v, const struct stack_frame *f)
{
	struct pp_loc l = { .address = f->leaf ? f->addr : f->addr - 1 };
	struct pp_slot *slot;
	uint64_t h;

	l.mapping_id = frame_map(p, v->pid, l.address, f->kernel);
	l.key = l.mapping_id ? l.mapping_id : ANON_KEY | v->pid;
	h = hash_u64s((uint64_t[]){ l.key, l.address }, 2);
	if (idx_reserve(&p->loc_idx))
		return 0;
	slot = idx_find(&p->loc_idx, h, loc_eq, p, &l);
	if (slot->v)
		return slot->v;
	if (symbolize(p, &l, v->pid, f->kernel) || PUSH(p, locs))
		return 0;
	p->locs[p->nr_locs] = l;
	/* symbolize() may have added strings and functions, never locations: slot still holds */
	idx_put(&p->loc_idx, slot, h, p->nr_locs);
	return ++p->nr_locs;
}

/* (2): comm, pid, tid, cpu, cgroup, cgroup_id, with or without a leading '_', and names ending
 * in pid or tid */
static bool is_label_name(const char *name)
{
	static const char *const names[] = { "comm", "pid", "tid", "cpu", "cgroup", "cgroup_id" };
	size_t n = strlen(name);
	const char *bare = name + (name[0] == '_');

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(bare, names[i]))
			return true;
	return n >= 3 && (!strcmp(name + n - 3, "pid") || !strcmp(name + n - 3, "tid"));
}

static bool col_eq(const struct pprof *p, uint32_t i, const void *key)
{
	return p->cols[i].name == *(const int64_t *)key;
}

/* the index of the column called name (added if new); -1 out of memory */
static int64_t col_of(struct pprof *p, const char *name)
{
	int64_t s = pp_str(p, name);
	struct pp_slot *slot;
	uint64_t h = (uint64_t)s * 0x9e3779b97f4a7c15ull;

	if (s < 0 || idx_reserve(&p->col_idx))
		return -1;
	slot = idx_find(&p->col_idx, h, col_eq, p, &s);
	if (slot->v)
		return slot->v - 1;
	if (PUSH(p, cols))
		return -1;
	p->cols[p->nr_cols] = (struct pp_col){ .name = s, .label_name = is_label_name(name) };
	idx_put(&p->col_idx, slot, h, p->nr_cols);
	return (int64_t)p->nr_cols++;
}

/* a duration as dur() writes it ("512ns", "1.23ms", "4.00s") */
static bool dur_text(const char *t, int64_t *ns_out)
{
	size_t n = strlen(t);
	long long ns;

	if (n < 2 || t[n - 1] != 's' || (ns = units__ns(t)) < 0)
		return false;
	*ns_out = ns;
	return true;
}

/* a cell of column name: TEXT t, or else the number num */
static int add_cell(struct pprof *p, const char *name, const char *t, int64_t num)
{
	int64_t col = col_of(p, name);
	struct pp_cell c = { .num = num, .text = t != NULL };
	struct pp_col *pc;

	if (col < 0 || PUSH(p, cells) || (t && (c.str = pp_str(p, t)) < 0))
		return SQLITE_NOMEM;
	pc = &p->cols[col];
	c.col = (uint32_t)col;
	if (t)
		pc->text_other |= !dur_text(t, &c.num);
	pc->num |= !t;
	pc->text |= t != NULL;
	p->cells[p->nr_cells++] = c;
	return SQLITE_OK;
}

static int add_value(struct pprof *p, sqlite3_stmt *st, int i)
{
	const char *name = sqlite3_column_name(st, i);

	switch (sqlite3_column_type(st, i)) {
	case SQLITE_INTEGER: return add_cell(p, name, NULL, sqlite3_column_int64(st, i));
	case SQLITE_FLOAT: return add_cell(p, name, NULL, llround(sqlite3_column_double(st, i)));
	case SQLITE_TEXT:
		if (!sqlite3_column_text(st, i))
			return SQLITE_NOMEM;
		return add_cell(p, name, (const char *)sqlite3_column_text(st, i), 0);
	default: return SQLITE_OK; /* NULL: counts 0; a BLOB: left out */
	}
}

/* the first column of the row holding a stack, or -1 */
static int stack_col(sqlite3_stmt *st, struct stack_view *v)
{
	for (int i = 0; i < sqlite3_column_count(st); i++)
		if (sqlite3_column_type(st, i) == SQLITE_BLOB &&
		    stack_blob__view(sqlite3_column_blob(st, i),
				     (size_t)sqlite3_column_bytes(st, i), v))
			return i;
	return -1;
}

/* (4): does the statement have a column called name or _name? */
static bool has_col(sqlite3_stmt *st, const char *name)
{
	for (int i = 0; i < sqlite3_column_count(st); i++) {
		const char *c = sqlite3_column_name(st, i);

		if (!strcmp(c + (c[0] == '_'), name))
			return true;
	}
	return false;
}

static int add_row(struct pprof *p, sqlite3_stmt *st, bool task_comm, bool task_pid)
{
	struct stack_frame frames[MAX_FRAMES];
	struct pp_sample smp;
	struct stack_view v;
	int col = stack_col(st, &v), rc = SQLITE_OK;
	size_t n;

	p->nr_rows++;
	if (col < 0)
		return SQLITE_OK;
	n = stack_frames(&v, frames, MAX_FRAMES);
	smp = (struct pp_sample){ .loc0 = p->nr_loc_ids, .cell0 = p->nr_cells };
	for (size_t i = n; i-- > 0;) { /* the leaf first */
		uint64_t id = loc_id(p, &v, &frames[i]);

		if (!id || PUSH(p, loc_ids))
			return SQLITE_NOMEM;
		p->loc_ids[p->nr_loc_ids++] = id;
	}
	for (int i = 0; i < sqlite3_column_count(st) && rc == SQLITE_OK; i++)
		if (i != col)
			rc = add_value(p, st, i);
	if (rc == SQLITE_OK && task_comm && v.comm[0])
		rc = add_cell(p, "comm", v.comm, 0);
	if (rc == SQLITE_OK && task_pid)
		rc = add_cell(p, "pid", NULL, v.pid);
	if (rc != SQLITE_OK || PUSH(p, samples))
		return SQLITE_NOMEM;
	smp.nr_locs = p->nr_loc_ids - smp.loc0;
	smp.nr_cells = p->nr_cells - smp.cell0;
	p->samples[p->nr_samples++] = smp;
	return SQLITE_OK;
}

int pprof__statement(struct pprof *p, sqlite3_stmt *st)
{
	bool task_comm = !has_col(st, "comm"), task_pid = !has_col(st, "pid");
	int rc;

	while ((rc = sqlite3_step(st)) == SQLITE_ROW)
		if ((rc = add_row(p, st, task_comm, task_pid)) != SQLITE_OK)
			return rc;
	return rc == SQLITE_DONE ? SQLITE_OK : rc;
}
