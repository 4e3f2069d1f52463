#!/usr/bin/env bash
# scripts/kernel-facts.sh DIR [SYSTEM:EVENT ...] - write the kernel facts perf-sql's BPF
# compiler asks for, from the running kernel, into DIR, for offline listings on any machine
# as any user (perf-sql --explain --kernel-facts DIR; tests/bpf/fixture is one, the goldens'):
#
#   DIR/events/SYSTEM/EVENT/format   the tracepoints' formats, as tracefs has them
#   DIR/facts                        nr_cpu_ids, perf_event_max_stack and the BTF ids and
#                                    member offsets of bpf/facts.h (2)
#
# Without events, the tables of tests/bpf/*.sql and of the built-in profilers. Needs root
# (tracefs) and bpftool (the BTF, as JSON) and python3.
set -euo pipefail
[ $# -ge 1 ] || { echo "usage: scripts/kernel-facts.sh DIR [SYSTEM:EVENT ...]" >&2; exit 2; }
dir=$1; shift
events=("$@")
[ ${#events[@]} -gt 0 ] || events=(
	syscalls:sys_enter_write syscalls:sys_exit_write syscalls:sys_enter_read syscalls:sys_exit_read
	syscalls:sys_enter_openat syscalls:sys_exit_openat syscalls:sys_enter_getppid
	syscalls:sys_enter_clock_nanosleep syscalls:sys_exit_clock_nanosleep
	syscalls:sys_enter_exit_group syscalls:sys_enter_newfstat
	raw_syscalls:sys_enter raw_syscalls:sys_exit
	sched:sched_switch sched:sched_wakeup sched:sched_wakeup_new sched:sched_waking
	sched:sched_process_exec sched:sched_process_exit sched:sched_migrate_task
	task:task_newtask task:task_rename
	block:block_rq_insert block:block_rq_issue block:block_rq_complete
	irq:irq_handler_entry irq:irq_handler_exit irq:softirq_entry irq:softirq_exit
	kmem:kmalloc kmem:kfree lock:contention_begin lock:contention_end
	exceptions:page_fault_user signal:signal_generate
	workqueue:workqueue_execute_start workqueue:workqueue_execute_end
	timer:hrtimer_start net:net_dev_xmit
)
tracefs=/sys/kernel/tracing
[ -r "$tracefs/events/header_page" ] || tracefs=/sys/kernel/debug/tracing
[ -r "$tracefs/events/header_page" ] || { echo "kernel-facts: tracefs is not readable (root?)" >&2; exit 1; }
command -v bpftool >/dev/null || { echo "kernel-facts: bpftool is not installed" >&2; exit 1; }
rm -rf "$dir/events"
for ev in "${events[@]}"; do
	f=$tracefs/events/${ev%%:*}/${ev#*:}/format
	[ -r "$f" ] || { echo "kernel-facts: $ev: no such tracepoint here (skipped)" >&2; continue; }
	mkdir -p "$dir/events/${ev%%:*}/${ev#*:}"
	cp "$f" "$dir/events/${ev%%:*}/${ev#*:}/format"
done
json=$(mktemp)
trap 'rm -f "$json"' EXIT
bpftool -j btf dump file /sys/kernel/btf/vmlinux > "$json"
{
	echo "# kernel facts for perf-sql's BPF compiler (bpf/facts.h), written by"
	echo "# scripts/kernel-facts.sh from $(uname -sr) $(uname -m) on $(date -u +%Y-%m-%d)"
	echo "release $(uname -r)"
	echo "nr_cpu_ids $(($(sed 's/.*-//; s/,.*//' /sys/devices/system/cpu/possible) + 1))"
	echo "perf_event_max_stack $(cat /proc/sys/kernel/perf_event_max_stack)"
	python3 - "$json" <<'PY'
import json, sys
types = {t["id"]: t for t in json.load(open(sys.argv[1]))["types"]}
by_name = {}
for t in types.values():
    by_name.setdefault((t["kind"], t.get("name")), t)

def size(tid, depth=0):
    t = types.get(tid)
    if not t or depth > 32:
        return -1
    k = t["kind"]
    if k in ("INT", "ENUM", "ENUM64", "STRUCT", "UNION", "FLOAT"):
        return t["size"]
    if k == "PTR":
        return 8
    if k == "ARRAY":
        return t["nr_elems"] * size(t["type_id"], depth + 1)
    if k in ("TYPEDEF", "CONST", "VOLATILE", "RESTRICT", "TYPE_TAG"):
        return size(t["type_id"], depth + 1)
    return -1

# what bpf/regs.c and bpf/sched_btf.c ask: pt_regs' syscall registers, the task's status,
# the members the scheduler's tracepoints copy, whether task_struct has a cpu of its own
members = {"pt_regs": ["di", "si", "dx", "r10", "r8", "r9", "orig_ax"],
           "task_struct": ["thread_info", "comm", "pid", "prio", "cpu", "exit_state"],
           "thread_info": ["status", "cpu"]}
for tp in ["sys_enter", "sys_exit", "sched_switch", "sched_wakeup", "sched_wakeup_new",
           "sched_waking", "kmalloc", "kfree", "irq_handler_entry", "irq_handler_exit",
           "softirq_entry", "softirq_exit", "softirq_raise", "signal_generate",
           "signal_deliver", "page_fault_user", "page_fault_kernel"]:
    t = by_name.get(("TYPEDEF", "btf_trace_" + tp))
    if t:
        print("btf_type typedef btf_trace_%s %d" % (tp, t["id"]))
for st, names in members.items():
    s = by_name.get(("STRUCT", st))
    for m in (s or {}).get("members", []):
        if m["name"] in names and not m.get("bitfield_size") and m["bits_offset"] % 8 == 0:
            print("btf_member %s %s %d %d" % (st, m["name"], m["bits_offset"] // 8,
                                                size(m["type_id"])))
PY
} > "$dir/facts.new"
mv "$dir/facts.new" "$dir/facts"
echo "kernel-facts: $(find "$dir/events" -name format | wc -l) formats and $(grep -c '^btf_' "$dir/facts") BTF facts in $dir"
