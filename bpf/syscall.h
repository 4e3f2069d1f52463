/*
 * bpf/syscall.h - what perf-sql knows of x86-64 system calls, in one place: their numbers and
 * names (the UAPI table) and the record of their tracepoints, which a tp_btf program reads
 * where the kernel takes each field from (bpf/plan.h, enum bpf_hook).
 *
 *   bpf_syscall__nr("write") == 1, bpf_syscall__name(1) == "write"
 *   bpf_syscall__field(true, 24, 8) == BPF_SYSF_ARG0 + 1     sys_enter_*'s args[1]
 *
 * (1) The table is generated at build time from the kernel UAPI header
 *     (scripts/gen-syscalls.sh -> build/gen/syscalls.h), so it follows the installed headers.
 * (2) The record of syscalls:sys_enter_NAME and raw_syscalls:sys_enter: the number at byte 8
 *     (__syscall_nr, or id), argument i at 16 + 8 i (6 of them, 8 bytes each); of sys_exit*:
 *     the number at 8, the return value at 16. Every other field (a char[N], a field of
 *     another size) has no place in a tp_btf program's context.
 */
#ifndef PERF_SQL_BPF_SYSCALL_H
#define PERF_SQL_BPF_SYSCALL_H
#include <stdbool.h>
#include <stdint.h>

#define BPF_SYSCALL_NR_OFF 8   /* __syscall_nr (syscalls:*), id (raw_syscalls:*) */
#define BPF_SYSCALL_ARG_OFF 16 /* sys_enter: args[0]; args[i] at 16 + 8 i */
#define BPF_SYSCALL_RET_OFF 16 /* sys_exit: ret */
#define BPF_SYSCALL_NR_ARGS 6
#define BPF_SYSCALL_TS_COMPAT 0x0002 /* thread_info.status: an ia32 system call (arch/x86) */

enum bpf_sysf {
	BPF_SYSF_NONE = -1, /* not a field a tp_btf program reads */
	BPF_SYSF_NR = 0,
	BPF_SYSF_RET = 1,
	BPF_SYSF_ARG0 = 2, /* ARG0 + i: argument i */
};

/* The name of system call nr, or NULL (negative, a gap, past the table) */
const char *bpf_syscall__name(int64_t nr);
/* The number of the system call named name, or -1 */
int bpf_syscall__nr(const char *name);
/* The register of argument i (0..5) in struct pt_regs, x86-64's calling convention: "di" */
const char *bpf_syscall__arg_reg(int i);
/* The field at byte off of size bytes of a sys_enter (enter) or sys_exit record, (2) */
enum bpf_sysf bpf_syscall__field(bool enter, int off, int size);
#endif
