/*
 * render/output.c - printing statement results (see render/output.h).
 *
 * (1) table: rows are buffered to align columns (up to GRID_ROWS rows or GRID_BYTES; past
 *     that they stream in the widths found so far); numbers right-aligned; NULL prints empty.
 *     A histogram value (log2_hist, lin_hist) prints as bcc-style bars under its row.
 * (2) csv: RFC 4180 quoting; one header per statement for the whole run; with -i a first
 *     column window_start. Flushed after every window, so `tail -f` sees whole rows.
 * (3) json: one object per row (JSON Lines), window_start included with -i; BLOBs as hex
 *     strings, histograms as arrays of {low, high, count}.
 * (4) pprof: the rows go to a profile (render/pprof.h), written at the end of the run.
 * (5) Every write is checked (the statement's last flush, and the stream's error flag for the
 *     ones before): a failure is o->write_error, which the caller says (cli/run.c); EPIPE
 *     is o->broken_pipe, which ends the run quietly.
 */
#include <errno.h>
#include <stdio_ext.h>
#include <sys/stat.h>
#include <unistd.h>
#include <stdlib.h>
#include <string.h>
#include "core/outfile.h"
#include "render/flamegraph.h"
#include "render/output.h"
#include "render/pprof.h"
#include "sqlite/heatmap.h"
#include "sqlite/hist.h"

static const char *const mode_names[] = { "table", "csv", "json", "pprof" };

int output__mode(const char *name)
{
	for (int i = 0; i < 4; i++)
		if (!strcmp(name, mode_names[i]))
			return i;
	return -1;
}

static char *hex(const unsigned char *p, int n)
{
	char *s = malloc((size_t)n * 2 + 1);

	if (!s)
		return NULL;
	for (int i = 0; i < n; i++)
		sprintf(s + 2 * i, "%02x", p[i]);
	s[2 * n] = '\0';
	return s;
}

/* The text of a cell (malloc'd); histograms as JSON unless as_bars. NULL for SQL NULL. */
static char *cell_text(sqlite3_stmt *st, int col, bool as_bars)
{
	const void *blob;
	int n;

	switch (sqlite3_column_type(st, col)) {
	case SQLITE_NULL: return NULL;
	case SQLITE_BLOB:
		blob = sqlite3_column_blob(st, col);
		n = sqlite3_column_bytes(st, col);
		if (hist_is(blob, n))
			return as_bars ? hist_to_text(blob, n) : hist_to_json(blob, n);
		if (heatmap_is(blob, n) && as_bars)
			return heatmap_to_text(blob, n);
		return hex(blob, n);
	default: return strdup((const char *)sqlite3_column_text(st, col));
	}
}

static void csv_field(FILE *f, const char *s)
{
	if (!s)
		return;
	if (!strpbrk(s, ",\"\r\n")) {
		fputs(s, f);
		return;
	}
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', f);
		fputc(*s, f);
	}
	fputc('"', f);
}

static void json_string(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c == '\n')
			fputs("\\n", f);
		else if (c == '\t')
			fputs("\\t", f);
		else if (c < 0x20)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

/*
 * The statement's column names as printed: a name that an earlier column (or window_start,
 * which -i puts first) already has gets ":1", ":2", ... as SQLite names the columns of a view,
 * so JSON keys and headers are unique (SELECT ts(_time) AS time, * has two "time"s). One
 * allocation: free() it.
 */
static char **column_names(sqlite3_stmt *st, bool windowed)
{
	int nc = sqlite3_column_count(st);
	size_t bytes = (size_t)(nc + 1) * sizeof(char *);
	char **names, *p;

	for (int i = 0; i < nc; i++)
		bytes += strlen(sqlite3_column_name(st, i)) + 12;
	if (!(names = malloc(bytes)))
		return NULL;
	p = (char *)(names + nc + 1);
	for (int i = 0; i < nc; i++) {
		const char *name = sqlite3_column_name(st, i);

		names[i] = p;
		for (int k = 0;; k++) {
			bool taken;

			snprintf(p, strlen(name) + 12, k ? "%s:%d" : "%s", name, k);
			taken = windowed && !strcmp(p, "window_start");
			for (int j = 0; j < i && !taken; j++)
				taken = !strcmp(names[j], p);
			if (!taken)
				break;
		}
		p += strlen(p) + 1;
	}
	names[nc] = NULL;
	return names;
}

