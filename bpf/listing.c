/*
 * bpf/listing.c - a table's programs built and printed (see bpf/listing.h).
 *
 * HOW IT WORKS: bpf_prog__build() is the one path from a plan to instructions: the facts the
 * hook needs (bpf/regs.c, bpf/sched_btf.c ask them of a struct bpf_facts), then bpf_compile().
 * Loading (bpf/table.c) hands it the maps it made; listing without a kernel hands it stand-in
 * map numbers (LISTING_FD + role), which the printer names as it names a loaded table's fds.
 * The printer knows the instructions bpf/insn.h builds: ALU64, LDX/ST/STX of 1-8 bytes,
 * atomic add, JMP and JMP32 with a register or an immediate, call, exit, and the two-slot
 * 64-bit load of a constant, a map or a map's value.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "bpf/facts.h"
#include "bpf/listing.h"
#include "bpf/table.h"
#include "core/err.h"

#define LISTING_FD 1000 /* stand-in map numbers: LISTING_FD + enum role */

enum role {
	R_CTL,
	R_STATS,
	R_OUTER,
	R_GROUPS,
	R_ZERO,
	R_STACKS,
	R_STACKS1,
	R_STACK_BUF,
	R_PENDING,
	R_COUNTS,
	R_TASKS,
	R_NR
};

static const char *const role_names[R_NR] = { "ctl",     "stats",       "outer",        "groups",
					      "zero",    "stacks",      "stacks1",      "stack_buf",
					      "pending", "pair_counts", "pending_tasks" };

int bpf_prog__build(const struct bpf_plan *p, const struct bpf_prog_maps *m,
		    const struct bpf_facts *f, int *btf_id, struct basm *a, struct err *e)
{
	struct bpf_kernel_offs k = { 0 };
	int ret;

	if (p->hook == BPF_HOOK_SYS_ENTER || p->hook == BPF_HOOK_SYS_EXIT ||
	    p->hook == BPF_HOOK_TP_BTF) {
		if (!f && !(f = bpf_facts__kernel(e)))
			return e->code ? e->code : -ENOENT;
		if ((ret = bpf_kernel_btf(p, f, btf_id, &k, e)))
			return ret;
	}
	if ((ret = bpf_compile(p, m, &k, a))) {
		basm__free(a);
		return err_set(e, ret, "cannot compile the BPF program: %s", strerror(-ret));
	}
	return 0;
}

/* the names of the maps of p's program over m, by their role */
static int map_names(const struct bpf_plan *p, const struct bpf_prog_maps *m,
		     struct bpf_map_name *n)
{
	const int fds[R_NR] = { m->ctl,
				m->stats,
				m->outer,
				m->direct,
				m->zero,
				m->stacks,
				m->stacks1,
				m->stack_buf,
				p->pair.pending_fd,
				p->pair.counts_fd,
				p->pair.task_store ? p->pair.tasks_fd : -1 };
	int nr = 0;

	for (int i = 0; i < R_NR; i++)
		if (fds[i] >= 0)
			n[nr++] = (struct bpf_map_name){ fds[i], role_names[i] };
	if (p->tree_fd >= 0)
		n[nr++] = (struct bpf_map_name){ p->tree_fd, "tasks" };
	return nr;
}

static const char *map_name(int fd, const struct bpf_map_name *names, int nr)
{
	for (int i = 0; i < nr; i++)
		if (names[i].fd == fd)
			return names[i].name;
	return "?";
}

static const char *helper_name(int id)
{
#define H(x) [BPF_FUNC_##x] = #x
	static const char *const names[] = {
		H(map_lookup_elem),
		H(map_update_elem),
		H(map_delete_elem),
		H(ktime_get_ns),
		H(get_smp_processor_id),
		H(get_current_pid_tgid),
		H(get_current_comm),
		H(get_stackid),
		H(perf_event_output),
		H(probe_read_user_str),
		H(probe_read_kernel),
		H(get_current_task_btf),
		H(probe_read_user),
		H(ringbuf_output),
		H(get_current_cgroup_id),
		H(task_storage_get),
		H(get_stack),
		H(probe_read_kernel_str),
	};
#undef H
	return id >= 0 && id < (int)(sizeof(names) / sizeof(names[0])) && names[id] ? names[id]
										    : "?";
}

static const char *size_name(int code)
{
	switch (BPF_SIZE(code)) {
	case BPF_B: return "u8";
	case BPF_H: return "u16";
	case BPF_W: return "u32";
	default: return "u64";
	}
}

static const char *alu_op(int code)
{
	static const char *const ops[16] = {
		[BPF_ADD >> 4] = "+=",  [BPF_SUB >> 4] = "-=",  [BPF_MUL >> 4] = "*=",
		[BPF_DIV >> 4] = "/=",  [BPF_OR >> 4] = "|=",   [BPF_AND >> 4] = "&=",
		[BPF_LSH >> 4] = "<<=", [BPF_RSH >> 4] = ">>=", [BPF_MOD >> 4] = "%=",
		[BPF_XOR >> 4] = "^=",  [BPF_MOV >> 4] = "=",   [BPF_ARSH >> 4] = "s>>=",
	};
	return ops[BPF_OP(code) >> 4] ? ops[BPF_OP(code) >> 4] : "?=";
}

