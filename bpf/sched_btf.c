/*
 * bpf/sched_btf.c - the scheduler's tracepoints on tp_btf (see bpf/sched_btf.h).
 *
 * HOW IT WORKS: sched_fields[] says, per tracepoint, which record field TP_fast_assign copies
 * from which member of which task argument (or, kmem's kmalloc and kfree, from which argument) (include/trace/events/sched.h: TP_PROTO(struct
 * task_struct *p) for sched_wakeup*, TP_PROTO(bool preempt, struct task_struct *prev, struct
 * task_struct *next, unsigned int prev_state) for sched_switch). The pick matches each field
 * the plan reads by name; bpf/compile.c then loads args[arg] (a tp_btf context is the raw
 * tracepoint's arguments, u64 each) and the member at the offset the kernel's BTF gives.
 * sched_switch's prev_state is no member: bpf/hook.c computes it as the tracepoint does, from
 * preempt, the prev_state argument and prev's exit_state, where the format says the kernel
 * encodes it so.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <linux/btf.h>
#include "bpf/compile.h"
#include "bpf/facts.h"
#include "bpf/sched_btf.h"
#include "core/catalog.h"
#include "core/err.h"

static const struct sched_field {
	const char *tp, *field;
	int arg;            /* in the raw tracepoint's arguments (TP_PROTO) */
	const char *member; /* of struct task_struct; "": the argument itself, an integer */
} sched_fields[] = {
	/* kmem (include/trace/events/kmem.h): TP_PROTO(unsigned long call_site, const void
	 * *ptr, size_t bytes_req, size_t bytes_alloc, gfp_t gfp_flags, int node) for kmalloc,
	 * (unsigned long call_site, const void *ptr) for kfree; each field its argument */
	{ "kmalloc", "call_site", 0, "" },
	{ "kmalloc", "ptr", 1, "" },
	{ "kmalloc", "bytes_req", 2, "" },
	{ "kmalloc", "bytes_alloc", 3, "" },
	{ "kmalloc", "gfp_flags", 4, "" },
	{ "kmalloc", "node", 5, "" },
	{ "kfree", "call_site", 0, "" },
	{ "kfree", "ptr", 1, "" },
	{ "sched_switch", "prev_comm", 1, "comm" },
	{ "sched_switch", "prev_pid", 1, "pid" },
	{ "sched_switch", "prev_prio", 1, "prio" },
	/* __trace_sched_switch_state(preempt, prev_state, prev): computed (bpf/hook.c) */
	{ "sched_switch", "prev_state", 3, BPF_TP_SWITCH_STATE },
	{ "sched_switch", "next_comm", 2, "comm" },
	{ "sched_switch", "next_pid", 2, "pid" },
	{ "sched_switch", "next_prio", 2, "prio" },
	/* irq (include/trace/events/irq.h): TP_PROTO(int irq, struct irqaction *action) for
	 * irq_handler_entry (its name is a __data_loc text: the tracepoint), (int irq, struct
	 * irqaction *action, int ret) for irq_handler_exit, (unsigned int vec_nr) for softirq_* */
	{ "irq_handler_entry", "irq", 0, "" },
	{ "irq_handler_exit", "irq", 0, "" },
	{ "irq_handler_exit", "ret", 2, "" },
	{ "softirq_entry", "vec", 0, "" },
	{ "softirq_exit", "vec", 0, "" },
	{ "softirq_raise", "vec", 0, "" },
	/* signal (include/trace/events/signal.h): TP_PROTO(int sig, struct kernel_siginfo *info,
	 * struct task_struct *task, int group, int result) for signal_generate (errno and code
	 * come from info, special values included: the tracepoint), (int sig, ...) for
	 * signal_deliver */
	{ "signal_generate", "sig", 0, "" },
	{ "signal_generate", "comm", 2, "comm" },
	{ "signal_generate", "pid", 2, "pid" },
	{ "signal_generate", "group", 3, "" },
	{ "signal_generate", "result", 4, "" },
	{ "signal_deliver", "sig", 0, "" },
	/* x86's exceptions (arch/x86/include/asm/trace/exceptions.h): TP_PROTO(unsigned long
	 * address, struct pt_regs *regs, unsigned long error_code); ip is regs->ip */
	{ "page_fault_user", "address", 0, "" },
	{ "page_fault_user", "error_code", 2, "" },
	{ "page_fault_kernel", "address", 0, "" },
	{ "page_fault_kernel", "error_code", 2, "" },
#define WAKEUP(tp)                                                                                 \
	{ tp, "comm", 0, "comm" }, { tp, "pid", 0, "pid" }, { tp, "prio", 0, "prio" },             \
	{                                                                                          \
		tp, "target_cpu", 0, "thread_info.cpu"                                             \
	}
	WAKEUP("sched_wakeup"),
	WAKEUP("sched_wakeup_new"),
	WAKEUP("sched_waking"),
#undef WAKEUP
};