static void json_row(struct output *o, sqlite3_stmt *st, const char *window, char **names)
{
	int nc = sqlite3_column_count(st);
	bool first = true;

	fputc('{', o->f);
	if (window) {
		fputs("\"window_start\":", o->f);
		json_string(o->f, window);
		first = false;
	}
	for (int i = 0; i < nc; i++) {
		int type = sqlite3_column_type(st, i);
		char *v;

		fprintf(o->f, "%s", first ? "" : ",");
		first = false;
		json_string(o->f, names[i]);
		fputc(':', o->f);
		if (type == SQLITE_INTEGER || type == SQLITE_FLOAT) {
			fputs((const char *)sqlite3_column_text(st, i), o->f);
			continue;
		}
		v = cell_text(st, i, false);
		if (!v)
			fputs("null", o->f);
		else if (type == SQLITE_BLOB &&
			 hist_is(sqlite3_column_blob(st, i), sqlite3_column_bytes(st, i)))
			fputs(v, o->f);
		else
			json_string(o->f, v);
		free(v);
	}
	fputs("}\n", o->f);
}

static void csv_row(struct output *o, sqlite3_stmt *st, const char *window)
{
	int nc = sqlite3_column_count(st);

	if (window) {
		csv_field(o->f, window);
		fputc(',', o->f);
	}
	for (int i = 0; i < nc; i++) {
		char *v = cell_text(st, i, false);

		if (i)
			fputc(',', o->f);
		csv_field(o->f, v);
		free(v);
	}
	fputs(o->crlf ? "\r\n" : "\n", o->f);
}

static void csv_header(struct output *o, sqlite3_stmt *st, int nth, char **names)
{
	int nc = sqlite3_column_count(st);

	if (nth < 31 && (o->headers_done >> nth) & 1)
		return;
	if (nth < 31)
		o->headers_done |= 1 << nth;
	if (o->windowed)
		fputs("window_start,", o->f);
	for (int i = 0; i < nc; i++) {
		if (i)
			fputc(',', o->f);
		csv_field(o->f, names[i]);
	}
	fputs(o->crlf ? "\r\n" : "\n", o->f);
}

/* table mode: rows buffered to align the columns, at most GRID_ROWS rows or GRID_BYTES of
 * text; past that, the buffered rows print with the widths they have and the rest streams in
 * those widths (a longer cell pushes its row's later columns right), so a large result costs
 * no more memory than a small one */
#define GRID_ROWS 1000
#define GRID_BYTES ((size_t)4 << 20)

struct grid {
	int nc, nr, cap;
	char **cells;  /* nr * nc; NULL = SQL NULL */
	bool *numeric; /* per column: every non-NULL cell is a number */
	int *width;
	size_t bytes;   /* of the buffered cells */
	bool streaming; /* widths and header fixed: rows print as they come */
	bool any_bars;
	char **names; /* column_names() */
};

static int grid_add(struct grid *g, sqlite3_stmt *st)
{
	if (g->nr == g->cap) {
		int ncap = g->cap ? g->cap * 2 : 64;
		char **n = realloc(g->cells, (size_t)ncap * (size_t)g->nc * sizeof(*n));

		if (!n)
			return SQLITE_NOMEM;
		g->cells = n;
		g->cap = ncap;
	}
	for (int i = 0; i < g->nc; i++) {
		int type = sqlite3_column_type(st, i);
		char *v = cell_text(st, i, true);

		g->cells[g->nr * g->nc + i] = v;
		g->bytes += v ? strlen(v) + 1 : 0;
		if (type != SQLITE_NULL && type != SQLITE_INTEGER && type != SQLITE_FLOAT &&
		    !g->streaming)
			g->numeric[i] = false;
	}
	g->nr++;
	return SQLITE_OK;
}

static bool is_bars(const char *v) { return v && strchr(v, '\n'); }

/* the widths of the buffered rows, then the header lines */
static void grid_head(struct output *o, struct grid *g, sqlite3_stmt *st, const char *window)
{
	for (int i = 0; i < g->nc; i++) {
		g->width[i] = (int)strlen(g->names[i]);
		for (int r = 0; r < g->nr; r++) {
			const char *v = g->cells[r * g->nc + i];

			if (is_bars(v)) {
				g->any_bars = true;
				continue;
			}
			if (v && (int)strlen(v) > g->width[i])
				g->width[i] = (int)strlen(v);
		}
	}
	if (window)
		fprintf(o->f, "-- window %s\n", window);
	if (g->any_bars && g->nc == 1) /* a lone histogram: just the bars, as bcc prints them */
		return;
	for (int i = 0; i < g->nc; i++) /* headers align as their column does */
		fprintf(o->f, g->numeric[i] ? "%s%*s" : "%s%-*s", i ? "  " : "",
			i == g->nc - 1 && !g->numeric[i] ? 0 : g->width[i], g->names[i]);
	fputc('\n', o->f);
	for (int i = 0; i < g->nc; i++) {
		fprintf(o->f, "%s", i ? "  " : "");
		for (int k = 0; k < g->width[i]; k++)
			fputc('-', o->f);
	}
	fputc('\n', o->f);
}

