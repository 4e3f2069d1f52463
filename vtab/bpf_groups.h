/*
 * vtab/bpf_groups.h - a table of the groups one BPF program aggregated (vtab/bpf_groups.c).
 */
#ifndef PERF_SQL_BPF_GROUPS_H
#define PERF_SQL_BPF_GROUPS_H
#include <sqlite3.h>

struct bpf_table;

/* Registers module name over t's groups (t NULL: removes the module); an SQLite code. */
int bpf_groups__register(sqlite3 *db, const char *name, struct bpf_table *t);
#endif
