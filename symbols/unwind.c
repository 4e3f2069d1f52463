/*
 * symbols/unwind.c - CFI unwinding of copied user stacks (see symbols/unwind.h).
 *
 * HOW IT WORKS
 * (1) The registers the kernel sampled (rip, rsp, rbp, rbx, r12-r15, ...) are the innermost
 *     frame. Each step finds the mapping of the frame's pc, turns pc into an address in the
 *     ELF file, and asks libdw for the CFI row there (dso__cfi(): .eh_frame, else
 *     .debug_frame; parsed once per binary and shared by every process mapping it).
 * (2) The row gives the CFA (a DWARF expression over this frame's registers) and a rule per
 *     register: undefined, same value, or a DWARF location/value expression (libdw writes
 *     "saved at CFA+N" as DW_OP_call_frame_cfa, DW_OP_plus_uconst N). eval() runs them; memory
 *     is read only from the stack copy, so a walk can never touch the live process.
 * (3) The caller's rsp is the CFA, its pc the return-address column. A return address is
 *     looked up at pc - 1 (the call may be a function's last instruction), except the sampled
 *     pc and the pc a signal frame interrupted.
 * (4) The walk ends cleanly where the CFI says the return address is undefined (glibc's _start
 *     and thread start); it stops (not cleanly) at a pc with no mapping, a read past the copy,
 *     a stack that does not grow toward its base, or max frames. A pc with no CFI (JIT code, a
 *     binary without .eh_frame) is stepped by its frame pointer: rbp -> [saved rbp, return].
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <dwarf.h>
#include <linux/perf_event.h>
#include "core/session.h"
#include "symbols/dso.h"
#include "symbols/unwind.h"

#define NR_REGS 17 /* DWARF x86-64: rax rdx rcx rbx rsi rdi rbp rsp r8-r15, 16 = rip */
#define REG_BP 6
#define REG_SP 7
#define REG_IP 16

/* DWARF register -> its slot among the sampled ones (UPROBE_REGS_MASK: ax bx cx dx si di bp sp
 * ip r8..r15) */
static const int8_t perf_slot[NR_REGS] = {
	0, 3, 2, 1, 4, 5, 6, 7, 9, 10, 11, 12, 13, 14, 15, 16, 8
};

struct regs {
	uint64_t v[NR_REGS];
	uint32_t valid; /* bit per register */
};

struct walk {
	const uint8_t *stack;
	uint64_t base; /* the sampled rsp: stack[0] is there */
	size_t len;
};

static bool read_u64(const struct walk *w, uint64_t addr, uint64_t *out)
{
	if (addr < w->base || addr - w->base > w->len || w->len - (addr - w->base) < 8)
		return false;
	memcpy(out, w->stack + (addr - w->base), 8);
	return true;
}

static bool reg_get(const struct regs *r, uint64_t n, uint64_t *out)
{
	if (n >= NR_REGS || !(r->valid & (1u << n)))
		return false;
	*out = r->v[n];
	return true;
}

/* a two-operand DW_OP on the top of the stack (st[sp - 2] OP st[sp - 1]) */
static bool binop(uint8_t atom, uint64_t a, uint64_t b, uint64_t *out)
{
	switch (atom) {
	case DW_OP_plus: *out = a + b; return true;
	case DW_OP_minus: *out = a - b; return true;
	case DW_OP_mul: *out = a * b; return true;
	case DW_OP_and: *out = a & b; return true;
	case DW_OP_or: *out = a | b; return true;
	case DW_OP_xor: *out = a ^ b; return true;
	case DW_OP_shl: *out = b < 64 ? a << b : 0; return true;
	case DW_OP_shr: *out = b < 64 ? a >> b : 0; return true;
	case DW_OP_shra: *out = b < 64 ? (uint64_t)((int64_t)a >> b) : 0; return true;
	case DW_OP_eq: *out = a == b; return true;
	case DW_OP_ne: *out = a != b; return true;
	case DW_OP_lt: *out = (int64_t)a < (int64_t)b; return true;
	case DW_OP_le: *out = (int64_t)a <= (int64_t)b; return true;
	case DW_OP_gt: *out = (int64_t)a > (int64_t)b; return true;
	case DW_OP_ge: *out = (int64_t)a >= (int64_t)b; return true;
	default: return false;
	}
}

/*
 * A CFI expression over this frame's registers r (cfa: the CFA, for DW_OP_call_frame_cfa).
 * *out is its value; loc: it is a location (the caller's value is read there) unless it ends
 * in DW_OP_stack_value. Branches and other ops CFI does not use are refused.
 */