/* a multi-line cell (histogram bars, folded_stack() lines, stack_text()): its place in the row
 * says how many lines follow the row */
static const char *below(const char *v, char *buf, size_t len)
{
	int n = 0;

	for (const char *p = v; *p; p++)
		n += *p == '\n' && p[1];
	snprintf(buf, len, n ? "(%d lines below)" : "(%d line below)", n + 1);
	return buf;
}

/* the buffered rows, printed and dropped */
static void grid_rows(struct output *o, struct grid *g)
{
	char lines[32];

	for (int r = 0; r < g->nr; r++) {
		char **row = &g->cells[r * g->nc];

		if (g->any_bars && g->nc == 1) {
			fprintf(o->f, "%s", row[0] ? row[0] : "");
		} else {
			for (int i = 0; i < g->nc; i++) {
				const char *v = is_bars(row[i])
							? below(row[i], lines, sizeof(lines))
							: row[i];
				bool last = i == g->nc - 1;

				if (g->numeric[i])
					fprintf(o->f, "%s%*s", i ? "  " : "", g->width[i],
						v ? v : "");
				else
					fprintf(o->f, "%s%-*s", i ? "  " : "",
						last ? 0 : g->width[i], v ? v : "");
			}
			fputc('\n', o->f);
			for (int i = 0; i < g->nc; i++)
				if (is_bars(row[i]))
					fprintf(o->f, "%s\n", row[i]);
		}
		for (int i = 0; i < g->nc; i++)
			free(row[i]);
	}
	g->nr = 0;
	g->bytes = 0;
}

/* after each row: past the buffer's bound, the header is fixed and the rows go out */
static void grid_spill(struct output *o, struct grid *g, sqlite3_stmt *st, const char *window,
		       bool end)
{
	if (!g->streaming && !end && g->nr < GRID_ROWS && g->bytes < GRID_BYTES)
		return;
	if (!g->streaming)
		grid_head(o, g, st, window);
	g->streaming = true;
	grid_rows(o, g);
}

static void grid_free(struct grid *g)
{
	for (int i = 0; i < g->nr * g->nc; i++)
		free(g->cells[i]);
	free(g->cells);
	free(g->numeric);
	free(g->width);
	free(g->names);
}

/* --heatmap: the last heatmap() value seen is kept for the SVG */
static void collect_heatmap(struct output *o, sqlite3_stmt *st)
{
	for (int i = 0; i < sqlite3_column_count(st); i++) {
		const void *b = sqlite3_column_blob(st, i);
		int n = sqlite3_column_bytes(st, i);
		void *copy;

		if (sqlite3_column_type(st, i) != SQLITE_BLOB || !heatmap_is(b, n) ||
		    !(copy = malloc((size_t)n)))
			continue;
		memcpy(copy, b, (size_t)n);
		free(o->heatmap);
		o->heatmap = copy;
		o->heatmap_len = n;
	}
}

/*
 * A folded_stack() value, whatever its column is called: lines "FRAME;...;FRAME COUNT", COUNT a
 * positive integer. folded_stack() ends every line with '\n'; a value without one (made in SQL)
 * must hold a ';', so that a plain "name 3" is not taken for a stack.
 */
static bool folded_is(const char *s)
{
	bool semi = false;
	const char *p = s;

	if (!s || !*s)
		return false;
	while (*p) {
		size_t len = strcspn(p, "\n");
		const char *sp = p + len;

		while (sp > p && sp[-1] >= '0' && sp[-1] <= '9')
			sp--;
		if (sp == p + len || sp - p < 2 || sp[-1] != ' ' || atoll(sp) <= 0)
			return false;
		semi |= memchr(p, ';', len) != NULL;
		p += len + (p[len] == '\n');
	}
	return semi || p[-1] == '\n';
}

/* --flame-graph: every column holding folded lines feeds the flame graph */
static void collect_folded(struct output *o, sqlite3_stmt *st, const char *window)
{
	for (int i = 0; i < sqlite3_column_count(st); i++) {
		const char *v;

		if (sqlite3_column_type(st, i) != SQLITE_TEXT) /* before _text() converts it */
			continue;
		v = (const char *)sqlite3_column_text(st, i);
		if (folded_is(v))
			flame__add(o->flame, v, window);
	}
}

/* (4) every write checked: a failed one (an earlier one of the statement, or the flush) is
 * o->write_error, or o->broken_pipe for EPIPE; what could not be written is dropped, so it is
 * not written late as part of the next window */
static void flushed(struct output *o)
{
	int err;

	errno = 0;
	if (fflush(o->f) != EOF && !ferror(o->f))
		return;
	err = errno ? errno : EIO;
	__fpurge(o->f);
	clearerr(o->f);
	if (err == EPIPE)
		o->broken_pipe = true;
	else
		o->write_error = err;
}