static const char *jmp_op(int code)
{
	static const char *const ops[16] = {
		[BPF_JEQ >> 4] = "==",   [BPF_JGT >> 4] = ">",    [BPF_JGE >> 4] = ">=",
		[BPF_JSET >> 4] = "&",   [BPF_JNE >> 4] = "!=",   [BPF_JSGT >> 4] = "s>",
		[BPF_JSGE >> 4] = "s>=", [BPF_JLT >> 4] = "<",    [BPF_JLE >> 4] = "<=",
		[BPF_JSLT >> 4] = "s<",  [BPF_JSLE >> 4] = "s<=",
	};
	return ops[BPF_OP(code) >> 4] ? ops[BPF_OP(code) >> 4] : "?";
}

/* the immediate of instruction at: the name a note gives it, or its value */
static void imm_text(const struct basm *a, int at, int64_t v, bool hex, char *buf, size_t len)
{
	for (int i = 0; i < a->nr_notes; i++)
		if (a->notes[i].at == at && a->notes[i].is_imm) {
			snprintf(buf, len, "%s", a->notes[i].text);
			return;
		}
	if (hex)
		snprintf(buf, len, "%s0x%llx", v < 0 ? "-" : "",
			 (unsigned long long)(v < 0 ? -(uint64_t)v : (uint64_t)v));
	else
		snprintf(buf, len, "%lld", (long long)v);
}

/* one instruction (two slots for a 64-bit load) without its index */
static void insn_text(FILE *o, const struct basm *a, int at, const struct bpf_map_name *names,
		      int nr)
{
	const struct bpf_insn *i = &a->insn[at];
	int cls = BPF_CLASS(i->code), d = i->dst_reg, s = i->src_reg;
	bool x = BPF_SRC(i->code) == BPF_X;
	char imm[48];

	fprintf(o, "(%02x) ", i->code);
	switch (cls) {
	case BPF_ALU64:
	case BPF_ALU:
		imm_text(a, at, i->imm, false, imm, sizeof(imm));
		if (x)
			fprintf(o, "r%d %s%s r%d", d,
				i->off && (BPF_OP(i->code) == BPF_DIV || BPF_OP(i->code) == BPF_MOD)
					? "s"
					: "",
				alu_op(i->code), s);
		else
			fprintf(o, "r%d %s %s", d, alu_op(i->code), imm);
		break;
	case BPF_LDX: fprintf(o, "r%d = *(%s *)(r%d %+d)", d, size_name(i->code), s, i->off); break;
	case BPF_STX:
		if (BPF_MODE(i->code) == BPF_ATOMIC)
			fprintf(o, "lock *(%s *)(r%d %+d) += r%d", size_name(i->code), d, i->off,
				s);
		else
			fprintf(o, "*(%s *)(r%d %+d) = r%d", size_name(i->code), d, i->off, s);
		break;
	case BPF_ST:
		fprintf(o, "*(%s *)(r%d %+d) = %d", size_name(i->code), d, i->off, i->imm);
		break;
	case BPF_LD: {
		uint64_t v = (uint32_t)i->imm | (uint64_t)(uint32_t)a->insn[at + 1].imm << 32;
		const char *name = s ? map_name(i->imm, names, nr) : NULL;

		if (s == BPF_PSEUDO_MAP_FD)
			fprintf(o, "r%d = map[%s]", d, name);
		else if (s == BPF_PSEUDO_MAP_VALUE)
			fprintf(o, "r%d = map[%s][0]+%d", d, name, a->insn[at + 1].imm);
		else
			fprintf(o, "r%d = 0x%llx", d, (unsigned long long)v);
		break;
	}
	case BPF_JMP:
	case BPF_JMP32:
		if (BPF_OP(i->code) == BPF_CALL) {
			fprintf(o, "call bpf_%s#%d", helper_name(i->imm), i->imm);
		} else if (BPF_OP(i->code) == BPF_EXIT) {
			fprintf(o, "exit");
		} else if (BPF_OP(i->code) == BPF_JA) {
			fprintf(o, "goto pc%+d", i->off);
		} else {
			imm_text(a, at, i->imm, true, imm, sizeof(imm));
			if (x)
				snprintf(imm, sizeof(imm), "%c%d", cls == BPF_JMP32 ? 'w' : 'r', s);
			fprintf(o, "if %c%d %s %s goto pc%+d", cls == BPF_JMP32 ? 'w' : 'r', d,
				jmp_op(i->code), imm, i->off);
		}
		break;
	default: fprintf(o, "?"); break;
	}
}

