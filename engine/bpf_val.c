/*
 * engine/bpf_val.c - a statement's columns and expressions as values the kernel program
 * computes (bpf/plan.h (1)), for engine/bpf_plan.c: which column of the event table a name is,
 * integer constants, fields in their size and sign, a uprobe's registers, and the operations
 * on a value (VALUE / N, % N, & N, >> N, << N, + V, - V, comparisons; V a constant or an
 * integer column, one of the plan's operands). Anything else is a reason, kept for --explain.
 */
#include <ctype.h>
#include <string.h>
#include <strings.h>
#include "bpf/compile.h"
#include "core/field.h"
#include "core/session.h"
#include "engine/bpf_plan_int.h"

/* a column of the event table, in the order vtab/tp_table.c declares them */
enum colk bpf_an__resolve(struct an *a, int n, const struct tp_field **f)
{
	static const char *const meta[] = { "_time", "_cpu", "_pid", "_tid", "_comm", "_period" };
	static const char *const alias[] = { "time", "cpu", "pid", "tid", "comm" };
	static const enum colk kinds[] = { CK_TIME, CK_CPU, CK_PID, CK_TID, CK_COMM, CK_PERIOD };
	char name[128], qual[128], table[128];

	if (nd(a, n)->kind != SN_COL)
		return CK_NONE;
	if (a->pairs)
		return bpf_pairs__is_col(a, n) ? CK_PAIR : CK_NONE;
	if (nd(a, n)->qual >= 0) {
		bpf_an__name(a, nd(a, n)->qual, qual);
		bpf_an__name(a, a->sel->table_alias >= 0 ? a->sel->table_alias : a->sel->table,
			     table);
		if (strcasecmp(qual, table))
			return CK_NONE;
	}
	bpf_an__name(a, nd(a, n)->name, name);
	for (int k = 0; k < 6; k++)
		if (!strcasecmp(name, meta[k]))
			return kinds[k];
	for (int k = 0; k < 5; k++)
		if (!field__find(a->ev, alias[k]) && !strcasecmp(name, alias[k]))
			return kinds[k];
	if (!strcasecmp(name, "_cgroup_id"))
		return CK_CGROUP_ID;
	if (!strcasecmp(name, "_cgroup"))
		return CK_CGROUP;
	for (int i = 0; i < a->ev->nr_fields; i++)
		if (!strcasecmp(name, a->ev->fields[i].name)) {
			*f = &a->ev->fields[i];
			return CK_FIELD;
		}
	if (a->ev->kind != EV_TRACEPOINT && !strcasecmp(name, "ip"))
		return CK_IP;
	if (a->ev->kind != EV_TRACEPOINT && !strcasecmp(name, "addr"))
		return CK_ADDR;
	if (a->ev->kind == EV_UPROBE && !strcasecmp(name, "ret"))
		return CK_RET;
	if (a->ev->kind == EV_UPROBE && !strncasecmp(name, "arg", 3) && name[3] >= '0' &&
	    name[3] <= '5' && !name[4])
		return CK_ARG;
	return !strcasecmp(name, "stack") ? CK_STACK : CK_NONE;
}

/* an integer literal, maybe negated */
bool bpf_an__int_const(const struct an *a, int n, int64_t *out)
{
	const struct sql_node *x = nd(a, n);

	if (x->kind == SN_INT) {
		*out = x->i;
		return true;
	}
	if (x->kind == SN_UNARY && (x->op == TK_MINUS || x->op == TK_PLUS) &&
	    nd(a, x->first)->kind == SN_INT && nd(a, x->first)->i != INT64_MIN) {
		*out = x->op == TK_MINUS ? -nd(a, x->first)->i : nd(a, x->first)->i;
		return true;
	}
	return false;
}