static bool eval(const struct walk *w, const Dwarf_Op *ops, size_t nops, const struct regs *r,
		 uint64_t cfa, uint64_t *out, bool *loc)
{
	uint64_t st[16], v;
	size_t sp = 0;

	*loc = true;
	for (size_t i = 0; i < nops; i++) {
		uint8_t a = ops[i].atom;

		if (sp == 16)
			return false;
		if (a >= DW_OP_lit0 && a <= DW_OP_lit31) {
			st[sp++] = a - DW_OP_lit0;
		} else if (a >= DW_OP_breg0 && a <= DW_OP_breg31) {
			if (!reg_get(r, a - DW_OP_breg0, &v))
				return false;
			st[sp++] = v + ops[i].number;
		} else if (a == DW_OP_bregx) {
			if (!reg_get(r, ops[i].number, &v))
				return false;
			st[sp++] = v + ops[i].number2;
		} else if ((a >= DW_OP_const1u && a <= DW_OP_consts) || a == DW_OP_addr) {
			st[sp++] = ops[i].number;
		} else if (a == DW_OP_call_frame_cfa) {
			st[sp++] = cfa;
		} else if (a == DW_OP_stack_value) {
			*loc = false;
		} else if (a == DW_OP_nop) {
		} else if (a == DW_OP_dup && sp) {
			st[sp] = st[sp - 1];
			sp++;
		} else if (a == DW_OP_drop && sp) {
			sp--;
		} else if (a == DW_OP_swap && sp >= 2) {
			v = st[sp - 1];
			st[sp - 1] = st[sp - 2];
			st[sp - 2] = v;
		} else if (a == DW_OP_deref && sp) {
			if (!read_u64(w, st[sp - 1], &st[sp - 1]))
				return false;
		} else if (a == DW_OP_plus_uconst && sp) {
			st[sp - 1] += ops[i].number;
		} else if (a == DW_OP_neg && sp) {
			st[sp - 1] = -st[sp - 1];
		} else if (a == DW_OP_not && sp) {
			st[sp - 1] = ~st[sp - 1];
		} else if (sp >= 2 && binop(a, st[sp - 2], st[sp - 1], &v)) {
			st[--sp - 1] = v;
		} else {
			return false;
		}
	}
	if (!sp)
		return false;
	*out = st[sp - 1];
	return true;
}

/* no CFI for this pc: the frame-pointer rule, if rbp points up the copied stack */
static int fp_step(const struct walk *w, struct regs *r)
{
	uint64_t bp, ra, saved_bp;

	if (!reg_get(r, REG_BP, &bp) || bp < r->v[REG_SP] || !read_u64(w, bp, &saved_bp) ||
	    !read_u64(w, bp + 8, &ra))
		return -1;
	r->v[REG_BP] = saved_bp;
	r->v[REG_SP] = bp + 16;
	r->v[REG_IP] = ra;
	r->valid = 1u << REG_BP | 1u << REG_SP | 1u << REG_IP;
	return 1;
}

/* the caller's value of register reg: 1, 0 if the CFI says it is undefined, -1 if it cannot
 * be had (a read past the copy, a register this frame lost) */
static int caller_reg(const struct walk *w, Dwarf_Frame *f, int reg, const struct regs *r,
		      uint64_t cfa, uint64_t *out)
{
	Dwarf_Op mem[3], *ops;
	size_t nops;
	bool loc;

	if (dwarf_frame_register(f, reg, mem, &ops, &nops))
		return -1;
	if (!nops && ops == mem)
		return 0;
	if (!nops) /* the same value as in this frame */
		return reg_get(r, (uint64_t)reg, out) ? 1 : -1;
	if (!eval(w, ops, nops, r, cfa, out, &loc))
		return -1;
	return !loc || read_u64(w, *out, out) ? 1 : -1;
}

/*
 * One frame up: r (this frame's registers) becomes its caller's. 1: stepped; 0: this was the
 * outermost frame; -1: cannot go on. *exact_out: the caller's pc is not a return address.
 */
static int step(struct symbols *sy, uint32_t pid, const struct walk *w, struct regs *r, bool exact,
		bool *exact_out)
{
	uint64_t pc = r->v[REG_IP], vaddr, cfa, v;
	struct dso *d = symbols__dso_at(sy, pid, exact ? pc : pc - 1, &vaddr);
	struct regs n = { .valid = 0 };
	Dwarf_Frame *f = NULL;
	Dwarf_Op *ops;
	size_t nops;
	bool signal = false, loc;
	int ra, ret = -1;

	*exact_out = false;
	if (!d)
		return -1;
	if (!dso__cfi(d, vaddr, &f))
		return fp_step(w, r);
	ra = dwarf_frame_info(f, &(Dwarf_Addr){ 0 }, &(Dwarf_Addr){ 0 }, &signal);
	if (ra < 0 || ra >= NR_REGS || dwarf_frame_cfa(f, &ops, &nops) || !nops ||
	    !eval(w, ops, nops, r, 0, &cfa, &loc))
		goto out;
	ret = caller_reg(w, f, ra, r, cfa, &v); /* undefined: this is the outermost frame */
	if (ret <= 0)
		goto out;
	ret = -1;
	for (int reg = 0; reg < NR_REGS; reg++)
		if (reg != ra && caller_reg(w, f, reg, r, cfa, &n.v[reg]) > 0)
			n.valid |= 1u << reg;
	n.v[REG_SP] = cfa; /* the caller's rsp is the CFA, whatever rule rsp has */
	n.v[REG_IP] = v;
	n.valid |= 1u << REG_SP | 1u << REG_IP;
	if (!v || (cfa <= r->v[REG_SP] && !signal))
		goto out; /* no progress: a loop, or garbage */
	*r = n;
	*exact_out = signal;
	ret = 1;
out:
	free(f);
	return ret;
}

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

