/*
 * bpf/hook.c - where a tracepoint table's program runs (see bpf/hook.h).
 */
#include <stdbool.h>
#include <string.h>
#include "bpf/hook.h"
#include "bpf/sched_btf.h"
#include "bpf/syscall.h"
#include "core/catalog.h"

/* does every field the plan reads have a place in a system call's tp_btf context? */
static bool syscall_fields(const struct bpf_plan *p, bool enter)
{
	const struct bpf_val *v[BPF_MAX_VALS];
	int n = bpf_plan__values(p, v);

	for (int i = 0; i < n; i++)
		if (v[i]->col == BCOL_STR ||
		    (v[i]->col == BCOL_FIELD &&
		     bpf_syscall__field(enter, v[i]->off, v[i]->size) == BPF_SYSF_NONE))
			return false;
	return true;
}

void bpf_hook__pick(const struct tp_event *ev, struct bpf_plan *p)
{
	bool enter;

	p->hook = BPF_HOOK_TP;
	p->syscall_nr = -1;
	p->stack_user = !strcmp(ev->system, "syscalls"); /* (3) */
	if (!strcmp(ev->system, "raw_syscalls") &&
	    (!strcmp(ev->name, "sys_enter") || !strcmp(ev->name, "sys_exit"))) {
		enter = !strcmp(ev->name, "sys_enter");
	} else if (!strcmp(ev->system, "syscalls") &&
		   (!strncmp(ev->name, "sys_enter_", 10) || !strncmp(ev->name, "sys_exit_", 9))) {
		enter = ev->name[5] == 'n';
		p->syscall_nr = bpf_syscall__nr(ev->name + (enter ? 10 : 9));
		if (p->syscall_nr < 0) /* "newfstat" is fstat's: not a name of the UAPI table */
			return;
	} else { /* (2) */
		bpf_sched_btf__pick(ev, p);
		return;
	}
	if (syscall_fields(p, enter) && !bpf_plan__has_stack(p))
		p->hook = enter ? BPF_HOOK_SYS_ENTER : BPF_HOOK_SYS_EXIT;
}
