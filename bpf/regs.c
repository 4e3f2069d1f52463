/*
 * bpf/regs.c - where the kernel keeps what a program reads of a task's registers: struct
 * pt_regs' offsets of perf's register numbers (uprobes, a user register in its size and sign)
 * and, from the kernel's BTF, the offsets and the raw tracepoint's id tp_btf needs.
 */
#include <errno.h>
#include <stddef.h>
#include <linux/bpf_perf_event.h>
#include <linux/btf.h>
#include "bpf/compile.h"
#include "bpf/compile_int.h"
#include "bpf/facts.h"
#include "bpf/syscall.h"
#include "core/err.h"

/* perf's x86 register number (PERF_REG_X86_*) -> its offset in struct pt_regs; -1: none */
static int pt_regs_off(int reg)
{
	static const int offs[24] = {
		offsetof(struct pt_regs, rax),
		offsetof(struct pt_regs, rbx),
		offsetof(struct pt_regs, rcx),
		offsetof(struct pt_regs, rdx),
		offsetof(struct pt_regs, rsi),
		offsetof(struct pt_regs, rdi),
		offsetof(struct pt_regs, rbp),
		offsetof(struct pt_regs, rsp),
		offsetof(struct pt_regs, rip),
		offsetof(struct pt_regs, eflags),
		-1,
		-1,
		-1,
		-1,
		-1,
		-1, /* segments */
		offsetof(struct pt_regs, r8),
		offsetof(struct pt_regs, r9),
		offsetof(struct pt_regs, r10),
		offsetof(struct pt_regs, r11),
		offsetof(struct pt_regs, r12),
		offsetof(struct pt_regs, r13),
		offsetof(struct pt_regs, r14),
		offsetof(struct pt_regs, r15),
	};

	return reg >= 0 && reg < 24 ? offs[reg] : -1;
}

bool bpf_reg_readable(int reg) { return pt_regs_off(reg) >= 0; }

/* a user register (uprobes: the context is the task's struct pt_regs) in its size and sign */
void bpf_cc__load_reg(struct cc *c, const struct bpf_val *v, int r)
{
	int bits = 64 - 8 * (v->size ? v->size : 8);

	emit(c, bi_ldx(BPF_DW, r, BPF_REG_6, (int16_t)pt_regs_off(v->off)));
	if (bits) {
		emit(c, bi_alu64_imm(BPF_LSH, r, bits));
		emit(c, bi_alu64_imm(v->is_signed ? BPF_ARSH : BPF_RSH, r, bits));
	}
}

/* byte offset of member name in struct type, or -1 (none, or not loadable whole) */
static int member_off(const struct bpf_facts *f, const char *type, const char *name)
{
	int size, off = bpf_facts__member(f, type, name, &size);

	return off < 0 ? -1 : off;
}

/* tp_btf: the kernel's offsets and the raw tracepoint's BTF id, from the kernel facts f */
int bpf_kernel_btf(const struct bpf_plan *p, const struct bpf_facts *f, int *btf_id,
		   struct bpf_kernel_offs *k, struct err *e)
{
	enum bpf_hook hook = p->hook;
	int ti, st, ok;

	if (!f)
		return err_set(e, -ENOENT, "no kernel facts (BTF) for tp_btf");
	if (hook == BPF_HOOK_TP_BTF)
		return bpf_sched_btf__offs(p, f, btf_id, k, e);
	for (int i = 0; i < 6; i++)
		k->regs_arg[i] = member_off(f, "pt_regs", bpf_syscall__arg_reg(i));
	k->regs_orig_ax = member_off(f, "pt_regs", "orig_ax");
	ti = member_off(f, "task_struct", "thread_info");
	st = member_off(f, "thread_info", "status");
	k->task_status = ti < 0 || st < 0 ? -1 : ti + st;
	*btf_id = bpf_facts__type_id(
		f, hook == BPF_HOOK_SYS_ENTER ? "btf_trace_sys_enter" : "btf_trace_sys_exit",
		BTF_KIND_TYPEDEF);
	ok = *btf_id > 0 && k->regs_orig_ax >= 0 && k->task_status >= 0;
	for (int i = 0; i < 6; i++)
		ok = ok && k->regs_arg[i] >= 0;
	return ok ? 0
		  : err_set(e, -ENOENT, "%s lacks what tp_btf/sys_enter needs",
			    bpf_facts__origin(f));
}
