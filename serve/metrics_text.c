/*
 * serve/metrics_text.c - the text side of the metrics mapping (serve/metrics.h): a growable
 * buffer, metric and label names, escapes, numbers as the exposition formats write them, and
 * a reading of a statement's select list that says which columns are count()/sum()/total().
 *
 * (1) Escapes: label values and OpenMetrics HELP escape \ " and newline; the 0.0.4 text
 *     format's HELP escapes \ and newline only. Bytes that are not UTF-8 become U+FFFD (both
 *     formats require UTF-8).
 * (2) Numbers: integers below 2^53 as integers, other values in the shortest form that reads
 *     back the same, NaN, +Inf, -Inf.
 * (3) Statements are split at ';' outside brackets, quotes and comments; one of only blanks and
 *     comments is none (as sqlite3_prepare_v2() skips it).
 *     The select list is read with SQL's lexical rules (strings, quoted names, comments,
 *     brackets), not parsed: the first SELECT outside brackets (so after a WITH clause), its
 *     items split at commas outside brackets until FROM (or the end of the statement). An item
 *     counts when it is count(...), sum(...) or total(...), optionally with FILTER (...), and
 *     then nothing but an alias.
 */
#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "serve/metrics.h"

static int mbuf_grow(struct mbuf *b, size_t need)
{
	size_t cap = b->cap ? b->cap : 64;
	char *p;

	if (b->oom)
		return -1;
	while (cap < b->len + need + 1)
		cap *= 2;
	if (cap == b->cap)
		return 0;
	if (!(p = realloc(b->p, cap))) {
		b->oom = 1;
		return -1;
	}
	b->p = p;
	b->cap = cap;
	return 0;
}

void mbuf__put(struct mbuf *b, const char *s, size_t n)
{
	if (mbuf_grow(b, n))
		return;
	memcpy(b->p + b->len, s, n);
	b->len += n;
	b->p[b->len] = '\0';
}

void mbuf__printf(struct mbuf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0 || mbuf_grow(b, (size_t)n))
		return;
	va_start(ap, fmt);
	vsnprintf(b->p + b->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
}

void mbuf__free(struct mbuf *b)
{
	free(b->p);
	*b = (struct mbuf){ 0 };
}

/* length of the valid UTF-8 sequence at s (n bytes left), or 0 */
static size_t utf8_len(const unsigned char *s, size_t n)
{
	size_t len;
	unsigned int cp;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		len = 2, cp = s[0] & 0x1f;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		len = 3, cp = s[0] & 0x0f;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		len = 4, cp = s[0] & 0x07;
	else
		return 0;
	if (n < len)
		return 0;
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if ((len == 3 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff))) ||
	    (len == 4 && (cp < 0x10000 || cp > 0x10ffff)))
		return 0;
	return len;
}

void metrics__escape(struct mbuf *b, const char *s, size_t n, bool quote)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t i = 0, run = 0;

	while (i < n) {
		size_t len = utf8_len(u + i, n - i);
		const char *rep = NULL;

		if (!len)
			rep = "\xef\xbf\xbd";
		else if (u[i] == '\\')
			rep = "\\\\";
		else if (u[i] == '\n')
			rep = "\\n";
		else if (u[i] == '"' && quote)
			rep = "\\\"";
		if (!rep) {
			i += len;
			run += len;
			continue;
		}
		mbuf__put(b, s + i - run, run);
		mbuf__put(b, rep, strlen(rep));
		run = 0;
		i += len ? len : 1;
	}
	mbuf__put(b, s + i - run, run);
}

void metrics__format_value(double v, char *buf, size_t len)
{
	if (isnan(v)) {
		snprintf(buf, len, "NaN");
	} else if (isinf(v)) {
		snprintf(buf, len, v > 0 ? "+Inf" : "-Inf");
	} else if (v == floor(v) && fabs(v) < 9007199254740992.0) {
		snprintf(buf, len, "%lld", (long long)v);
	} else {
		for (int prec = 15; prec <= 17; prec++) {
			snprintf(buf, len, "%.*g", prec, v);
			if (strtod(buf, NULL) == v)
				break;
		}
	}
}

void metrics__sanitize(char *out, size_t len, const char *in)
{
	size_t o = 0;

	for (const char *p = in; *p && o + 1 < len; p++) {
		char c = isalnum((unsigned char)*p) ? *p : '_';

		if (c == '_' && o > 0 && out[o - 1] == '_')
			continue;
		out[o++] = c;
	}
	while (o > 0 && out[o - 1] == '_')
		o--;
	out[o] = '\0';
}

/* ---------------------------------------------------------------- the select list (3) */

struct lex {
	const char *p;
	int depth;
};