size_t unwind__user(struct symbols *sy, uint32_t pid, const uint64_t *regs, const uint8_t *stack,
		    size_t stack_len, uint64_t *out, size_t max, bool *clean_out)
{
	struct walk w = { stack, 0, stack_len };
	struct regs r = { .valid = 0 };
	size_t n = 0;
	bool exact = true;
	int ret = 1;

	*clean_out = false;
	if (!regs || !max)
		return 0;
	for (int i = 0; i < NR_REGS; i++)
		memcpy(&r.v[i], &regs[perf_slot[i]], 8);
	r.valid = (1u << NR_REGS) - 1;
	w.base = r.v[REG_SP];
	out[n++] = r.v[REG_IP];
	while (n < max && (ret = step(sy, pid, &w, &r, exact, &exact)) > 0)
		out[n++] = r.v[REG_IP];
	*clean_out = ret == 0;
	return n;
}

/* a u64 of a ring record (8-aligned in the kernel's layout; copied, to be safe) */
static uint64_t at(const uint64_t *p, size_t i)
{
	uint64_t v;

	memcpy(&v, &p[i], 8);
	return v;
}

/* Whether the kernel's frame-pointer step from pc is right: the CFI there (if the binary has
 * any) computes the CFA from rbp, as code that keeps frame pointers does; or pc is the sampled
 * one and its function leaves rbp as it was (a leaf such as a syscall wrapper: the step is then
 * its caller's, that one frame skipped, as every frame-pointer walk does). Otherwise rbp may hold
 * anything (an outer function without frame pointers may use it as it likes): the walk is cut
 * after this frame. */
static bool fp_valid(struct symbols *sy, uint32_t pid, uint64_t pc, bool exact)
{
	uint64_t vaddr;
	struct dso *d = symbols__dso_at(sy, pid, exact ? pc : pc - 1, &vaddr);
	Dwarf_Op *ops, mem[3];
	Dwarf_Frame *f;
	size_t nops;
	bool ok;

	if (!d) /* JIT code has frame pointers to go by; an address in no mapping is garbage */
		return symbols__mapped(sy, pid, pc);
	if (!dso__cfi(d, vaddr, &f))
		return true; /* no CFI: frame pointers are all there is */
	ok = !dwarf_frame_cfa(f, &ops, &nops) && nops == 1 &&
	     (ops[0].atom == DW_OP_breg0 + REG_BP ||
	      (ops[0].atom == DW_OP_bregx && ops[0].number == REG_BP));
	if (!ok && exact && !dwarf_frame_register(f, REG_BP, mem, &ops, &nops))
		ok = !nops && ops != mem; /* rbp: same value */
	free(f);
	return ok;
}

/* the frames of the kernel's user fp walk (from, nr) that hold: up to the first function that
 * does not keep rbp as its frame pointer (its caller's frame would be garbage) */
static size_t fp_frames(struct symbols *sy, uint32_t pid, const uint64_t *from, size_t nr)
{
	size_t n = 0;

	while (n < nr && fp_valid(sy, pid, at(from, n), n == 0))
		n++;
	return n < nr ? n + 1 : n;
}

size_t unwind__chain(struct symbols *sy, const struct sample *smp, uint64_t *chain, size_t max)
{
	struct unwind_stats *st = symbols__ustats(sy);
	size_t n = 0, nr_fp = 0, nu, user_at = smp->nr_stack;
	uint64_t t0 = mono_ns();
	bool clean;

	for (size_t i = 0; i < smp->nr_stack; i++)
		if (at(smp->stack, i) == (uint64_t)PERF_CONTEXT_USER) {
			user_at = i;
			nr_fp = smp->nr_stack - i - 1;
			break;
		}
	for (; n < user_at && n + 1 < max; n++) /* the kernel part, as the kernel gave it */
		chain[n] = at(smp->stack, n);
	if (n + 2 > max)
		return n;
	chain[n++] = (uint64_t)PERF_CONTEXT_USER;
	nu = unwind__user(sy, smp->pid, smp->regs, smp->user_stack, smp->user_stack_size, chain + n,
			  max - n, &clean);
	st->samples++;
	st->clean += clean;
	if (!clean && nr_fp > nu)
		nr_fp = fp_frames(sy, smp->pid, smp->stack + user_at + 1, nr_fp);
	if (!clean && nr_fp > nu) { /* auto: the kernel's frame-pointer walk went further */
		nu = nr_fp < max - n ? nr_fp : max - n;
		for (size_t i = 0; i < nu; i++)
			chain[n + i] = at(smp->stack, user_at + 1 + i);
		st->fp_kept++;
	}
	st->frames += nu;
	st->ns += mono_ns() - t0;
	return nu ? n + nu : n - 1;
}

void symbols__unwind_stats(const struct symbols *sy, struct unwind_stats *out)
{
	*out = *symbols__ustats((struct symbols *)sy);
}
