/*
 * bpf/insn.h - building eBPF instructions by hand, from the instruction set as documented in
 * the kernel's Documentation/bpf/standardization/instruction-set.rst: one struct bpf_insn
 * (<linux/bpf.h>) per 64-bit slot, opcode = class | size/op | mode/source.
 *
 *   struct basm a = { 0 };
 *   int out = basm__label(&a);
 *   basm__emit(&a, bi_mov64_reg(BPF_REG_6, BPF_REG_1));
 *   basm__jmp_imm(&a, BPF_JEQ, BPF_REG_0, 0, out);    // forward jumps by label
 *   basm__place(&a, out);
 *   basm__emit(&a, bi_mov64_imm(BPF_REG_0, 1));
 *   basm__emit(&a, bi_exit());
 *   basm__finish(&a);                                 // resolves the labels: 0 or -errno
 *
 * (1) Registers r0 (return, helper result), r1-r5 (helper arguments, clobbered by calls),
 *     r6-r9 (kept across calls), r10 (frame pointer, read-only; the stack is fp-512..fp-1).
 * (2) ALU64 works on 64 bits; a 32-bit immediate is sign-extended. BPF_DIV/BPF_MOD with
 *     off = 1 are the signed forms (cpu v4, Linux 6.6): truncation toward zero, as in C.
 * (3) A 64-bit constant takes two slots (BPF_LD | BPF_DW | BPF_IMM); src_reg =
 *     BPF_PSEUDO_MAP_FD makes it a map, BPF_PSEUDO_MAP_VALUE a pointer into an array map's
 *     value (the second slot's imm is the byte offset), both rewritten by the verifier.
 * (4) Jump offsets count instructions from the one after the jump; labels keep them right.
 */
#ifndef PERF_SQL_BPF_INSN_H
#define PERF_SQL_BPF_INSN_H
#include <stdbool.h>
#include <stdint.h>
#include <linux/bpf.h>

static inline struct bpf_insn bi_make(uint8_t code, int dst, int src, int16_t off, int32_t imm)
{
	struct bpf_insn i = { .code = code,
			      .dst_reg = (uint8_t)dst,
			      .src_reg = (uint8_t)src,
			      .off = off,
			      .imm = imm };

	return i;
}

/* dst = imm (sign-extended) / dst = src */
static inline struct bpf_insn bi_mov64_imm(int dst, int32_t imm)
{
	return bi_make(BPF_ALU64 | BPF_MOV | BPF_K, dst, 0, 0, imm);
}

static inline struct bpf_insn bi_mov64_reg(int dst, int src)
{
	return bi_make(BPF_ALU64 | BPF_MOV | BPF_X, dst, src, 0, 0);
}

/* dst OP= imm, 64 bits (op: BPF_ADD, BPF_AND, BPF_LSH, BPF_RSH, BPF_ARSH, ...) */
static inline struct bpf_insn bi_alu64_imm(int op, int dst, int32_t imm)
{
	return bi_make((uint8_t)(BPF_ALU64 | op | BPF_K), dst, 0, 0, imm);
}

static inline struct bpf_insn bi_alu64_reg(int op, int dst, int src)
{
	return bi_make((uint8_t)(BPF_ALU64 | op | BPF_X), dst, src, 0, 0);
}

/* dst = dst / src or dst % src, signed (off 1) or unsigned */
static inline struct bpf_insn bi_divmod64_reg(int op, int dst, int src, bool is_signed)
{
	return bi_make((uint8_t)(BPF_ALU64 | op | BPF_X), dst, src, is_signed ? 1 : 0, 0);
}

/* dst = *(size *)(src + off), zero-extended (size: BPF_B, BPF_H, BPF_W, BPF_DW) */
static inline struct bpf_insn bi_ldx(int size, int dst, int src, int16_t off)
{
	return bi_make((uint8_t)(BPF_LDX | BPF_MEM | size), dst, src, off, 0);
}

/* *(size *)(dst + off) = src */
static inline struct bpf_insn bi_stx(int size, int dst, int src, int16_t off)
{
	return bi_make((uint8_t)(BPF_STX | BPF_MEM | size), dst, src, off, 0);
}

/* *(size *)(dst + off) = imm */
static inline struct bpf_insn bi_st(int size, int dst, int16_t off, int32_t imm)
{
	return bi_make((uint8_t)(BPF_ST | BPF_MEM | size), dst, 0, off, imm);
}

/* lock *(u64 *)(dst + off) += src */
static inline struct bpf_insn bi_atomic_add64(int dst, int src, int16_t off)
{
	return bi_make(BPF_STX | BPF_ATOMIC | BPF_DW, dst, src, off, BPF_ADD);
}

static inline struct bpf_insn bi_call(int32_t helper)
{
	return bi_make(BPF_JMP | BPF_CALL, 0, 0, 0, helper);
}

static inline struct bpf_insn bi_exit(void) { return bi_make(BPF_JMP | BPF_EXIT, 0, 0, 0, 0); }

/* A program under construction: instructions and forward labels. */
struct basm {
	struct bpf_insn *insn;
	int nr, cap;
	int *label_at; /* label -> instruction index, -1 until placed */
	int nr_labels, cap_labels;
	struct basm_fix {
		int at, label;
	} * fix; /* jumps waiting for their label */
	int nr_fix, cap_fix;
	bool failed; /* out of memory: basm__finish says so */
	/* what the listing says beside an instruction (bpf/listing.h): where a number came from */
	struct basm_note {
		int at;
		bool is_imm; /* the immediate is this name's value (it varies: perf-sql's pid) */
		char text[44];
	} * notes;
	int nr_notes, cap_notes;
};

void basm__emit(struct basm *a, struct bpf_insn i);
int basm__label(struct basm *a);
void basm__place(struct basm *a, int label);
/* if (dst OP imm) goto label; jmp32: compare the low 32 bits only */
void basm__jmp_imm(struct basm *a, int op, int dst, int32_t imm, int label);
void basm__jmp32_imm(struct basm *a, int op, int dst, int32_t imm, int label);
void basm__jmp_reg(struct basm *a, int op, int dst, int src, int label);
void basm__ja(struct basm *a, int label);
/* dst = a 64-bit constant; dst = a map (its fd); dst = &map's value + off (array maps) */
void basm__ld_imm64(struct basm *a, int dst, uint64_t v);
void basm__ld_map(struct basm *a, int dst, int map_fd);
void basm__ld_map_value(struct basm *a, int dst, int map_fd, int32_t off);
/* Notes the next instruction emitted: "pt_regs.di" (an offset from the kernel's BTF); is_imm:
 * its immediate stands for text ("self tid") and the listing prints the name, not the value. */
void basm__note(struct basm *a, bool is_imm, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Resolves every jump; 0, -ENOMEM, -E2BIG (a jump too far) or -EINVAL (a label not placed). */
int basm__finish(struct basm *a);
void basm__free(struct basm *a);
#endif
