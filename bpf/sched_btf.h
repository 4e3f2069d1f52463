/*
 * bpf/sched_btf.h - the scheduler's tracepoints on tp_btf (BPF_HOOK_TP_BTF, bpf/plan.h).
 *
 *   bpf_sched_btf__pick(ev, &plan);   // sched:sched_switch, every field a task's member
 *   plan.hook == BPF_HOOK_TP_BTF      // else BPF_HOOK_TP, plan.hook_why saying why
 *
 * (1) A program on a classic tracepoint (BPF_PROG_TYPE_TRACEPOINT) is skipped by the kernel
 *     while another kprobe/tracepoint program or a BPF map call holds the CPU (bpf_prog_active):
 *     a wakeup in an interrupt that lands then is never seen. A raw tracepoint's is skipped
 *     only while the same program runs on the CPU, and costs less per event.
 * (2) sched_switch, sched_wakeup, sched_wakeup_new and sched_waking run there when every field
 *     the plan reads is one TP_fast_assign copies from a member of a task argument: comm, pid,
 *     prio (p->prio), target_cpu (task_cpu(p): thread_info.cpu) of sched_wakeup*; prev_* and
 *     next_* of sched_switch, prev_state computed as __trace_sched_switch_state() does (from
 *     preempt, the prev_state argument and prev->exit_state: bpf/hook.c) where the format
 *     prints the encoding it computes. So do the irq, signal, kmem and x86 exceptions
 *     tracepoints whose fields are their arguments (irq, ret, vec, sig, group, result,
 *     address, error_code; signal_generate's comm and pid from its task). The fields are
 *     matched by name and must sit at the record offsets the plan reads.
 * (3) A stack key keeps the tracepoint: a raw tracepoint's program sees its own call's chain.
 * (4) bpf_sched_btf__offs() (bpf/compile.h) finds each member in the kernel's BTF and checks
 *     its size is the field's; any doubt (no BTF, a member missing or of another size,
 *     task_struct with a cpu of its own) is an error: the caller falls back to the tracepoint.
 */
#ifndef PERF_SQL_BPF_SCHED_BTF_H
#define PERF_SQL_BPF_SCHED_BTF_H
#include "bpf/plan.h"

struct tp_event;

/* Sets p->hook to BPF_HOOK_TP_BTF and fills p->tp_btf when ev is one of (2) and every field p
 * reads is a member; else leaves p->hook and, for a sched:* table, says why in p->hook_why. */
void bpf_sched_btf__pick(const struct tp_event *ev, struct bpf_plan *p);
/* The raw tracepoints (2) names, each once, into names (at most max); how many
 * (bpf/facts.c writes their BTF ids). */
int bpf_sched_btf__names(const char **names, int max);
#endif
