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
#   offcpu, task-state: pingpong's switches under perf-sql offcpu / task-state and a bpftrace
#       script keeping the same (below).
#   kmemleak: msgs' kmalloc/kfree rounds under perf-sql kmemleak (pending()) and a bpftrace
#       script keeping the same hash (below).
# Each tool's answer is checked: the N calls counted.
# Run by bench/run.sh (section "shapes") or alone: PERF_SQL=... BUILD=... bash bench/bpf_shapes.sh
# Knobs: BENCH_REPS (3), BENCH_BPF_CALLS (2000000), BENCH_PP (200000), BENCH_KMEM_ROUNDS (500000).
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
# pp_shape NAME PROFILER CHECK BT: REPS pingpong runs untraced and under the profiler (kernel,
# then ring) and the bpftrace script BT; CHECK, an awk program over the profiler's CSV with n =
# 2N, exits 0 when its answer holds the switches; prints the section's line
pp_shape() {
	local name=$1 prof=$2 check=$3 bt=$4 base bpf ring bts
	for ((r = 0; r < REPS; r++)); do
		pp_ns >> "$T/$prof.base"
		pp_under '^table ' "$PERF_SQL" -v --csv -a "$prof" limit=-1 >> "$T/$prof.bpf"
		awk -F, -v n=$((2 * PP)) "$check" "$T/tout" ||
			anomaly "perf-sql $prof BPF: fewer than $((2 * PP)) switches of pingpong"
		pp_under '^table ' "$PERF_SQL" -v --csv -a --no-bpf -m 1024 "$prof" limit=-1 >> "$T/$prof.ring"
		[ "$have_bt" = 1 ] || continue
		pp_under 'Attaching' bpftrace -e "$bt" >> "$T/$prof.bt"
		awk '/^@n: / { s = $2 } END { exit s < n - 2 }' n=$((2 * PP)) "$T/tout" ||
			anomaly "bpftrace $prof: fewer than $((2 * PP)) switches counted"
	done
	base=$(median < "$T/$prof.base")
	per() { [ -s "$1" ] && median < "$1" | awk -v b="$base" -v n=$((2 * PP)) '{ printf "%.1f", ($1 - b) / n }' || echo -; }
	bpf=$(per "$T/$prof.bpf"); ring=$(per "$T/$prof.ring"); bts=$(per "$T/$prof.bt")
	echo "shapes $name, pingpong -c 0 x $PP ($((2 * PP)) switches, untraced $(awk -v b="$base" -v n=$((2 * PP)) 'BEGIN { printf "%.0f", b / n }') ns/switch): ns added per switch: perf-sql BPF $bpf  bpftrace $bts  ratio $(ratio "$bpf" "$bts") (target <= 0.5);  perf-sql ring $ring  ratio BPF/ring $(ratio "$bpf" "$ring") (target <= 0.4)"
}
# the switches, within one at either end (the tracer is attached before the pingpong starts
# and stopped right after it exits)
pp_shape "offcpu (pairs() with the start's stack)" offcpu \
	'$1 ~ /^pingpong;/ { s += $2 } END { exit s < n - 2 }' "$OBT"

# task-state: the same pingpong under perf-sql -a task-state (pairs() of sched_switch with the
# switch out's state, a bare comm at max(latency), percentiles from a log-linear histogram),
# its ring path, and a bpftrace script keeping count, sum, min, max and a log2 histogram of
# the time off CPU by tid and state: ns added per switch.
TBT='tracepoint:sched:sched_switch { $t = @ts[args->next_pid]; if ($t) { $d = nsecs - $t; @s[args->next_pid, @st[args->next_pid]] = stats($d); @mn[args->next_pid, @st[args->next_pid]] = min($d); @mx[args->next_pid, @st[args->next_pid]] = max($d); @h[args->next_pid, @st[args->next_pid]] = hist($d); @n = count(); delete(@ts[args->next_pid]); } if (args->prev_pid) { @ts[args->prev_pid] = nsecs; @st[args->prev_pid] = args->prev_state; } }'
pp_shape "task-state (pairs() with the switch out's state, percentiles)" task-state \
	'$1 == "pingpong" { s += $4 } END { exit s < n - 2 }' "$TBT"

# kmemleak: msgs 100 0 KEY R (100 System V messages left queued, then R sent and received
# back: a kmalloc and its kfree each) timed alone while a tracer, started and collecting before
# it, runs system-wide: perf-sql -a kmemleak (pending(): the kmalloc program keeps the
# allocation by pointer in a hash, kfree's deletes it, the rest read at the end), the same
# --no-bpf (the ring), and a bpftrace script keeping the same (time, call site and size by
# pointer, deleted at the kfree): ns added per round (one kmalloc and one kfree). Each answer
# checked: perf-sql's load_msg row holds the 100 queued messages; bpftrace's map at least 100.
KBT='tracepoint:kmem:kmalloc { @a[args->ptr] = (nsecs, args->call_site, args->bytes_alloc); } tracepoint:kmem:kfree { delete(@a[args->ptr]); }'
KR=${BENCH_KMEM_ROUNDS:-500000}
KEY=$((6000 + $$ % 1000))
km_ns() { # wall ns of one msgs run (its queues are removed by km_rm, once it is traced no more)
	local s e
	s=$(date +%s%N)
	"$WL/msgs" 100 0 $KEY "$KR" || return 1
	e=$(date +%s%N)
	echo $((e - s))
}
km_rm() { "$WL/msgs" 0 0 $KEY; }
km_under() { # as pp_under, timing msgs
	local mark=$1 pid
	shift
	"$@" > "$T/tout" 2> "$T/terr" &
	pid=$!
	for _ in $(seq 600); do grep -q "$mark" "$T/terr" "$T/tout" 2> /dev/null && break; sleep 0.05; done
	sleep 0.5
	km_ns
	kill -INT $pid
	wait $pid
	km_rm
}
for ((r = 0; r < REPS; r++)); do
	km_ns >> "$T/km.base"
	km_rm
	km_under '^table ' "$PERF_SQL" -v --csv -a kmemleak limit=-1 >> "$T/km.bpf"
	grep -q '^load_msg+0x[0-9a-f]*,100,' "$T/tout" || anomaly "perf-sql kmemleak BPF: no load_msg row of 100: $(head -c 300 "$T/tout")"
	km_under '^table ' "$PERF_SQL" -v --csv -a --no-bpf -m 1024 kmemleak limit=-1 >> "$T/km.ring"
	[ "$have_bt" = 1 ] || continue
	km_under 'Attaching' bpftrace -e "$KBT" >> "$T/km.bt"
	[ "$(grep -c '^@a\[' "$T/tout")" -ge 100 ] || anomaly "bpftrace kmemleak: fewer than 100 allocations left"
done
kbase=$(median < "$T/km.base")
kper() { [ -s "$1" ] && median < "$1" | awk -v b="$kbase" -v n="$KR" '{ printf "%.1f", ($1 - b) / n }' || echo -; }
kbpf=$(kper "$T/km.bpf"); kring=$(kper "$T/km.ring"); kbt=$(kper "$T/km.bt")
echo "shapes kmemleak (pending(): a hash of allocations by pointer), msgs x $KR rounds (a kmalloc and a kfree each, untraced $(awk -v b="$kbase" -v n="$KR" 'BEGIN { printf "%.0f", b / n }') ns/round): ns added per round: perf-sql BPF $kbpf  bpftrace $kbt  ratio $(ratio "$kbpf" "$kbt") (target <= 0.5);  perf-sql ring $kring  ratio BPF/ring $(ratio "$kbpf" "$kring") (target <= 0.4)"
