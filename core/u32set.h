/*
 * core/u32set.h - a set of non-zero 32-bit ids (tids, pids): open addressing, grows by 2.
 */
#ifndef PERF_SQL_U32SET_H
#define PERF_SQL_U32SET_H
#include <stdbool.h>
#include <stdint.h>

struct u32set {
	uint32_t *slots, nr, cap;
};

/* true if v was added now (false: already there, 0, or out of memory) */
bool u32set__add(struct u32set *set, uint32_t v);
bool u32set__has(const struct u32set *set, uint32_t v);
void u32set__free(struct u32set *set);
#endif
