/*
 * serve/metrics.c - the state behind perf-sql serve's /metrics (the mapping is in
 * serve/metrics.h): families and their statements' columns, the series (one per statement and
 * label values, found through one hash table), what each window adds, and the renderings in
 * the Prometheus 0.0.4 text format and OpenMetrics 1.0.
 *
 * HOW IT WORKS: metrics__step() stages a statement's rows (labels and the values of the other
 * columns, histogram BLOBs copied), and applies them only when the statement completed. A
 * series holds, per column, the last window's value and window number (gauges), the sum over
 * windows (counters) and a histogram's buckets by upper bound, sorted. At the start of each
 * window the series of statements with nothing cumulative that had no row in the last one
 * are freed, so gauge-only series do not pile up.
 */
#include <errno.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include "serve/metrics.h"
#include "vtab/blob_format.h"

#include "serve/metrics_int.h"

/* perf-sql's own metrics: a family or column may not take these names */
static const char *const health_names[] = {
	"perf_sql_windows",
	"perf_sql_window_duration_seconds",
	"perf_sql_last_window_timestamp_seconds",
	"perf_sql_query_duration_seconds",
	"perf_sql_query_errors",
	"perf_sql_events_received",
	"perf_sql_events_lost",
	"perf_sql_series",
	"perf_sql_max_series",
	"perf_sql_dropped_series",
	"perf_sql_dropped_label_bytes",
	"perf_sql_dropped_series_over_bytes",
};