#define NR_SCHED_FIELDS (int)(sizeof(sched_fields) / sizeof(sched_fields[0]))

static const struct sched_field *sched_field(const char *tp, const char *field)
{
	for (int i = 0; i < NR_SCHED_FIELDS; i++)
		if (!strcmp(sched_fields[i].tp, tp) &&
		    (!field || !strcmp(sched_fields[i].field, field)))
			return &sched_fields[i];
	return NULL;
}

/* does the format print prev_state as the state bpf/hook.c computes: the reported states
 * TASK_REPORT (0x01 to 0x40), "I" 0x80 (TASK_REPORT_IDLE), "+" 0x100 (TASK_REPORT_MAX)? */
static bool switch_state_known(const struct tp_event *ev)
{
	return ev->format_text &&
	       strstr(ev->format_text,
		      "REC->prev_state & (((0x00000000 | 0x00000001 | 0x00000002 | "
		      "0x00000004 | 0x00000008 | 0x00000010 | 0x00000020 | "
		      "0x00000040) + 1) << 1) ? \"+\"") &&
	       strstr(ev->format_text, "{ 0x00000080, \"I\" }) : \"R\"");
}

/* v's field into t (once per offset); false with p->hook_why set when it is not a member */
static bool add_field(const struct tp_event *ev, struct bpf_plan *p, struct bpf_tp_btf *t,
		      const struct bpf_val *v)
{
	const struct tp_field *f = NULL;
	const struct sched_field *sf;

	for (int i = 0; i < t->nr; i++)
		if (t->f[i].rec_off == v->off)
			return true;
	for (int i = 0; i < ev->nr_fields && !f; i++)
		if (ev->fields[i].offset == v->off && ev->fields[i].size == v->size)
			f = &ev->fields[i];
	sf = f ? sched_field(ev->name, f->name) : NULL;
	if (sf && !strcmp(sf->member, BPF_TP_SWITCH_STATE) && !switch_state_known(ev)) {
		snprintf(p->hook_why, sizeof(p->hook_why),
			 "prev_state: the format encodes it otherwise than perf-sql computes it "
			 "(__trace_sched_switch_state() of 6.x)");
		return false;
	}
	if (!sf || t->nr == BPF_TP_FIELDS) {
		snprintf(p->hook_why, sizeof(p->hook_why), "%s%s", f ? f->name : "a field",
			 " is not a member of the tracepoint's task arguments");
		return false;
	}
	t->f[t->nr].rec_off = v->off;
	t->f[t->nr].size = v->size;
	t->f[t->nr].arg = sf->arg;
	snprintf(t->f[t->nr].member, sizeof(t->f[t->nr].member), "%s", sf->member);
	t->nr++;
	return true;
}

int bpf_sched_btf__names(const char **names, int max)
{
	int n = 0;

	for (int i = 0; i < NR_SCHED_FIELDS && n < max; i++)
		if (!i || strcmp(sched_fields[i].tp, sched_fields[i - 1].tp))
			names[n++] = sched_fields[i].tp;
	return n;
}

