/*
 * core/kfilter.c - ftrace filter strings (see core/kfilter.h).
 *
 * (1) Numbers print as integers; strings in double quotes (ftrace has no escapes, so a value
 *     with '"' or '\' is not pushed).
 * (2) Conjuncts join with " && "; IN lists become a parenthesised " || " of equalities.
 * (3) Scans that need different rows of one table OR their filters; a repeated filter is
 *     not added twice.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "core/kfilter.h"

static const char *const kf_ops[] = { "==", "!=", "<", "<=", ">", ">=", "~" };

static void put(struct kfilter *kf, const char *fmt, const char *a, const char *b)
{
	int n = snprintf(kf->buf + kf->len, sizeof(kf->buf) - kf->len, fmt, a, b);

	if (n < 0 || (size_t)n >= sizeof(kf->buf) - kf->len)
		kf->overflow = true;
	else
		kf->len += (size_t)n;
}

static bool value_text(const struct kf_value *v, enum kf_op op, char *out, size_t len)
{
	if (!v->is_str) {
		if (op == KF_GLOB)
			return false;
		snprintf(out, len, "%lld", v->i);
		return true;
	}
	if (strpbrk(v->s, "\"\\") || strlen(v->s) + 3 > len)
		return false;
	snprintf(out, len, "\"%s\"", v->s);
	return true;
}

bool kfilter__and(struct kfilter *kf, const char *name, enum kf_op op, const struct kf_value *v,
		  int nr)
{
	char text[256];

	if (nr < 1 || (nr > 1 && op != KF_EQ))
		return false;
	for (int i = 0; i < nr; i++)
		if (!value_text(&v[i], op, text, sizeof(text)))
			return false;
	if (kf->len)
		put(kf, "%s%s", " && ", "");
	if (nr > 1)
		put(kf, "%s%s", "(", "");
	for (int i = 0; i < nr; i++) {
		value_text(&v[i], op, text, sizeof(text));
		if (i)
			put(kf, "%s%s", " || ", "");
		put(kf, "%s %s", name, kf_ops[op]);
		put(kf, " %s%s", text, "");
	}
	if (nr > 1)
		put(kf, "%s%s", ")", "");
	return true;
}

const char *kfilter__str(const struct kfilter *kf)
{
	return kf->len && !kf->overflow ? kf->buf : NULL;
}

bool kfilter__or(char *out, size_t len, const char *add)
{
	size_t have = strlen(out), need;
	bool wrap_first;
	char *wrapped;

	if (asprintf(&wrapped, "(%s)", add) < 0)
		return false;
	if (have && (!strcmp(out, add) || strstr(out, wrapped))) {
		free(wrapped);
		return true;
	}
	/* the first filter gets its parentheses when a second one arrives */
	wrap_first = have && (out[0] != '(' || !strstr(out, ") || ("));
	need = have ? have + (wrap_first ? 2 : 0) + 4 + strlen(wrapped) : strlen(add);
	if (need >= len) {
		free(wrapped);
		return false;
	}
	if (!have) {
		memcpy(out, add, need + 1);
	} else {
		if (wrap_first) {
			memmove(out + 1, out, have);
			out[0] = '(';
			out[have + 1] = ')';
			have += 2;
		}
		snprintf(out + have, len - have, " || %s", wrapped);
	}
	free(wrapped);
	return true;
}