/* all of buf to fd; 0 or an errno (a short write that makes no progress: the disk is full) */
static int write_all(int fd, const char *buf, size_t len)
{
	while (len) {
		ssize_t n = write(fd, buf, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? errno : ENOSPC;
		buf += n;
		len -= (size_t)n;
	}
	return 0;
}

/*
 * A regular file: the rows are rendered in memory and written in chunks of OUT_CHUNK bytes
 * (whole rows each), so a large result costs no more memory than a small one. After each row
 * and at the end (end), the chunk is written once it is big enough; a failed write is
 * o->write_error, and output__statement() cuts the file back to where the statement started.
 */
#define OUT_CHUNK ((long)1 << 20)

static void spill(struct output *o, bool end)
{
	int err;

	if (!o->real || (!end && ftell(o->f) < OUT_CHUNK))
		return;
	fclose(o->f);
	if (!o->write_error && o->mlen && (err = write_all(fileno(o->real), o->mbuf, o->mlen)))
		o->write_error = err;
	free(o->mbuf);
	o->mbuf = NULL;
	o->mlen = 0;
	o->f = end ? o->real : open_memstream(&o->mbuf, &o->mlen);
	if (!o->f) { /* no memory for the next chunk: the rest goes straight to the file */
		o->f = o->real;
		o->real = NULL;
	}
}

static int render(struct output *o, sqlite3_stmt *st, int nth, const char *window_start);

/*
 * A regular file gets each statement's rows whole or not at all: they are rendered in memory,
 * then written chunk by chunk (spill()); a failed write (disk full) cuts the file back to
 * where the statement started, is reported through o->write_error, and the next window tries
 * again.
 */
int output__statement(struct output *o, sqlite3_stmt *st, int nth, const char *window_start)
{
	FILE *real = o->f;
	struct stat sb;
	long long at;
	int rc;

	o->write_error = 0;
	if (o->mode == OUT_PPROF) /* written once the run ends (cli/run.c) */
		return pprof__statement(o->pprof, st);
	if (fstat(fileno(real), &sb) || !S_ISREG(sb.st_mode))
		return render(o, st, nth, window_start);
	fflush(real);
	at = lseek(fileno(real), 0, SEEK_END);
	o->mbuf = NULL;
	o->mlen = 0;
	if (!(o->f = open_memstream(&o->mbuf, &o->mlen))) {
		o->f = real;
		return render(o, st, nth, window_start);
	}
	o->real = real;
	rc = render(o, st, nth, window_start);
	spill(o, true);
	o->f = real;
	o->real = NULL;
	if (o->write_error) {
		if (at >= 0 && ftruncate(fileno(real), at) == 0)
			lseek(fileno(real), at, SEEK_SET);
		if (nth < 31) /* a CSV header not written is written again */
			o->headers_done &= ~(1 << nth);
	}
	return rc;
}

static int render(struct output *o, sqlite3_stmt *st, int nth, const char *window_start)
{
	const char *window = o->windowed ? window_start : NULL;
	struct grid g = { .nc = sqlite3_column_count(st) };
	int rc;

	if (!(g.names = column_names(st, o->windowed && o->mode != OUT_TABLE)))
		return SQLITE_NOMEM;
	if (o->mode == OUT_TABLE) {
		g.numeric = malloc((size_t)(g.nc + 1) * sizeof(bool));
		g.width = malloc((size_t)(g.nc + 1) * sizeof(int));
		if (!g.numeric || !g.width) {
			grid_free(&g);
			return SQLITE_NOMEM;
		}
		for (int i = 0; i < g.nc; i++)
			g.numeric[i] = true;
	}
	if (o->mode == OUT_CSV && g.nc)
		csv_header(o, st, nth, g.names);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (o->flame)
			collect_folded(o, st, window);
		if (o->want_heatmap)
			collect_heatmap(o, st);
		if (o->mode == OUT_TABLE && (rc = grid_add(&g, st)) == SQLITE_OK)
			grid_spill(o, &g, st, window, false);
		else if (o->mode == OUT_CSV)
			csv_row(o, st, window);
		else
			json_row(o, st, window, g.names);
		if (rc != SQLITE_ROW && rc != SQLITE_OK)
			break;
		spill(o, false);
	}
	if (o->mode == OUT_TABLE && g.nc && (rc == SQLITE_DONE))
		grid_spill(o, &g, st, window, true);
	grid_free(&g);
	flushed(o);
	return rc == SQLITE_DONE ? SQLITE_OK : rc;
}

FILE *output__open(const char *path, struct err *e) { return outfile__create(path, 0644, e); }