/* skips blanks, comments and one quoted token; returns the start of the next plain char */
static void lex_skip(struct lex *l)
{
	for (;;) {
		const char *p = l->p;

		while (isspace((unsigned char)*p))
			p++;
		if (p[0] == '-' && p[1] == '-') {
			p += strcspn(p, "\n");
		} else if (p[0] == '/' && p[1] == '*') {
			const char *e = strstr(p + 2, "*/");

			p = e ? e + 2 : p + strlen(p);
		} else if (*p == '\'' || *p == '"' || *p == '`' || *p == '[') {
			char close = *p == '[' ? ']' : *p;

			for (p++; *p; p++)
				if (*p == close && !(close != ']' && p[1] == close && p++))
					break;
			if (*p)
				p++;
		} else {
			l->p = p;
			return;
		}
		l->p = p;
	}
}

/* the next token: a word (length in *n), or one character; "" at the end */
static const char *lex_next(struct lex *l, size_t *n)
{
	const char *t;

	lex_skip(l);
	t = l->p;
	if (!*t) {
		*n = 0;
		return t;
	}
	if (isalnum((unsigned char)*t) || *t == '_') {
		while (isalnum((unsigned char)*l->p) || *l->p == '_' || *l->p == '$')
			l->p++;
	} else {
		if (*t == '(')
			l->depth++;
		else if (*t == ')')
			l->depth--;
		l->p++;
	}
	*n = (size_t)(l->p - t);
	return t;
}

static bool word_is(const char *t, size_t n, const char *w)
{
	return n == strlen(w) && !strncasecmp(t, w, n);
}

/* after "(": to the matching ")"; false at the end of the text */
static bool lex_close(struct lex *l)
{
	int d = l->depth - 1;
	size_t n;

	for (;;) {
		lex_next(l, &n);
		if (!n)
			return false;
		if (l->depth == d)
			return true;
	}
}

/* is t (n bytes) the end of a select item: its comma, FROM, ';' or the end of the text? */
static bool item_end(const struct lex *l, const char *t, size_t n)
{
	return !n ||
	       (l->depth == 0 && ((n == 1 && (*t == ',' || *t == ';')) || word_is(t, n, "from")));
}

/*
 * One select item from its first token t, read to its end; whether it counts. After the call
 * may come FILTER (...), then AS, then one name (quoted names are skipped as blanks), in that
 * order; anything else (an operator, OVER (...)) and it does not count. *more: a comma ended it.
 */
static bool item_counts(struct lex *l, const char *t, size_t n, bool *more)
{
	bool counts = word_is(t, n, "count") || word_is(t, n, "sum") || word_is(t, n, "total");
	int phase =
		0; /* 0 right after the call, 1 after FILTER (...), 2 after AS, 3 after a name */

	t = lex_next(l, &n);
	if (counts) {
		counts = n == 1 && *t == '(' && lex_close(l);
		t = lex_next(l, &n);
	}
	while (!item_end(l, t, n)) {
		if (!counts) {
		} else if (phase == 0 && word_is(t, n, "filter")) {
			t = lex_next(l, &n);
			counts = n == 1 && *t == '(' && lex_close(l);
			phase = 1;
		} else if (phase < 2 && word_is(t, n, "as")) {
			phase = 2;
		} else if (phase < 3 && (isalpha((unsigned char)*t) || *t == '_')) {
			phase = 3;
		} else {
			counts = false;
		}
		t = lex_next(l, &n);
	}
	*more = n == 1 && *t == ',';
	return counts;
}

void metrics__counted_columns(const char *sql, int nr, unsigned char *counts)
{
	struct lex l = { sql, 0 };
	bool more = true;
	const char *t;
	size_t n;
	int i = 0;

	memset(counts, 0, (size_t)nr);
	do {
		t = lex_next(&l, &n);
	} while (n && !(l.depth == 0 && (word_is(t, n, "select") || (n == 1 && *t == ';'))));
	if (!n || *t == ';')
		return;
	t = lex_next(&l, &n);
	if (word_is(t, n, "distinct") || word_is(t, n, "all"))
		t = lex_next(&l, &n);
	while (more && n && i <= nr) {
		bool c = item_counts(&l, t, n, &more);

		if (i < nr)
			counts[i] = c;
		i++;
		if (more)
			t = lex_next(&l, &n);
	}
	if (i != nr) /* a `*`, or a list this reading does not follow: no counters */
		memset(counts, 0, (size_t)nr);
}

int metrics__split(const char *sql, const char **starts, int max)
{
	struct lex l = { sql, 0 };
	const char *t, *start = NULL;
	size_t n;
	int nr = 0;

	for (;;) {
		t = lex_next(&l, &n);
		if (!n || (l.depth == 0 && n == 1 && *t == ';')) {
			if (start && nr < max)
				starts[nr] = start;
			nr += start != NULL;
			start = NULL;
			if (!n)
				return nr;
		} else if (!start) {
			start = t;
		}
	}
}
