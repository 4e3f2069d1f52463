/*
 * bpf/facts.h - the kernel facts the compiler asks for, from one provider: the running
 * kernel (its BTF, /sys/kernel/btf/vmlinux; perf_event_max_stack), or a file of facts written
 * on some kernel (scripts/kernel-facts.sh), so a program can be planned, compiled and listed
 * without that kernel, without privileges (perf-sql --explain --kernel-facts DIR, the goldens
 * of tests/bpf/).
 *
 *   const struct bpf_facts *f = bpf_facts__kernel(&e);           // or bpf_facts__open(path, &e)
 *   int id = bpf_facts__type_id(f, "btf_trace_sys_enter", BTF_KIND_TYPEDEF);
 *   int off = bpf_facts__member(f, "pt_regs", "di", &size);     // 112, size 8
 *
 * (1) A member is answered only when it can be loaded whole: byte-aligned, not a bitfield;
 *     anything else (missing included) is -ENOENT, as for a kernel without it.
 * (2) The file, one fact a line ('#' starts a comment):
 *       release 6.18.0                       uname -r of the kernel the facts are of
 *       nr_cpu_ids 2                         the kernel's (sizes per-CPU slots)
 *       perf_event_max_stack 127
 *       btf_type typedef btf_trace_sys_enter 4242      a type: kind, name, id
 *       btf_member pt_regs di 112 8                    struct, member, byte offset, bytes
 *     A line of another kind is an error naming the line: a file of facts is read whole or
 *     not at all.
 * (3) bpf_facts__kernel() reads the running kernel's BTF once per process (bpf/kernel_btf.h
 *     (4)); it needs no privilege (the file is 0444).
 */
#ifndef PERF_SQL_BPF_FACTS_H
#define PERF_SQL_BPF_FACTS_H
#include <stdbool.h>
#include <stdio.h>

struct err;
struct bpf_facts;

/* The running kernel's facts (kept for the process); NULL with e set (no BTF). */
const struct bpf_facts *bpf_facts__kernel(struct err *e);
/* The facts of the file at path, (2); NULL with e set. */
struct bpf_facts *bpf_facts__open(const char *path, struct err *e);
/* The facts of text (2), named origin in errors and bpf_facts__origin; NULL with e set. */
struct bpf_facts *bpf_facts__parse(const char *text, const char *origin, struct err *e);
void bpf_facts__free(struct bpf_facts *f);
/* Writes every fact the compiler may ask of f (2), with nr_cpu_ids, to out (a capture's
 * CAP_FACTS: core/capture.h); 0 or -EIO. */
int bpf_facts__write(const struct bpf_facts *f, int nr_cpu_ids, FILE *out);

/* The BTF id of the type name of kind (BTF_KIND_*), or -ENOENT */
int bpf_facts__type_id(const struct bpf_facts *f, const char *name, int kind);
/* The byte offset of member name of struct type (1) and its size into *size_out; or -ENOENT */
int bpf_facts__member(const struct bpf_facts *f, const char *type, const char *name, int *size_out);
/* perf_event_max_stack: the kernel's longest callchain */
int bpf_facts__max_stack(const struct bpf_facts *f);
/* The kernel's nr_cpu_ids, or 0: unknown (the running kernel's: the session knows) */
int bpf_facts__nr_cpu_ids(const struct bpf_facts *f);
/* Where the facts come from: "/sys/kernel/btf/vmlinux", or the file's path */
const char *bpf_facts__origin(const struct bpf_facts *f);
#endif