static double now_unix(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static uint64_t now_mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

struct metrics *metrics__new(long max_series)
{
	struct metrics *m = calloc(1, sizeof(*m));
	int nr = (int)(sizeof(health_names) / sizeof(health_names[0]));

	if (!m || !(m->used = calloc((size_t)nr, sizeof(*m->used)))) {
		free(m);
		return NULL;
	}
	for (int i = 0; i < nr; i++)
		snprintf(m->used[m->nr_used++], NAME_MAX_LEN, "%s", health_names[i]);
	m->max_series = max_series;
	return m;
}

void metrics__limit_bytes(struct metrics *m, size_t max_label_bytes, size_t max_bytes)
{
	m->max_label_bytes = max_label_bytes;
	m->max_bytes = max_bytes;
}

static void hacc_free(struct hacc *h)
{
	free(h->le);
	free(h->n);
}

static void series_free(struct series *s, int nr_cols)
{
	if (!s)
		return;
	for (int i = 0; i < nr_cols; i++)
		hacc_free(&s->v[i].h);
	free(s->labels);
	free(s);
}

static void stage_clear(struct mstmt *ms)
{
	for (long r = 0; r < ms->nr_stage; r++) {
		for (int i = 0; i < ms->nr_cols; i++)
			free(ms->stage[r].cells[i].blob);
		free(ms->stage[r].cells);
		free(ms->stage[r].labels);
	}
	ms->nr_stage = 0;
}

void metrics__free(struct metrics *m)
{
	if (!m)
		return;
	for (int k = 0; k < m->nr_st; k++) {
		struct mstmt *ms = &m->st[k];

		for (long i = 0; i < ms->nr_series; i++)
			series_free(ms->series[i], ms->nr_cols);
		stage_clear(ms);
		free(ms->stage);
		free(ms->series);
		free(ms->cols);
	}
	for (int f = 0; f < m->nr_fam; f++)
		free(m->fam[f].help);
	free(m->fam);
	free(m->st);
	free(m->slots);
	free(m->used);
	free(m);
}

int metrics__family(struct metrics *m, const char *name, const char *help)
{
	struct family *f = realloc(m->fam, (size_t)(m->nr_fam + 1) * sizeof(*f));

	if (!f)
		return -ENOMEM;
	m->fam = f;
	f = &m->fam[m->nr_fam];
	*f = (struct family){ .help = strdup(help) };
	if (!f->help)
		return -ENOMEM;
	metrics__sanitize(f->name, sizeof(f->name), name);
	if (!f->name[0])
		snprintf(f->name, sizeof(f->name), "query%d", m->nr_fam + 1);
	return m->nr_fam++;
}

/* base, or base_2, base_3, ... : the first not taken (1) */
static int take_name(struct metrics *m, char *out, const char *base)
{
	void *p = realloc(m->used, (size_t)(m->nr_used + 1) * sizeof(*m->used));

	if (!p)
		return -ENOMEM;
	m->used = p;
	snprintf(out, NAME_MAX_LEN, "%s", base);
	for (int n = 2;; n++) {
		int i = 0;

		while (i < m->nr_used && strcmp(m->used[i], out))
			i++;
		if (i == m->nr_used)
			break;
		snprintf(out, NAME_MAX_LEN, "%.180s_%d", base, n);
	}
	snprintf(m->used[m->nr_used++], NAME_MAX_LEN, "%s", out);
	return 0;
}

static void label_name(char *out, const char *col, int i)
{
	metrics__sanitize(out, NAME_MAX_LEN - 1, col);
	if (!out[0])
		snprintf(out, NAME_MAX_LEN, "column%d", i + 1);
	else if (out[0] >= '0' && out[0] <= '9')
		memmove(out + 1, out, strlen(out) + 1), out[0] = '_';
	if (!strcmp(out, "le") || !strcmp(out, "quantile"))
		strcat(out, "_");
}

/* column i's label name, or name_2, name_3, ... : the first no earlier column of ms has (two
 * columns may sanitize to one name: "a b" and a_b; a series may not repeat a label name) */
static void unique_label(struct mstmt *ms, int i)
{
	char *out = ms->cols[i].label, base[NAME_MAX_LEN];

	snprintf(base, sizeof(base), "%s", out);
	for (int n = 2, j = 0; j < i;) {
		if (strcmp(ms->cols[j].label, out)) {
			j++;
			continue;
		}
		snprintf(out, NAME_MAX_LEN, "%.180s_%d", base, n++);
		j = 0;
	}
}

int metrics__statement(struct metrics *m, int family, sqlite3_stmt *st, const char *text)
{
	struct mstmt *ms = realloc(m->st, (size_t)(m->nr_st + 1) * sizeof(*ms));
	int nr = sqlite3_column_count(st);
	unsigned char *counts = calloc((size_t)nr + 1, 1);

	if (ms)
		m->st = ms; /* first: a failed calloc below must not leave it at freed memory */
	if (!ms || !counts) {
		free(counts);
		return -ENOMEM;
	}
	ms = &m->st[m->nr_st];
	*ms = (struct mstmt){ .family = family, .nr_cols = nr };
	if (!(ms->cols = calloc((size_t)nr + 1, sizeof(*ms->cols)))) {
		free(counts);
		return -ENOMEM;
	}
	m->nr_st++;
	metrics__counted_columns(text ? text : sqlite3_sql(st), nr, counts);
	for (int i = 0; i < nr; i++) {
		struct mcol *c = &ms->cols[i];
		char part[128], base[NAME_MAX_LEN];

		snprintf(c->col, sizeof(c->col), "%s", sqlite3_column_name(st, i));
		metrics__sanitize(part, sizeof(part), c->col);
		if (!part[0])
			snprintf(part, sizeof(part), "column%d", i + 1);
		snprintf(base, sizeof(base), "perf_sql_%.60s_%.120s", m->fam[family].name, part);
		label_name(c->label, c->col, i);
		unique_label(ms, i);
		c->counts = counts[i];
		c->sum_col = -1;
		if (take_name(m, c->name, base)) {
			free(counts);
			return -ENOMEM;
		}
	}
	for (int i = 0; i < nr; i++)
		for (int j = 0; j < nr; j++) {
			size_t n = strlen(ms->cols[i].col);

			if (j != i && !strncmp(ms->cols[j].col, ms->cols[i].col, n) &&
			    !strcmp(ms->cols[j].col + n, "_sum"))
				ms->cols[i].sum_col = j;
		}
	free(counts);
	return 0;
}

int metrics__nr_statements(const struct metrics *m) { return m->nr_st; }

long metrics__nr_series(const struct metrics *m) { return m->nr_series; }

/* ------------------------------------------------------------------ the series table */

static uint64_t series_hash(int k, const char *labels)
{
	uint64_t h = 14695981039346656037ull ^ (uint64_t)k;

	for (const unsigned char *p = (const unsigned char *)labels; *p; p++)
		h = (h ^ *p) * 1099511628211ull;
	return h;
}

static struct series **slot_of(struct metrics *m, uint64_t hash, int k, const char *labels)
{
	size_t mask = m->nr_slots - 1;

	for (size_t i = hash & mask;; i = (i + 1) & mask) {
		struct series *s = m->slots[i];

		if (!s || (s->hash == hash && s->stmt == k && !strcmp(s->labels, labels)))
			return &m->slots[i];
	}
}

/* the table sized for the series held, every series put back (after growth or eviction) */
static int rehash(struct metrics *m, long want)
{
	size_t n = 64;

	while (n < (size_t)want * 2)
		n *= 2;
	free(m->slots);
	if (!(m->slots = calloc(n, sizeof(*m->slots)))) {
		m->nr_slots = 0;
		return -ENOMEM;
	}
	m->nr_slots = n;
	for (int k = 0; k < m->nr_st; k++)
		for (long i = 0; i < m->st[k].nr_series; i++) {
			struct series *s = m->st[k].series[i];

			*slot_of(m, s->hash, k, s->labels) = s;
		}
	return 0;
}

/* what a series adds to the exposition (5): per metric column, its sample lines (a counter
 * two, a histogram one per bucket), each its name, the labels and a value */
static size_t series_bytes(const struct mstmt *ms, const char *labels)
{
	size_t bytes = 0;

	for (int i = 0; i < ms->nr_cols; i++) {
		const struct mcol *c = &ms->cols[i];
		size_t lines = c->kind == COL_HIST ? 66 : c->kind == COL_NUMBER ? 2 : 0;

		bytes += lines * (strlen(c->name) + strlen(labels) + 40);
	}
	return bytes;
}

/* the series of statement k with these labels; a new one takes *labels. NULL past the caps
 * (m->dropped_over_bytes counts the bytes cap's; the caller the count cap's) */
static struct series *series_get(struct metrics *m, int k, char **labels)
{
	struct mstmt *ms = &m->st[k];
	uint64_t h = series_hash(k, *labels);
	struct series *s, **slot;

	if (m->nr_slots && *(slot = slot_of(m, h, k, *labels)))
		return *slot;
	if (m->nr_series >= m->max_series)
		return NULL;
	if (m->max_bytes && m->bytes + series_bytes(ms, *labels) > m->max_bytes) {
		m->dropped_over_bytes++;
		return NULL;
	}
	if (ms->nr_series == ms->cap_series) {
		long cap = ms->cap_series ? ms->cap_series * 2 : 16;
		void *p = realloc(ms->series, (size_t)cap * sizeof(*ms->series));

		if (!p)
			return NULL;
		ms->series = p;
		ms->cap_series = cap;
	}
	if ((size_t)(m->nr_series + 1) * 2 > m->nr_slots && rehash(m, m->nr_series + 1))
		return NULL;
	if (!(s = calloc(1, sizeof(*s) + (size_t)ms->nr_cols * sizeof(s->v[0]))))
		return NULL;
	s->labels = *labels;
	*labels = NULL;
	s->hash = h;
	s->stmt = k;
	s->created = now_unix();
	m->bytes += series_bytes(ms, s->labels);
	*slot_of(m, h, k, s->labels) = s;
	ms->series[ms->nr_series++] = s;
	m->nr_series++;
	return s;
}

static int hacc_add(struct hacc *h, const void *blob, int len)
{
	struct hist_view v;

	if (hist_view__decode(&v, blob, len))
		return -EINVAL;
	for (uint32_t i = 0; i < v.nr; i++) {
		int64_t lo, hi;
		bool has_lo, has_hi;
		uint32_t a = 0, b;

		hist_view__range(&v, i, &lo, &hi, &has_lo, &has_hi);
		if (!has_hi)
			hi = INT64_MAX;
		for (b = h->nr; a < b;) { /* the first bucket with le >= hi */
			uint32_t mid = (a + b) / 2;

			if (h->le[mid] < hi)
				a = mid + 1;
			else
				b = mid;
		}
		if (a == h->nr || h->le[a] != hi) {
			if (h->nr == h->cap) {
				uint32_t cap = h->cap ? h->cap * 2 : 32;
				int64_t *le = realloc(h->le, cap * sizeof(*le));
				uint64_t *n = le ? realloc(h->n, cap * sizeof(*n)) : NULL;

				if (le)
					h->le = le;
				if (!n)
					return -ENOMEM;
				h->n = n;
				h->cap = cap;
			}
			memmove(h->le + a + 1, h->le + a, (h->nr - a) * sizeof(*h->le));
			memmove(h->n + a + 1, h->n + a, (h->nr - a) * sizeof(*h->n));
			h->le[a] = hi;
			h->n[a] = 0;
			h->nr++;
		}
		h->n[a] += hist_view__count(&v, i);
	}
	return 0;
}

/* ------------------------------------------------------------------------ a window */

static bool stmt_cumulative(const struct mstmt *ms)
{
	for (int i = 0; i < ms->nr_cols; i++)
		if (ms->cols[i].kind == COL_HIST ||
		    (ms->cols[i].kind == COL_NUMBER && ms->cols[i].counts))
			return true;
	return false;
}

void metrics__window_begin(struct metrics *m)
{
	bool evicted = false;

	for (int k = 0; k < m->nr_st; k++) {
		struct mstmt *ms = &m->st[k];
		long o = 0;

		if (stmt_cumulative(ms))
			continue;
		for (long i = 0; i < ms->nr_series; i++) {
			if (ms->series[i]->seen >= m->window) {
				ms->series[o++] = ms->series[i];
				continue;
			}
			series_free(ms->series[i], ms->nr_cols);
			m->nr_series--;
			evicted = true;
		}
		ms->nr_series = o;
	}
	if (evicted)
		rehash(m, m->nr_series);
	m->window++;
	for (int f = 0; f < m->nr_fam; f++)
		m->fam[f].query_ns = 0;
}

static enum col_kind kind_of(sqlite3_stmt *st, int i, int type)
{
	if (type == SQLITE_TEXT)
		return COL_LABEL;
	if (type == SQLITE_INTEGER || type == SQLITE_FLOAT)
		return COL_NUMBER;
	return hist_is(sqlite3_column_blob(st, i), sqlite3_column_bytes(st, i)) ? COL_HIST
										: COL_SKIP;
}

/* one value of a row into its cell (or its label into lb); -ENOMEM */
/* a label value's bytes kept under m->max_label_bytes: cut where a UTF-8 character starts */
static size_t label_len(struct metrics *m, const char *v, size_t n)
{
	size_t keep = n;

	if (!m->max_label_bytes || n <= m->max_label_bytes)
		return n;
	keep = m->max_label_bytes;
	while (keep && ((unsigned char)v[keep] & 0xc0) == 0x80)
		keep--;
	m->label_bytes_cut += n - keep;
	return keep;
}

static int stage_cell(struct metrics *m, struct mcol *c, sqlite3_stmt *st, int i, struct cell *cell,
		      struct mbuf *lb)
{
	int type = sqlite3_column_type(st, i);

	if (c->kind == COL_UNSET && type != SQLITE_NULL)
		c->kind = kind_of(st, i, type);
	if (c->kind == COL_LABEL) {
		const char *v = (const char *)sqlite3_column_text(st, i);

		mbuf__printf(lb, "%s%s=\"", lb->len ? "," : "", c->label);
		if (v)
			metrics__escape(lb, v, label_len(m, v, (size_t)sqlite3_column_bytes(st, i)),
					true);
		mbuf__put(lb, "\"", 1);
	} else if (c->kind == COL_NUMBER && (type == SQLITE_INTEGER || type == SQLITE_FLOAT)) {
		cell->type = 1;
		cell->d = sqlite3_column_double(st, i);
	} else if (c->kind == COL_HIST && type == SQLITE_BLOB) {
		const void *blob = sqlite3_column_blob(st, i);
		int len = sqlite3_column_bytes(st, i);

		if (!hist_is(blob, len))
			return 0;
		if (!(cell->blob = malloc((size_t)len)))
			return -ENOMEM;
		memcpy(cell->blob, blob, (size_t)len);
		cell->len = len;
		cell->type = 2;
	}
	return 0;
}

static int stage_row(struct metrics *m, struct mstmt *ms, sqlite3_stmt *st)
{
	struct mbuf lb = { 0 };
	struct srow *r;
	int ret = 0;

	if (ms->nr_stage == ms->cap_stage) {
		long cap = ms->cap_stage ? ms->cap_stage * 2 : 16;
		void *p = realloc(ms->stage, (size_t)cap * sizeof(*ms->stage));

		if (!p)
			return -ENOMEM;
		ms->stage = p;
		ms->cap_stage = cap;
	}
	r = &ms->stage[ms->nr_stage];
	if (!(r->cells = calloc((size_t)ms->nr_cols + 1, sizeof(*r->cells))))
		return -ENOMEM;
	mbuf__put(&lb, "", 0);
	for (int i = 0; i < ms->nr_cols && !ret; i++)
		ret = stage_cell(m, &ms->cols[i], st, i, &r->cells[i], &lb);
	r->labels = lb.p;
	ms->nr_stage++; /* stage_clear() frees it, whole or not */
	return ret ? ret : lb.oom ? -ENOMEM : 0;
}

static void apply_row(struct metrics *m, struct mstmt *ms, struct series *s, struct srow *r)
{
	s->seen = m->window;
	for (int i = 0; i < ms->nr_cols; i++) {
		struct cell *c = &r->cells[i];
		struct mval *v = &s->v[i];

		if (c->type == 1) {
			v->gauge = c->d;
			v->seen = m->window;
			if (ms->cols[i].counts && c->d > 0)
				v->total += c->d;
		} else if (c->type == 2 && !hacc_add(&v->h, c->blob, c->len)) {
			int j = ms->cols[i].sum_col;

			v->seen = m->window;
			if (j >= 0 && r->cells[j].type == 1) {
				v->h.sum += r->cells[j].d;
				v->h.has_sum = true;
			}
		}
	}
}

int metrics__step(struct metrics *m, int k, sqlite3_stmt *st)
{
	struct mstmt *ms = &m->st[k];
	uint64_t t0 = now_mono_ns();
	int rc;

	sqlite3_reset(st);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW)
		if (stage_row(m, ms, st)) {
			rc = SQLITE_NOMEM;
			break;
		}
	m->fam[ms->family].query_ns += now_mono_ns() - t0;
	if (rc == SQLITE_DONE) {
		for (long r = 0; r < ms->nr_stage; r++) {
			uint64_t over = m->dropped_over_bytes;
			struct series *s = series_get(m, k, &ms->stage[r].labels);

			if (s)
				apply_row(m, ms, s, &ms->stage[r]);
			else if (m->dropped_over_bytes == over)
				m->dropped++;
		}
	} else {
		m->fam[ms->family].errors++;
	}
	stage_clear(ms);
	sqlite3_reset(st);
	return rc;
}
