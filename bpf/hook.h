/*
 * bpf/hook.h - where a tracepoint table's program runs (enum bpf_hook, bpf/plan.h): decided
 * from the event and the values the plan reads, so any planner (engine/bpf_pick.c, pairs()'s
 * start) gets the same answer.
 *
 *   bpf_hook__pick(ev, &plan);   // syscalls:sys_enter_write -> BPF_HOOK_SYS_ENTER, nr 1
 *
 * (1) syscalls:sys_{enter,exit}_NAME and raw_syscalls:sys_{enter,exit} run on tp_btf of
 *     raw_syscalls when every field the plan reads has a place there (bpf/syscall.h (2)) and
 *     there is no stack key (a raw tracepoint's program would see the chain of its own call);
 *     syscalls:* then tests the one system call's number (bpf_syscall__nr(NAME); a name the
 *     UAPI table lacks, like "newfstat", keeps the tracepoint).
 * (2) sched:* tables as bpf/sched_btf.h (2) says; every other table: the tracepoint.
 * (3) A system call's event is sampled by perf with the task's user registers: a stack key
 *     of syscalls:* takes the user chain only (stack_user).
 * (4) count(*) alone: a perf event counts it with no program, but its last close waits for an
 *     RCU grace period (tens of ms here, one close after another: core/events.c), where a
 *     tp_btf program's link detaches at once and costs less per event. bpf_hook__counts()
 *     says which tables a program counts exactly: those on tp_btf that never fire inside
 *     their own program (sched_switch, the system calls: never in an interrupt), so that it
 *     skips none. The others keep counting mode.
 */
#ifndef PERF_SQL_BPF_HOOK_H
#define PERF_SQL_BPF_HOOK_H
#include "bpf/plan.h"

struct tp_event;

/* Sets p->hook, p->syscall_nr, p->stack_user, p->tp_btf and p->hook_why for table ev. */
void bpf_hook__pick(const struct tp_event *ev, struct bpf_plan *p);
/* (4): does a program count table ev's every event, cheaper than a perf event? */
bool bpf_hook__counts(const struct tp_event *ev);
#endif
