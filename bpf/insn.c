/*
 * bpf/insn.c - the program buffer of bpf/insn.h: growing, labels, jump fix-ups.
 */
#include <assert.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include "bpf/insn.h"

static bool grow(void **p, int *cap, int need, size_t size)
{
	void *n;
	int c;

	if (need <= *cap)
		return true;
	c = *cap ? *cap * 2 : 64;
	while (c < need)
		c *= 2;
	n = realloc(*p, (size_t)c * size);
	if (!n)
		return false;
	*p = n;
	*cap = c;
	return true;
}

/* the stack a frame-pointer access touches: fp-512..fp-1, in the access's size */
static bool stack_ok(int off, int size) { return off >= -512 && off + size <= 0; }

static int size_of(uint8_t code)
{
	switch (BPF_SIZE(code)) {
	case BPF_B: return 1;
	case BPF_H: return 2;
	case BPF_W: return 4;
	default: return 8;
	}
}

/* the invariants of one instruction (bpf/insn.h (1)): registers r0-r10, r10 never written,
 * every access through r10 inside the 512-byte stack */
static void check(struct bpf_insn i)
{
	uint8_t cls = BPF_CLASS(i.code);

	assert(i.dst_reg <= BPF_REG_10 && i.src_reg <= BPF_REG_10);
	assert(!((cls == BPF_ALU64 || cls == BPF_ALU || cls == BPF_LDX) &&
		 i.dst_reg == BPF_REG_10));
	assert(!(cls == BPF_LDX && i.src_reg == BPF_REG_10) || stack_ok(i.off, size_of(i.code)));
	assert(!((cls == BPF_ST || cls == BPF_STX) && i.dst_reg == BPF_REG_10) ||
	       stack_ok(i.off, size_of(i.code)));
	(void)cls;
	(void)stack_ok;
	(void)size_of;
}

void basm__emit(struct basm *a, struct bpf_insn i)
{
	check(i);
	if (!grow((void **)&a->insn, &a->cap, a->nr + 1, sizeof(*a->insn))) {
		a->failed = true;
		return;
	}
	a->insn[a->nr++] = i;
}

int basm__label(struct basm *a)
{
	if (!grow((void **)&a->label_at, &a->cap_labels, a->nr_labels + 1, sizeof(int))) {
		a->failed = true;
		return 0;
	}
	a->label_at[a->nr_labels] = -1;
	return a->nr_labels++;
}

void basm__place(struct basm *a, int label)
{
	assert(a->failed || (label >= 0 && label < a->nr_labels));
	assert(a->failed || a->label_at[label] < 0); /* a label is placed once */
	if (label >= 0 && label < a->nr_labels)
		a->label_at[label] = a->nr;
}

static void jump(struct basm *a, struct bpf_insn i, int label)
{
	assert(a->failed || (label >= 0 && label < a->nr_labels));
	if (!grow((void **)&a->fix, &a->cap_fix, a->nr_fix + 1, sizeof(*a->fix))) {
		a->failed = true;
		return;
	}
	a->fix[a->nr_fix++] = (struct basm_fix){ a->nr, label };
	basm__emit(a, i);
}

void basm__jmp_imm(struct basm *a, int op, int dst, int32_t imm, int label)
{
	jump(a, bi_make((uint8_t)(BPF_JMP | op | BPF_K), dst, 0, 0, imm), label);
}

void basm__jmp32_imm(struct basm *a, int op, int dst, int32_t imm, int label)
{
	jump(a, bi_make((uint8_t)(BPF_JMP32 | op | BPF_K), dst, 0, 0, imm), label);
}

void basm__jmp_reg(struct basm *a, int op, int dst, int src, int label)
{
	jump(a, bi_make((uint8_t)(BPF_JMP | op | BPF_X), dst, src, 0, 0), label);
}

void basm__ja(struct basm *a, int label) { jump(a, bi_make(BPF_JMP | BPF_JA, 0, 0, 0, 0), label); }

static void ld64(struct basm *a, int dst, int src, int32_t lo, int32_t hi)
{
	basm__emit(a, bi_make(BPF_LD | BPF_DW | BPF_IMM, dst, src, 0, lo));
	basm__emit(a, bi_make(0, 0, 0, 0, hi));
}

void basm__ld_imm64(struct basm *a, int dst, uint64_t v)
{
	ld64(a, dst, 0, (int32_t)(uint32_t)v, (int32_t)(uint32_t)(v >> 32));
}

void basm__ld_map(struct basm *a, int dst, int map_fd)
{
	ld64(a, dst, BPF_PSEUDO_MAP_FD, map_fd, 0);
}

void basm__ld_map_value(struct basm *a, int dst, int map_fd, int32_t off)
{
	ld64(a, dst, BPF_PSEUDO_MAP_VALUE, map_fd, off);
}

void basm__note(struct basm *a, bool is_imm, const char *fmt, ...)
{
	struct basm_note *n;
	va_list ap;

	if (!grow((void **)&a->notes, &a->cap_notes, a->nr_notes + 1, sizeof(*a->notes))) {
		a->failed = true;
		return;
	}
	n = &a->notes[a->nr_notes++];
	n->at = a->nr;
	n->is_imm = is_imm;
	va_start(ap, fmt);
	vsnprintf(n->text, sizeof(n->text), fmt, ap);
	va_end(ap);
}

int basm__finish(struct basm *a)
{
	if (a->failed)
		return -ENOMEM;
	for (int i = 0; i < a->nr_fix; i++) {
		int to = a->label_at[a->fix[i].label], off = to - (a->fix[i].at + 1);

		if (to < 0)
			return -EINVAL;
		if (off < INT16_MIN || off > INT16_MAX)
			return -E2BIG;
		a->insn[a->fix[i].at].off = (int16_t)off;
	}
	return 0;
}

void basm__free(struct basm *a)
{
	free(a->insn);
	free(a->label_at);
	free(a->fix);
	free(a->notes);
	*a = (struct basm){ 0 };
}