int bpf_listing__insns(const struct basm *a, const char *what, const struct bpf_map_name *names,
		       int nr, char **text)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *o = open_memstream(&buf, &len);

	if (!o)
		return -ENOMEM;
	if (*text)
		fputs(*text, o);
	fprintf(o, "%s program, %d insns:\n", what, a->nr);
	for (int at = 0; at < a->nr; at++) {
		char line[160];
		FILE *l = fmemopen(line, sizeof(line), "w");
		const char *note = NULL;

		if (!l)
			break;
		insn_text(l, a, at, names, nr);
		fputc('\0', l);
		fclose(l);
		line[sizeof(line) - 1] = '\0';
		for (int i = 0; i < a->nr_notes; i++)
			if (a->notes[i].at == at && !a->notes[i].is_imm)
				note = a->notes[i].text;
		if (note)
			fprintf(o, "%6d: %-40s ; %s\n", at, line, note);
		else
			fprintf(o, "%6d: %s\n", at, line);
		if (BPF_CLASS(a->insn[at].code) == BPF_LD)
			at++; /* its second slot */
	}
	if (fclose(o))
		return -ENOMEM;
	free(*text);
	*text = buf;
	return 0;
}

/* one program of the listing: a header line, then its instructions */
static int list_one(const struct bpf_plan *p, const struct bpf_prog_maps *m,
		    const struct bpf_facts *f, const char *what, char **text, int *nr,
		    struct err *e)
{
	struct bpf_map_name names[R_NR + 1];
	struct basm a = { 0 };
	int btf_id = 0, ret;

	if ((ret = bpf_prog__build(p, m, f, &btf_id, &a, e)))
		return ret;
	*nr = a.nr;
	ret = bpf_listing__insns(&a, what, names, map_names(p, m, names), text);
	basm__free(&a);
	return ret ? err_set(e, ret, "out of memory") : 0;
}

int bpf_listing__plan(const struct bpf_plan *p, int nr_maps, const struct bpf_facts *f,
		      struct bpf_listing *l, struct err *e)
{
	struct bpf_plan q = *p, sp;
	struct bpf_prog_maps m = { .ctl = LISTING_FD + R_CTL,
				   .stats = LISTING_FD + R_STATS,
				   .outer = LISTING_FD + R_OUTER,
				   .direct = nr_maps == 1 ? LISTING_FD + R_GROUPS : -1,
				   .zero = LISTING_FD + R_ZERO,
				   .stacks = -1,
				   .stacks1 = -1,
				   .stack_buf = -1 };
	int ret;

	*l = (struct bpf_listing){ .facts = f ? bpf_facts__origin(f) : "the running kernel" };
	if (q.stack_depth <= 0)
		q.stack_depth = f ? bpf_facts__max_stack(f) : 127;
	bpf_plan__layout(&q);
	bpf_plan__fold(&q);
	if (bpf_plan__has_stack(&q)) {
		m.stacks = LISTING_FD + R_STACKS;
		m.stack_buf = LISTING_FD + R_STACK_BUF;
	}
	if (bpf_stack__swapped(&q))
		m.stacks1 = LISTING_FD + R_STACKS1;
	if (q.pair.role != BPF_PAIR_NONE) {
		q.pair.pending_fd = LISTING_FD + R_PENDING;
		q.pair.counts_fd = LISTING_FD + R_COUNTS;
		q.pair.tasks_fd = LISTING_FD + R_TASKS;
	}
	if (q.pair.role == BPF_PAIR_END) {
		sp = bpf_plan__start(&q);
		if ((ret = list_one(&sp, &m, f, "start", &l->text, &l->nr_start, e)))
			goto fail;
	}
	if ((ret = list_one(&q, &m, f, q.pair.role == BPF_PAIR_NONE ? "the" : "end", &l->text,
			    &l->nr_insns, e)))
		goto fail;
	return 0;
fail:
	bpf_listing__free(l);
	return ret;
}

int bpf_listing__table(const struct bpf_table *t, struct bpf_listing *l, struct err *e)
{
	struct bpf_prog_maps m = { .ctl = t->ctl_fd,
				   .stats = t->stats_fd,
				   .outer = t->outer_fd,
				   .zero = t->zero_fd,
				   .stacks = t->stacks_fd,
				   .stacks1 = t->stacks1_fd,
				   .stack_buf = t->stack_buf_fd,
				   .direct = t->nr_maps == 1 ? t->map_fd[0] : -1 };
	struct bpf_plan sp;
	int ret;

	*l = (struct bpf_listing){ .facts = "/sys/kernel/btf/vmlinux" };
	if (t->plan.pair.role == BPF_PAIR_END) {
		sp = bpf_plan__start(&t->plan);
		if ((ret = list_one(&sp, &m, NULL, "start", &l->text, &l->nr_start, e)))
			goto fail;
	}
	if ((ret = list_one(&t->plan, &m, NULL, t->plan.pair.role == BPF_PAIR_NONE ? "the" : "end",
			    &l->text, &l->nr_insns, e)))
		goto fail;
	return 0;
fail:
	bpf_listing__free(l);
	return ret;
}

void bpf_listing__free(struct bpf_listing *l)
{
	free(l->text);
	l->text = NULL;
}
