/*
 * bpf/listing.h - a table's BPF programs built from its plan and the kernel facts, and printed
 * one instruction a line as `bpftool prog dump xlated` prints a loaded one, with the maps by
 * name and what each number from the kernel's BTF is (docs/bpf.md, "Reading the listing").
 *
 *   struct bpf_listing l;
 *   bpf_listing__plan(&plan, nr_windows_maps, facts, &l, &e);   // no kernel, no privilege
 *   fputs(l.text, stdout);
 *      0: (bf) r6 = r1
 *      1: (18) r1 = map[ctl][0]+0
 *      3: (61) r2 = *(u32 *)(r1 +0)
 *      4: (15) if r2 == 0x0 goto pc+60
 *      ...
 *     12: (79) r1 = *(u64 *)(r1 +120)           ; pt_regs.orig_ax
 *   bpf_listing__free(&l);
 *
 * (1) The same plan and facts give the same instructions, whether loaded (bpf/table.c builds
 *     through bpf_prog__build() too) or only listed: a listing made offline from a file of
 *     facts is the one the kernel the facts are of would get (tests/live/bpf_golden.sh).
 * (2) Maps are named for their role, not their fd: ctl, stats, outer, groups, zero, stacks,
 *     pending, pair_counts, tasks. A number that varies from run to run (perf-sql's own
 *     thread, left out) is printed by name (self_tid).
 * (3) A pairs() end table lists both programs: the start's, then the end's.
 */
#ifndef PERF_SQL_BPF_LISTING_H
#define PERF_SQL_BPF_LISTING_H
#include <stddef.h>
#include "bpf/compile.h"

struct bpf_facts;
struct err;

struct bpf_listing {
	char *text;        /* the listing (malloc) */
	int nr_insns;      /* of the table's program (pairs(): the end's) */
	int nr_start;      /* pairs(): the start program's, else 0 */
	const char *facts; /* where the kernel facts came from (bpf_facts__origin) */
};

/*
 * Builds plan p's program over maps m: the kernel facts its hook needs (f; NULL: the running
 * kernel's) into its offsets, then the instructions into a (empty); the raw tracepoint's BTF
 * id into *btf_id. 0, or -errno with e set (no such fact, a plan the compiler refuses).
 */
int bpf_prog__build(const struct bpf_plan *p, const struct bpf_prog_maps *m,
		    const struct bpf_facts *f, int *btf_id, struct basm *a, struct err *e);
/* a map's fd and the name the listing gives it */
struct bpf_map_name {
	int fd;
	const char *name;
};
/* Appends "WHAT program, N insns:" and the listing of a's instructions to *text (malloc'd,
 * grown), maps named by names[nr]; 0 or -ENOMEM. */
int bpf_listing__insns(const struct basm *a, const char *what, const struct bpf_map_name *names,
		       int nr, char **text);
/*
 * The listing of p's program(s) as a table of nr_maps group maps (1, or 2 swapped per window)
 * would load them, built from the facts f without a kernel: into l; 0, or -errno with e set.
 */
int bpf_listing__plan(const struct bpf_plan *p, int nr_maps, const struct bpf_facts *f,
		      struct bpf_listing *l, struct err *e);
/* The listing of loaded table t's program(s), its maps named from its fds: (1) says it is the
 * one loaded. 0, or -errno with e set. */
struct bpf_table;
int bpf_listing__table(const struct bpf_table *t, struct bpf_listing *l, struct err *e);
void bpf_listing__free(struct bpf_listing *l);
#endif
