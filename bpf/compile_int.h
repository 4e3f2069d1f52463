/*
 * bpf/compile_int.h - what bpf/compile.c shares with the files that emit parts of its program
 * (bpf/stack.c: a stack key). Not for other files.
 */
#ifndef PERF_SQL_BPF_COMPILE_INT_H
#define PERF_SQL_BPF_COMPILE_INT_H
#include "bpf/compile.h"

#define FP BPF_REG_10

struct cc {
	const struct bpf_plan *p;
	const struct bpf_prog_maps *m;
	const struct bpf_kernel_offs *k;
	struct basm *a;
	int out; /* label: return 1 */
	int key; /* fp offset of the key */
};

void emit(struct cc *c, struct bpf_insn i);
/* ++stats[cpu] at byte off of the stats value, then return */
void count_lost(struct cc *c, int off);
/* bpf/stack.c: the stack key at fp+at (bpf/plan.h (5)) */
void stack_key(struct cc *c, int at);
#endif
