#!/usr/bin/env bash
# bench/bpf_shapes.sh - the statement shapes the planner compiles since the profilers moved to
# the kernel (docs/bpf.md: bare columns, operations of two columns), side by side with a
# bpftrace one-liner that keeps the same per group, and perf-sql's ring path, in one run.
#   bare + op: getppid_loop N (pinned to CPU 0) untraced, under perf-sql -a "select _comm,
#       _tid, count(*), sum(__syscall_nr != _cpu) from sys_enter_getppid group by _tid" (BPF,
#       then --no-bpf), and under bpftrace 'tracepoint:syscalls:sys_enter_getppid {
#       @n[tid] = count(); @c[tid] = comm; @r[tid] = sum(args->__syscall_nr != cpu); }':
#       ns added per call (the workload's own ns/call: it times its loop). wakeups, signals,
#       page-faults and oncpu are this shape (a bare comm beside count() and a sum of a test).
# Each tool's answer is checked: the N calls counted.
# Run by bench/run.sh (section "shapes") or alone: PERF_SQL=... BUILD=... bash bench/bpf_shapes.sh
# Knobs: BENCH_REPS (3), BENCH_BPF_CALLS (2000000).
set -u
: "${PERF_SQL:?}" "${BUILD:?}"
WL=$BUILD/workloads
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
REPS=${BENCH_REPS:-3}
N=${BENCH_BPF_CALLS:-2000000}
SQL="select _comm, _tid, count(*), sum(__syscall_nr != _cpu) from sys_enter_getppid group by _tid"
BT='tracepoint:syscalls:sys_enter_getppid { @n[tid] = count(); @c[tid] = comm; @r[tid] = sum(args->__syscall_nr != cpu); }'
median() { sort -g | awk '{ v[NR] = $1 } END { print NR ? v[int((NR + 1) / 2)] : "-" }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a == "-" || b == "-" || b <= 0) print "-"; else printf "%.2f", a / b }'; }
anomaly() { echo "shapes: anomaly: $*"; }

have_bt=1
command -v bpftrace > /dev/null || { have_bt=0; echo "shapes: [bpftrace skipped: not installed]"; }
p=$("$PERF_SQL" -a --explain "$SQL" 2>&1)
if ! printf '%s\n' "$p" | grep -q "aggregated in the kernel"; then
	echo "shapes: [skipped: not aggregated in the kernel here: $(printf '%s\n' "$p" | grep path)]"
	exit 0
fi
# ns per call of getppid_loop (its own timing), under CMD...; the answer in $T/out
loop_ns() {
	"$@" > "$T/out" 2> "$T/err"
	awk '/^calls=/ { split($1, c, "="); split($2, t, "="); printf "%.1f\n", t[2] / c[2] }' "$T/out"
}
TASKSET=$(readlink -f "$(command -v taskset)")
wloop=("$TASKSET" -c 0 "$WL/getppid_loop" "$N")
for ((r = 0; r < REPS; r++)); do
	loop_ns "${wloop[@]}" >> "$T/base"
	loop_ns "$PERF_SQL" -a "$SQL" -- "${wloop[@]}" >> "$T/bpf"
	grep -q "^getppid_loop  *[0-9]*  *$N " "$T/out" || anomaly "perf-sql BPF: $(tr '\n' ' ' < "$T/out" | head -c 300)"
	loop_ns "$PERF_SQL" -a --no-bpf -m 1024 "$SQL" -- "${wloop[@]}" >> "$T/ring"
	[ "$have_bt" = 1 ] || continue
	loop_ns bpftrace -e "$BT" -c "${wloop[*]}" >> "$T/bt"
	grep -q "^@n\[[0-9]*\]: $N\$" "$T/out" || anomaly "bpftrace: $(tr '\n' ' ' < "$T/out" | head -c 300)"
done
base=$(median < "$T/base")
added() { [ -s "$1" ] && median < "$1" | awk -v b="$base" '{ printf "%.1f", $1 - b }' || echo -; }
bpf=$(added "$T/bpf"); ring=$(added "$T/ring"); bt=$(added "$T/bt")
echo "shapes bare column + sum(a != b) by _tid, getppid x $N (untraced $base ns/call): ns added per call: perf-sql BPF $bpf  bpftrace $bt  ratio $(ratio "$bpf" "$bt") (target <= 0.5);  perf-sql ring $ring  ratio BPF/ring $(ratio "$bpf" "$ring") (target <= 0.4)"
