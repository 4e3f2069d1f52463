/*
 * core/plan_note.c - the notes planning keeps with each table (see core/plan_note.h).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "core/plan_note.h"
#include "core/session.h"

/* fmt's text after prefix (NULL prefix: none), malloc'd; NULL: out of memory */
static char *vjoin(const char *prefix, const char *fmt, va_list ap)
{
	size_t have = prefix ? strlen(prefix) + 2 : 0;
	va_list again;
	char *out;
	int n;

	va_copy(again, ap);
	n = vsnprintf(NULL, 0, fmt, again);
	va_end(again);
	if (n < 0 || !(out = malloc(have + (size_t)n + 1)))
		return NULL;
	if (prefix)
		snprintf(out, have + 1, "%s; ", prefix);
	vsnprintf(out + have, (size_t)n + 1, fmt, ap);
	return out;
}

void plan_note__take(struct source *src, enum plan_note k, char *text)
{
	free(src->notes[k]);
	src->notes[k] = text;
}

void plan_note__set(struct source *src, enum plan_note k, const char *fmt, ...)
{
	va_list ap;

	if (!fmt) {
		plan_note__take(src, k, NULL);
		return;
	}
	va_start(ap, fmt);
	plan_note__take(src, k, vjoin(NULL, fmt, ap));
	va_end(ap);
}

void plan_note__add(struct source *src, enum plan_note k, const char *fmt, ...)
{
	char *text;
	va_list ap;

	va_start(ap, fmt);
	text = vjoin(src->notes[k], fmt, ap);
	va_end(ap);
	if (text)
		plan_note__take(src, k, text);
}

const char *plan_note__of(const struct source *src, enum plan_note k)
{
	return src->notes[k] && src->notes[k][0] ? src->notes[k] : NULL;
}

void plan_note__free_all(struct source *src)
{
	for (int k = 0; k < PLAN_NR_NOTES; k++)
		plan_note__take(src, k, NULL);
}