/* the systems whose tracepoints sched_fields[] names (a name alone could be another's) */
static bool raw_system(const char *system)
{
	static const char *const systems[] = { "sched", "kmem", "irq", "signal", "exceptions" };

	for (size_t i = 0; i < sizeof(systems) / sizeof(systems[0]); i++)
		if (!strcmp(system, systems[i]))
			return true;
	return false;
}

void bpf_sched_btf__pick(const struct tp_event *ev, struct bpf_plan *p)
{
	const struct bpf_val *v[BPF_MAX_VALS];
	struct bpf_tp_btf t = { .nr = 0 };
	int n = bpf_plan__values(p, v);

	p->hook_why[0] = '\0';
	if (!raw_system(ev->system) || !sched_field(ev->name, NULL))
		return;
	if (bpf_plan__has_stack(p)) {
		snprintf(p->hook_why, sizeof(p->hook_why),
			 "a stack key: a raw tracepoint's program would see its own call's chain");
		return;
	}
	for (int i = 0; i < n; i++)
		if (v[i]->col == BCOL_DSTR) {
			snprintf(p->hook_why, sizeof(p->hook_why),
				 "a __data_loc text is read from the tracepoint's record");
			return;
		}
	for (int i = 0; i < n; i++)
		if ((v[i]->col == BCOL_FIELD || v[i]->col == BCOL_STR) &&
		    !add_field(ev, p, &t, v[i]))
			return;
	snprintf(t.name, sizeof(t.name), "%s", ev->name);
	p->tp_btf = t;
	p->hook = BPF_HOOK_TP_BTF;
}

/* byte offset of a member (path "a.b") of struct task_struct and its size, or -1 */
static int task_member(const struct bpf_facts *f, const char *path, int *size_out)
{
	const char *type = "task_struct", *dot = strchr(path, '.');
	char outer[24];
	int off = 0, m, size;

	if (dot) { /* thread_info.cpu: task_struct's thread_info, then its member */
		snprintf(outer, sizeof(outer), "%.*s", (int)(dot - path), path);
		if ((off = bpf_facts__member(f, type, outer, &size)) < 0)
			return -1;
		type = outer;
		path = dot + 1;
	}
	if ((m = bpf_facts__member(f, type, path, size_out)) < 0)
		return -1;
	return off + m;
}

int bpf_sched_btf__offs(const struct bpf_plan *p, const struct bpf_facts *f, int *btf_id,
			struct bpf_kernel_offs *k, struct err *e)
{
	char name[48];
	int size;

	snprintf(name, sizeof(name), "btf_trace_%s", p->tp_btf.name);
	if ((*btf_id = bpf_facts__type_id(f, name, BTF_KIND_TYPEDEF)) < 0)
		return err_set(e, -ENOENT, "%s has no %s", bpf_facts__origin(f), name);
	/* task_cpu() reads thread_info.cpu only when task_struct has no cpu of its own */
	if (bpf_facts__member(f, "task_struct", "cpu", &size) >= 0)
		for (int i = 0; i < p->tp_btf.nr; i++)
			if (strchr(p->tp_btf.f[i].member, '.'))
				return err_set(e, -ENOENT,
					       "task_struct has a cpu member: "
					       "task_cpu() may not be thread_info.cpu");
	for (int i = 0; i < p->tp_btf.nr; i++) {
		bool state = !strcmp(p->tp_btf.f[i].member, BPF_TP_SWITCH_STATE);

		size = -1;
		if (!p->tp_btf.f[i].member[0]) /* the argument itself: no member */
			continue;
		/* prev_state: the offset is prev's exit_state, which the state ORs in */
		k->tp_off[i] = task_member(f, state ? "exit_state" : p->tp_btf.f[i].member, &size);
		if (k->tp_off[i] < 0 || size != (state ? 4 : p->tp_btf.f[i].size))
			return err_set(e, -ENOENT, "%s lacks task_struct's %s of %d bytes (%s)",
				       bpf_facts__origin(f), p->tp_btf.f[i].member,
				       p->tp_btf.f[i].size,
				       k->tp_off[i] < 0 ? "no such member" : "another size");
	}
	return 0;
}