bool bpf_an__field_val(struct an *a, const struct tp_field *f, struct bpf_val *v)
{
	v->off = f->offset;
	v->size = f->size;
	v->is_signed = f->is_signed;
	if (f->kind == FIELD_INT &&
	    (f->size == 1 || f->size == 2 || f->size == 4 || f->size == 8) && f->offset >= 8 &&
	    f->offset % f->size == 0 && f->offset + f->size <= 2048) {
		v->col = BCOL_FIELD;
		return true;
	}
	if (f->kind == FIELD_STR && f->size <= BPF_MAX_STR && f->offset >= 8 &&
	    f->offset + f->size <= 2048) {
		v->col = BCOL_STR;
		return true;
	}
	if (f->kind == FIELD_DYN_STR && f->size == 4 && f->offset >= 8 && f->offset % 4 == 0 &&
	    f->offset + 4 <= 2048) { /* the text through its u32 (len << 16 | offset) */
		v->col = BCOL_DSTR;
		v->size = BPF_MAX_STR;
		v->rel = f->is_relative;
		return true;
	}
	return bpf_an__no(a, "field %s (%s) is not read by the kernel program", f->name, f->type);
}

/* a uprobe's argK or ret: the register the perf ring samples for it, in its size and sign */
static bool reg_val(struct an *a, int n, struct bpf_val *v)
{
	char name[128];
	int k, reg;

	bpf_an__name(a, nd(a, n)->name, name);
	k = tolower((unsigned char)name[0]) == 'r' ? -1 : name[3] - '0';
	reg = k < 0 ? 0 /* ax */ : a->ev->arg_reg[k];
	if (reg < 0 || uprobe_reg_slot(reg) < 0 || !bpf_reg_readable(reg))
		return bpf_an__no(a, "%s of %s is in no register the kernel program reads", name,
				  a->ev->name);
	v->col = BCOL_REG;
	v->off = reg;
	v->size = k < 0 ? 8 : a->ev->arg_size[k];
	v->is_signed = k >= 0 && a->ev->arg_signed[k];
	return true;
}

/* a comparison operator as the value's operation (end_value < 0: 1 or 0), or -1 */
static int cmp_of(int op)
{
	switch (op) {
	case TK_LT: return BOP_LT;
	case TK_LE: return BOP_LE;
	case TK_GT: return BOP_GT;
	case TK_GE: return BOP_GE;
	case TK_EQ: return BOP_EQ;
	case TK_NE: return BOP_NE;
	default: return -1;
	}
}

/* node n as the right side of an operation: an integer constant (*opnd 0, *k), or an
 * integer column with no operation of its own, one of the plan's operands (*opnd > 0) */
static bool operand(struct an *a, int n, int *opnd, int64_t *k)
{
	struct bpf_plan *p = &a->b->plan;
	struct bpf_val w;

	*opnd = 0;
	if (bpf_an__int_const(a, n, k))
		return true;
	if (nd(a, n)->kind != SN_COL || !bpf_an__val(a, n, &w) || bpf_val__is_str(&w) || w.nr_ops)
		return false;
	for (int i = 0; i < p->nr_opnds; i++)
		if (!memcmp(&p->opnds[i], &w, sizeof(w))) {
			*opnd = i + 1;
			return true;
		}
	if (p->nr_opnds == BPF_MAX_OPNDS)
		return false;
	p->opnds[p->nr_opnds++] = w;
	*opnd = p->nr_opnds;
	return true;
}

