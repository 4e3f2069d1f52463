/*
 * bpf/kernel_btf.h - a small reader of the kernel's raw BTF (/sys/kernel/btf/vmlinux) that
 * answers what perf-sql's programs need of it: the id of a type by name and kind, and where a
 * member of a struct or union lies. It replaces libbpf's btf__load_vmlinux_btf(), which
 * builds a full, deduplicating model of ~6 MB of types to answer a handful of questions.
 *
 *   struct err e = { 0 };
 *   const struct kernel_btf *b = kernel_btf__vmlinux(&e);
 *   struct kernel_btf_member m;
 *   int id = b ? kernel_btf__find(b, "btf_trace_sys_enter", BTF_KIND_TYPEDEF) : e.code;
 *   int ret = kernel_btf__member(b, BTF_KIND_STRUCT, "pt_regs", "di", &m);  // m.bit_off / 8
 *
 * (1) One pass over the type section validates the header and the bounds of every type (a
 *     truncated or hostile blob: NULL, -EINVAL and one line naming the byte at fault) and
 *     records where each type starts; ids start at 1, as in the kernel.
 * (2) Lookups return the first match, as libbpf's btf__find_by_name_kind() does.
 * (3) Members are matched by name among the named members only: anonymous struct/union
 *     members are not descended into (none of the members perf-sql asks for lies in one).
 * (4) kernel_btf__vmlinux() reads the file once per process (mmap where the kernel allows
 *     it, 6.16+; read() otherwise) and keeps it: every table after the first costs lookups.
 */
#ifndef PERF_SQL_KERNEL_BTF_H
#define PERF_SQL_KERNEL_BTF_H
#include <stddef.h>
#include <stdint.h>
#include <linux/btf.h>

struct err;
struct kernel_btf;

struct kernel_btf_member {
	uint32_t bit_off;       /* from the start of the struct */
	uint32_t bitfield_size; /* bits of a bitfield; 0: not a bitfield */
	uint32_t type;          /* the member's type id */
};

/* Parses blob data (borrowed: it must outlive the result); NULL with e set on bad input. */
struct kernel_btf *kernel_btf__parse(const void *data, size_t size, struct err *e);
/* Reads and parses the raw BTF file at path; NULL with e set. */
struct kernel_btf *kernel_btf__open(const char *path, struct err *e);
void kernel_btf__free(struct kernel_btf *b);
/* /sys/kernel/btf/vmlinux, read on the first call and kept for the process (thread-safe);
 * NULL with e set (each call reports the first call's error) */
const struct kernel_btf *kernel_btf__vmlinux(struct err *e);

/* The number of types (ids 1..nr) */
uint32_t kernel_btf__nr_types(const struct kernel_btf *b);
/* The id of the first type named name of kind (BTF_KIND_*), or -ENOENT */
int kernel_btf__find(const struct kernel_btf *b, const char *name, int kind);
/* Member name of the struct or union (kind) named type into m_out; 0, or -ENOENT */
int kernel_btf__member(const struct kernel_btf *b, int kind, const char *type, const char *name,
		       struct kernel_btf_member *m_out);
/* The bytes of type id (through typedefs and qualifiers; an array's elements), or -EINVAL */
int kernel_btf__size(const struct kernel_btf *b, uint32_t id);
#endif
