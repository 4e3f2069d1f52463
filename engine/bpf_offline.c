/*
 * engine/bpf_offline.c - a table's program planned and listed without loading it: over a
 * capture (-r) or another kernel's facts (--kernel-facts DIR), with --explain, as any user
 * (docs/bpf.md, "Offline listings").
 *
 * (1) The statement is read and its table picked exactly as live (engine/bpf_pick.c): the
 *     same plan, the same hook choice (bpf/hook.c), then bpf/listing.c builds the program
 *     from the kernel facts (the file's, or the running kernel's BTF, which needs no
 *     privilege) instead of loading it. As live, a tp_btf program the facts cannot give
 *     falls back to the tracepoint, the reason on the path line.
 * (2) The path line says what live --explain says, but for the program's id (there is none:
 *     "not loaded") and where the facts came from; --explain then prints the rewritten
 *     statement and the listing (bpf_pick__explain). Nothing is swapped: a capture's rows
 *     stay the table's.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "bpf/facts.h"
#include "bpf/listing.h"
#include "bpf/pairs.h"
#include "bpf/source.h"
#include "bpf/table.h"
#include "engine/bpf_plan_int.h"

void bpf_pick__where(const struct session *s, const struct source *src, const struct bpf_plan *p,
		     char *where, size_t len)
{
	const char *sys = p->hook == BPF_HOOK_SYS_ENTER ? "sys_enter" : "sys_exit";

	if (p->hook == BPF_HOOK_PERF && p->sample_freq)
		snprintf(where, len, "%s sampled at %llu Hz on %d CPUs", src->ev->name,
			 (unsigned long long)p->sample_freq, s->nr_cpus);
	else if (p->hook == BPF_HOOK_PERF)
		snprintf(where, len, "%s sampled every %llu events on %d CPUs", src->ev->name,
			 (unsigned long long)p->sample_period, s->nr_cpus);
	else if (p->hook == BPF_HOOK_TP && p->hook_why[0])
		snprintf(where, len, "the tracepoint (not tp_btf: %s)", p->hook_why);
	else if (p->hook == BPF_HOOK_TP)
		snprintf(where, len, "the tracepoint");
	else if (p->hook == BPF_HOOK_TP_BTF)
		snprintf(where, len, "tp_btf/%s", p->tp_btf.name);
	else if (p->hook == BPF_HOOK_UPROBE)
		snprintf(where, len, "a uprobe of %s", src->ev->probe_path);
	else if (p->syscall_nr >= 0)
		snprintf(where, len, "tp_btf/%s (system call %d)", sys, p->syscall_nr);
	else
		snprintf(where, len, "tp_btf/%s", sys);
}

void bpf_pick__to_tracepoint(struct bpf_plan *p, const char *why)
{
	p->hook = p->pair.start_hook = BPF_HOOK_TP;
	snprintf(p->hook_why, sizeof(p->hook_why), "%.120s", why);
	snprintf(p->pair.start_hook_why, sizeof(p->pair.start_hook_why), "%.120s", why);
	if (p->pair.role != BPF_PAIR_NONE) /* no task pointers on the tracepoint: the hash */
		bpf_pair__pick_tasks(p);
}

bool bpf_pick__tp_btf(const struct bpf_plan *p)
{
	return p->hook == BPF_HOOK_SYS_ENTER || p->hook == BPF_HOOK_SYS_EXIT ||
	       p->hook == BPF_HOOK_TP_BTF || p->pair.start_hook == BPF_HOOK_TP_BTF ||
	       p->pair.start_hook == BPF_HOOK_SYS_ENTER || p->pair.start_hook == BPF_HOOK_SYS_EXIT;
}

int bpf_offline__list(struct query *q, struct session *s, struct bpf_stmt *b)
{
	const struct bpf_facts *f = q->facts ? q->facts : bpf_facts__kernel(NULL);
	int nr_maps = q->so.interval_ms > 0 || s->opts.tick ? 2 : 1, ret;
	char where[256], stacks[128] = "";
	struct bpf_listing l;
	struct err e = { 0 };

	if ((ret = bpf_listing__plan(&b->plan, nr_maps, f, &l, &e)) && bpf_pick__tp_btf(&b->plan)) {
		bpf_pick__to_tracepoint(&b->plan, e.msg); /* (1) */
		e = (struct err){ 0 };
		ret = bpf_listing__plan(&b->plan, nr_maps, f, &l, &e);
	}
	if (ret) {
		plan_note__set(b->src, PLAN_PATH, "perf ring: %s", e.msg);
		return ret;
	}
	b->nr_start_insns = l.nr_start;
	bpf_pick__where(s, b->src, &b->plan, where, sizeof(where));
	if (bpf_plan__has_stack(&b->plan))
		bpf_stack__describe(&b->plan, bpf_stack__entries(&b->plan),
				    b->plan.stack_depth > 0 ? b->plan.stack_depth
				    : f                     ? bpf_facts__max_stack(f)
							    : 127,
				    stacks, sizeof(stacks));
	if (b->plan.pair.pending_rows) { /* no groups, nothing rewritten: pair_notes says */
		plan_note__set(b->src, PLAN_PATH,
			       "in the kernel: BPF program of %d insns on %s (built from %s, not "
			       "loaded: offline)",
			       l.nr_insns, where, l.facts);
		plan_note__take(b->src, PLAN_SQL, NULL);
		plan_note__take(b->src, PLAN_LISTING, l.text);
		return 0;
	}
	plan_note__set(b->src, PLAN_PATH,
		       "aggregated in the kernel: BPF program of %d insns on %s (built from %s, "
		       "not loaded: offline), per-CPU hash %s, up to %d groups%s%s%s",
		       l.nr_insns, where, l.facts, b->desc, b->plan.max_groups, stacks,
		       nr_maps == 2 ? ", two maps swapped per window" : "",
		       b->is_part ? "; a sub-SELECT of its statement, compiled alone" : "");
	plan_note__take(b->src, PLAN_SQL, strdup(b->sql));
	plan_note__take(b->src, PLAN_LISTING, l.text);
	return 0;
}