/* node n as a value the program computes (bpf/plan.h (1)) */
bool bpf_an__val(struct an *a, int n, struct bpf_val *v)
{
	const struct sql_node *x = nd(a, n);
	const struct tp_field *f = NULL;
	char buf[128];
	int64_t k = 0;
	int o = 0;

	if (x->kind == SN_BINARY && x->kw == KW_NONE &&
	    (cmp_of(x->op) >= 0 || x->op == TK_PLUS || x->op == TK_MINUS)) {
		if (!bpf_an__val(a, x->first, v))
			return false;
		if (bpf_val__is_str(v) || v->nr_ops == BPF_MAX_OPS ||
		    !operand(a, kid(a, n, 1), &o, &k))
			return bpf_an__no(
				a,
				"'%s' is not read by the kernel program (VALUE CMP N, VALUE + N "
				"and VALUE - N are, N a constant or an integer column)",
				bpf_an__text(a, n, buf, 64));
		v->ops[v->nr_ops].op = x->op == TK_PLUS    ? BOP_ADD
				       : x->op == TK_MINUS ? BOP_SUB
							   : (enum bpf_op)cmp_of(x->op);
		v->ops[v->nr_ops].opnd = o;
		v->ops[v->nr_ops++].k = k;
		return true;
	}
	if (x->kind == SN_BINARY && x->kw == KW_NONE &&
	    (x->op == TK_SLASH || x->op == TK_REM || x->op == TK_BITAND || x->op == TK_RSHIFT ||
	     x->op == TK_LSHIFT)) {
		bool shift = x->op == TK_RSHIFT || x->op == TK_LSHIFT;

		if (!bpf_an__val(a, x->first, v))
			return false;
		if (bpf_val__is_str(v) || v->nr_ops == BPF_MAX_OPS ||
		    !bpf_an__int_const(a, kid(a, n, 1), &k) ||
		    (x->op != TK_BITAND && k <= 0 && !shift) || (shift && (k < 0 || k > 63)))
			return bpf_an__no(
				a,
				"'%s' is not read by the kernel program (VALUE / N, VALUE %% N "
				"with N > 0, VALUE & N, VALUE >> N and VALUE << N with 0 <= N < "
				"64 are)",
				bpf_an__text(a, n, buf, 64));
		v->ops[v->nr_ops].op = x->op == TK_SLASH    ? BOP_DIV
				       : x->op == TK_REM    ? BOP_MOD
				       : x->op == TK_RSHIFT ? BOP_SHR
				       : x->op == TK_LSHIFT ? BOP_SHL
							    : BOP_AND;
		v->ops[v->nr_ops++].k = k;
		return true;
	}
	*v = (struct bpf_val){ 0 };
	if (a->pairs && x->kind == SN_COL)
		return bpf_pairs__val(a, n, v);
	switch (x->kind == SN_COL ? bpf_an__resolve(a, n, &f) : CK_NONE) {
	case CK_CPU: v->col = BCOL_CPU; return true;
	case CK_PID: v->col = BCOL_PID; return true;
	case CK_TID: v->col = BCOL_TID; return true;
	case CK_COMM: v->col = BCOL_COMM; return true;
	case CK_CGROUP_ID:
		if (!bpf_cgroup__v2(a))
			return false;
		v->col = BCOL_CGROUP;
		return true;
	case CK_CGROUP:
		return bpf_an__no(a, "_cgroup is a GROUP BY key or a WHERE term of its own in the "
				     "kernel (its id, named in user space), not a value to compute "
				     "on or aggregate (_cgroup_id is)");
	case CK_FIELD: return bpf_an__field_val(a, f, v);
	case CK_IP: v->col = BCOL_IP; return true;
	case CK_ARG:
	case CK_RET: return reg_val(a, n, v);
	case CK_ADDR:
		if (a->ev->kind == EV_UPROBE)
			return bpf_an__no(a, "addr of a uprobe is not read by the kernel program");
		v->col = BCOL_ADDR;
		return true;
	case CK_PERIOD:
		if (a->ev->kind == EV_TRACEPOINT || a->ev->kind == EV_UPROBE)
			return bpf_an__no(
				a, "_period of a tracepoint is not read by the kernel program");
		v->col = BCOL_PERIOD;
		return true;
	case CK_NONE:
		return bpf_an__no(a, "'%s' is not a value the kernel program reads",
				  bpf_an__text(a, n, buf, 64));
	case CK_STACK:
		return bpf_an__no(
			a, "stack is a GROUP BY key in the kernel, not a value to compare or "
			   "aggregate");
	default:
		return bpf_an__no(a, "%s is not read by the kernel program",
				  bpf_an__text(a, n, buf, 64));
	}
}
