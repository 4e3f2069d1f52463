/*
 * core/kfilter.h - building ftrace filter strings (PERF_EVENT_IOC_SET_FILTER) from the
 * constraints a query's WHERE gives a tracepoint table, and combining several scans' filters.
 */
#ifndef PERF_SQL_KFILTER_H
#define PERF_SQL_KFILTER_H
#include <stdbool.h>
#include <stddef.h>

/* The longest filter the kernel takes, NUL included: PERF_EVENT_IOC_SET_FILTER copies at most
 * a page (strndup_user(arg, PAGE_SIZE): 4095 characters on 4 KiB pages; EINVAL past that) */
#define KFILTER_MAX 4096

enum kf_op { KF_EQ, KF_NE, KF_LT, KF_LE, KF_GT, KF_GE, KF_GLOB };

struct kf_value {
	bool is_str;
	long long i;
	const char *s;
};

struct kfilter {
	char buf[KFILTER_MAX];
	size_t len;
	bool overflow;
};

/* Adds the conjunct "name op v" (several values: "(name == v1 || name == v2)"; only KF_EQ).
 * A value ftrace cannot take (a string with a quote or backslash) drops the conjunct: the
 * filter only gets weaker, and SQLite still checks every row. Returns true if added. */
bool kfilter__and(struct kfilter *kf, const char *name, enum kf_op op, const struct kf_value *v,
		  int nr);
/* The filter text, or NULL when empty or too long for one filter. */
const char *kfilter__str(const struct kfilter *kf);
/* "(a) || (b)" of the distinct filters of several scans into out (the OR of their rows);
 * false, with out unchanged, when the result would not fit in len. */
bool kfilter__or(char *out, size_t len, const char *add);
#endif
