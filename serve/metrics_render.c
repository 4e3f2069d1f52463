/*
 * serve/metrics_render.c - the exposition of serve/metrics.h's state: the Prometheus 0.0.4 text
 * format or OpenMetrics 1.0 (the scraper's Accept header chooses, in serve/serve.c).
 *
 * (1) Families come in statement and column order, then perf-sql's own health; a family with
 *     no sample is left out.
 * (2) The two formats differ only where they must: a counter's HELP/TYPE name carries _total
 *     in 0.0.4 and not in OpenMetrics; OpenMetrics adds _created to counters and histograms,
 *     escapes " in HELP, and ends with # EOF. Sample names and labels are the same in both,
 *     `le` included ("1023.0"), so a series does not change with the format.
 */
#include <stdio.h>
#include <string.h>
#include "serve/metrics.h"
#include "serve/metrics_int.h"

/* ------------------------------------------------------------------------ rendering */

/* # HELP and # TYPE of base (a counter's are named base_total in the 0.0.4 format) */
static void head(struct mbuf *b, enum metrics_format fmt, const char *base, const char *type,
		 const char *help, const char *more)
{
	const char *suffix = fmt == METRICS_TEXT && !strcmp(type, "counter") ? "_total" : "";

	mbuf__printf(b, "# HELP %s%s ", base, suffix);
	metrics__escape(b, help, strlen(help), fmt == METRICS_OPENMETRICS);
	metrics__escape(b, more, strlen(more), fmt == METRICS_OPENMETRICS);
	mbuf__printf(b, "\n# TYPE %s%s %s\n", base, suffix, type);
}

static void sample(struct mbuf *b, const char *base, const char *suffix, const char *labels,
		   const char *extra, double v)
{
	char num[48];

	metrics__format_value(v, num, sizeof(num));
	mbuf__printf(b, "%s%s", base, suffix);
	if (labels[0] || extra)
		mbuf__printf(b, "{%s%s%s}", labels, labels[0] && extra ? "," : "",
			     extra ? extra : "");
	mbuf__printf(b, " %s\n", num);
}

static void render_hist(struct mbuf *b, enum metrics_format fmt, const char *base,
			const struct series *s, const struct hacc *h)
{
	uint64_t cum = 0;
	char le[48];

	for (uint32_t j = 0; j < h->nr; j++) {
		cum += h->n[j];
		if (h->le[j] == INT64_MAX)
			continue;
		snprintf(le, sizeof(le), "le=\"%lld.0\"", (long long)h->le[j]);
		sample(b, base, "_bucket", s->labels, le, (double)cum);
	}
	sample(b, base, "_bucket", s->labels, "le=\"+Inf\"", (double)cum);
	sample(b, base, "_count", s->labels, NULL, (double)cum);
	if (h->has_sum)
		sample(b, base, "_sum", s->labels, NULL, h->sum);
	if (fmt == METRICS_OPENMETRICS)
		sample(b, base, "_created", s->labels, NULL, s->created);
}

/* is column i of ms the _sum of a histogram column (4)? */
static bool is_hist_sum(const struct mstmt *ms, int i)
{
	for (int h = 0; h < ms->nr_cols; h++)
		if (ms->cols[h].kind == COL_HIST && ms->cols[h].sum_col == i)
			return true;
	return false;
}

/* one column of statement ms as one or two families */
static void render_column(struct mbuf *b, enum metrics_format fmt, const struct metrics *m,
			  const struct mstmt *ms, int i)
{
	const struct mcol *c = &ms->cols[i];
	const char *help = m->fam[ms->family].help;
	char more[NAME_MAX_LEN + 64], name[NAME_MAX_LEN + 8];
	long n = 0;

	for (long r = 0; r < ms->nr_series; r++)
		n += ms->series[r]->v[i].seen == m->window;
	if (c->kind == COL_HIST) {
		snprintf(more, sizeof(more), " (column %s, cumulative over windows)", c->col);
		head(b, fmt, c->name, "histogram", help, more);
		for (long r = 0; r < ms->nr_series; r++)
			if (ms->series[r]->v[i].h.nr)
				render_hist(b, fmt, c->name, ms->series[r], &ms->series[r]->v[i].h);
		return;
	}
	snprintf(name, sizeof(name), "%s%s", c->name, c->counts ? "_window" : "");
	snprintf(more, sizeof(more), " (column %s, the last window)", c->col);
	if (n) {
		head(b, fmt, name, "gauge", help, more);
		for (long r = 0; r < ms->nr_series; r++)
			if (ms->series[r]->v[i].seen == m->window)
				sample(b, name, "", ms->series[r]->labels, NULL,
				       ms->series[r]->v[i].gauge);
	}
	if (!c->counts || !ms->nr_series)
		return;
	snprintf(more, sizeof(more), " (column %s, summed over windows)", c->col);
	head(b, fmt, c->name, "counter", help, more);
	for (long r = 0; r < ms->nr_series; r++) {
		sample(b, c->name, "_total", ms->series[r]->labels, NULL,
		       ms->series[r]->v[i].total);
		if (fmt == METRICS_OPENMETRICS)
			sample(b, c->name, "_created", ms->series[r]->labels, NULL,
			       ms->series[r]->created);
	}
}

