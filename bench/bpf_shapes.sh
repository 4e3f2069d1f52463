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
#   offcpu: pingpong's switches under perf-sql offcpu and a bpftrace script (below).
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

# offcpu: pingpong -c 0 N (both tasks on CPU 0: 2N switches, each an off-CPU period of the
# other) timed alone while a tracer, started and collecting before it, runs system-wide:
# perf-sql -a offcpu (the switch out's stack taken into the pending start in the kernel), the
# same --no-bpf (the ring), and a bpftrace script keeping the same (time and stacks by tid at
# the switch out, summed by stack at the switch in): ns added per switch. Each answer checked:
# the pingpong's switches are there (2N in all, but for one at either end: the tracer is
# attached before the pingpong starts and stopped right after it exits; bpftrace's count is of
# every task's switches).
OBT='tracepoint:sched:sched_switch { $t = @ts[args->next_pid]; if ($t) { @off[@ks[args->next_pid], @us[args->next_pid]] = sum(nsecs - $t); @n = count(); delete(@ts[args->next_pid]); } if (args->prev_pid) { @ts[args->prev_pid] = nsecs; @ks[args->prev_pid] = kstack; @us[args->prev_pid] = ustack; } }'
PP=${BENCH_PP:-200000}
wpp=("$TASKSET" -c 0 "$WL/pingpong" "$PP")
pp_ns() { # wall ns of one pingpong run
	local s e
	s=$(date +%s%N)
	"${wpp[@]}" || return 1
	e=$(date +%s%N)
	echo $((e - s))
}
# under TRACER...: started, awaited (its line MARK in $T/terr), pingpong timed, then SIGINT
pp_under() {
	local mark=$1 pid
	shift
	"$@" > "$T/tout" 2> "$T/terr" &
	pid=$!
	for _ in $(seq 600); do grep -q "$mark" "$T/terr" "$T/tout" 2> /dev/null && break; sleep 0.05; done
	sleep 0.5 # bpftrace says "Attaching" before its probes are attached
	pp_ns
	kill -INT $pid
	wait $pid
}
for ((r = 0; r < REPS; r++)); do
	pp_ns >> "$T/obase"
	pp_under '^table ' "$PERF_SQL" -v --csv -a offcpu limit=-1 >> "$T/obpf"
	awk -F, -v n=$((2 * PP)) '$1 ~ /^pingpong;/ { s += $2 } END { exit s < n - 2 }' \
		"$T/tout" || anomaly "perf-sql offcpu BPF: fewer than $((2 * PP)) switches of pingpong"
	pp_under '^table ' "$PERF_SQL" -v --csv -a --no-bpf -m 1024 offcpu limit=-1 >> "$T/oring"
	[ "$have_bt" = 1 ] || continue
	pp_under 'Attaching' bpftrace -e "$OBT" >> "$T/obt"
	awk '/^@n: / { s = $2 } END { exit s < n - 2 }' n=$((2 * PP)) "$T/tout" ||
		anomaly "bpftrace offcpu: fewer than $((2 * PP)) switches counted"
done
obase=$(median < "$T/obase")
oadded() { [ -s "$1" ] && median < "$1" | awk -v b="$obase" -v n=$((2 * PP)) '{ printf "%.1f", ($1 - b) / n }' || echo -; }
obpf=$(oadded "$T/obpf"); oring=$(oadded "$T/oring"); obt=$(oadded "$T/obt")
echo "shapes offcpu (pairs() with the start's stack), pingpong -c 0 x $PP ($((2 * PP)) switches, untraced $(awk -v b="$obase" -v n=$((2 * PP)) 'BEGIN { printf "%.0f", b / n }') ns/switch): ns added per switch: perf-sql BPF $obpf  bpftrace $obt  ratio $(ratio "$obpf" "$obt") (target <= 0.5);  perf-sql ring $oring  ratio BPF/ring $(ratio "$obpf" "$oring") (target <= 0.4)"
