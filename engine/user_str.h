/*
 * engine/user_str.h - collecting the user strings a query reads (engine/user_str.c).
 */
#ifndef PERF_SQL_ENGINE_USER_STR_H
#define PERF_SQL_ENGINE_USER_STR_H
#include "engine/query.h"

/* After bpf_pick__apply: a BPF program for each table whose NAME_str a scan reads; 0, or
 * -errno with e set when a statement names one and no program can run. */
int user_str_plan__apply(struct query *q, struct session *s, const struct query_ops *ops, void *ctx,
			 struct err *e);
#endif