/* one health metric without labels */
static void health1(struct mbuf *b, enum metrics_format fmt, const char *base, const char *type,
		    const char *help, double v)
{
	head(b, fmt, base, type, help, "");
	sample(b, base, strcmp(type, "counter") ? "" : "_total", "", NULL, v);
}

static void render_tables(struct mbuf *b, enum metrics_format fmt, const struct metrics_health *h)
{
	char label[300];
	struct mbuf l = { 0 };

	for (int lost = 0; lost < 2 && h->nr_tables; lost++) {
		const char *base = lost ? "perf_sql_events_lost" : "perf_sql_events_received";

		head(b, fmt, base, "counter",
		     lost ? "events the kernel counted that perf-sql did not "
			    "receive, or refused past --max-memory, per table"
			  : "events received per table",
		     "");
		for (int t = 0; t < h->nr_tables; t++) {
			l.len = 0;
			metrics__escape(&l, h->tables[t].name, strlen(h->tables[t].name), true);
			snprintf(label, sizeof(label), "table=\"%s\"", l.p ? l.p : "");
			sample(b, base, "_total", "", label,
			       (double)(lost ? h->tables[t].lost : h->tables[t].received));
		}
	}
	mbuf__free(&l);
}

static void render_health(struct mbuf *b, enum metrics_format fmt, const struct metrics *m,
			  const struct metrics_health *h)
{
	char label[NAME_MAX_LEN + 16];

	health1(b, fmt, "perf_sql_windows", "counter", "windows completed", (double)h->windows);
	health1(b, fmt, "perf_sql_window_duration_seconds", "gauge", "the last window's length",
		h->window_seconds);
	health1(b, fmt, "perf_sql_last_window_timestamp_seconds", "gauge",
		"when the last window ended (Unix time; 0: none yet)", h->window_end);
	for (int e = 0; e < 2 && m->nr_fam; e++) {
		const char *base = e ? "perf_sql_query_errors" : "perf_sql_query_duration_seconds";

		head(b, fmt, base, e ? "counter" : "gauge",
		     e ? "windows whose statements of a "
			 "family failed (SQL error or --query-timeout): their rows are left out"
		       : "time the last window's statements of a family took",
		     "");
		for (int f = 0; f < m->nr_fam; f++) {
			snprintf(label, sizeof(label), "family=\"%s\"", m->fam[f].name);
			sample(b, base, e ? "_total" : "", "", label,
			       e ? (double)m->fam[f].errors : (double)m->fam[f].query_ns / 1e9);
		}
	}
	render_tables(b, fmt, h);
	health1(b, fmt, "perf_sql_series", "gauge", "series held", (double)m->nr_series);
	health1(b, fmt, "perf_sql_max_series", "gauge", "--max-series", (double)m->max_series);
	health1(b, fmt, "perf_sql_dropped_series", "counter",
		"rows of new series left out past --max-series", (double)m->dropped);
	health1(b, fmt, "perf_sql_dropped_series_over_bytes", "counter",
		"rows of new series left out past --max-exposition-bytes",
		(double)m->dropped_over_bytes);
	health1(b, fmt, "perf_sql_dropped_label_bytes", "counter",
		"bytes cut from label values longer than --max-label-bytes",
		(double)m->label_bytes_cut);
	health1(b, fmt, "process_resident_memory_bytes", "gauge", "resident memory size in bytes",
		(double)h->rss_bytes);
	health1(b, fmt, "process_cpu_seconds", "counter",
		"user and system CPU time spent "
		"in seconds",
		h->cpu_seconds);
	health1(b, fmt, "process_open_fds", "gauge", "open file descriptors", (double)h->open_fds);
	health1(b, fmt, "process_start_time_seconds", "gauge",
		"start time of the process since "
		"the Unix epoch in seconds",
		h->start_time);
}

void metrics__render(const struct metrics *m, const struct metrics_health *h,
		     enum metrics_format fmt, struct mbuf *b)
{
	for (int k = 0; k < m->nr_st; k++) {
		const struct mstmt *ms = &m->st[k];

		for (int i = 0; i < ms->nr_cols; i++)
			if ((ms->cols[i].kind == COL_NUMBER && !is_hist_sum(ms, i)) ||
			    ms->cols[i].kind == COL_HIST)
				render_column(b, fmt, m, ms, i);
	}
	render_health(b, fmt, m, h);
	if (fmt == METRICS_OPENMETRICS)
		mbuf__put(b, "# EOF\n", 6);
}
