#!/usr/bin/env bash
# bench/bpf.sh - GROUP BY in the kernel (docs/bpf.md) side by side with bpftrace, in one run,
# as ratios perf-sql / bpftrace (lower is better); tools interleaved per repetition, medians.
#   (1) count by comm: getppid_loop N (pinned to CPU 0) untraced, under perf-sql -a "select
#       comm, count(*) from sys_enter_getppid group by comm" (BPF, then --no-bpf: the ring),
#       and under bpftrace 'tracepoint:syscalls:sys_enter_getppid { @[comm] = count(); }':
#       ns added per call (the workload's own ns/call: it times its loop).
#   (2) log2_hist of write sizes: writes N/2 of 8 and N/2 of 4096 bytes (pinned to CPU 0), under
#       perf-sql "select log2_hist(count) ... where comm = 'writes'" and bpftrace's
#       '/comm == "writes"/ { @ = hist(args->count); }': ns added per write (the workload's
#       wall time from a wrapper that stamps its start and end).
#   (3) start-up: wall time of each tool's (1) with "true" as the command, median of 5.
#   (4) perf-sql's own CPU (user + sys, wait4's rusage in us) for 1M events in 10 groups (10
#       loops of 100000 calls, GROUP BY _pid, run outside perf-sql), minus that of a run with none.
# Each tool's answer is checked: the N calls of getppid_loop counted, the hist of N writes.
# Run by bench/run.sh (section "bpf") or alone: PERF_SQL=... BUILD=... bash bench/bpf.sh
# Knobs: BENCH_REPS (3), BENCH_BPF_CALLS (2000000).
set -u
: "${PERF_SQL:?}" "${BUILD:?}"
WL=$BUILD/workloads
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
REPS=${BENCH_REPS:-3}
N=${BENCH_BPF_CALLS:-2000000}
BT_COUNT='tracepoint:syscalls:sys_enter_getppid { @[comm] = count(); }'
BT_HIST='tracepoint:syscalls:sys_enter_write /comm == "writes"/ { @ = hist(args->count); }'
SQL_COUNT="select comm, count(*) from sys_enter_getppid group by comm"
SQL_HIST="select log2_hist(count) from sys_enter_write where comm = 'writes'"
median() { sort -g | awk '{ v[NR] = $1 } END { print NR ? v[int((NR + 1) / 2)] : "-" }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a == "-" || b == "-" || b <= 0) print "-"; else printf "%.2f", a / b }'; }
anomaly() { echo "$*" >> "$T/anomalies"; }
: > "$T/anomalies"

have_bt=1
command -v bpftrace > /dev/null || { have_bt=0; echo "bpf: [bpftrace skipped: not installed; make setup installs it]"; }
p=$("$PERF_SQL" -a --explain "$SQL_COUNT" 2>&1)
if ! printf '%s\n' "$p" | grep -q "aggregated in the kernel"; then
	echo "bpf: [skipped: perf-sql does not aggregate in the kernel here: $(printf '%s\n' "$p" | grep path)]"
	exit 0
fi

# ns per call of getppid_loop (its own timing), under CMD...; checks the answer in $T/out
loop_ns() {
	"$@" > "$T/out" 2> "$T/err"
	awk '/^calls=/ { split($1, c, "="); split($2, t, "="); printf "%.1f\n", t[2] / c[2] }' "$T/out"
}
# absolute paths: bpftrace -c refuses a name PATH resolves twice (/bin and /usr/bin)
TASKSET=$(readlink -f "$(command -v taskset)")
SH=$(readlink -f "$(command -v sh)")
wloop=("$TASKSET" -c 0 "$WL/getppid_loop" "$N")
for ((r = 0; r < REPS; r++)); do
	loop_ns "${wloop[@]}" >> "$T/c.base"
	loop_ns "$PERF_SQL" -a "$SQL_COUNT" -- "${wloop[@]}" >> "$T/c.bpf"
	grep -q "getppid_loop *$N\$" "$T/out" || anomaly "perf-sql BPF: $(cat "$T/out" "$T/err" | tr '\n' ' ')"
	loop_ns "$PERF_SQL" -a --no-bpf -m 1024 "$SQL_COUNT" -- "${wloop[@]}" >> "$T/c.ring"
	[ "$have_bt" = 1 ] || continue
	loop_ns bpftrace -e "$BT_COUNT" -c "${wloop[*]}" >> "$T/c.bt"
	grep -q "@\[getppid_loop\]: $N\$" "$T/out" || anomaly "bpftrace: $(cat "$T/out" "$T/err" | tr '\n' ' ' | head -c 300)"
done
base=$(median < "$T/c.base")
added() { [ -s "$1" ] && median < "$1" | awk -v b="$base" '{ printf "%.1f", $1 - b }' || echo -; }
bpf=$(added "$T/c.bpf"); ring=$(added "$T/c.ring"); bt=$(added "$T/c.bt")
echo "bpf count by comm, getppid x $N (untraced $base ns/call): ns added per call: perf-sql BPF $bpf  bpftrace $bt  ratio $(ratio "$bpf" "$bt") (target <= 0.5);  perf-sql ring $ring  ratio BPF/ring $(ratio "$bpf" "$ring")"

# (2) log2_hist of write sizes; the wrapper prints the workload's own wall time
cat > "$T/wr.sh" << EOF
s=\$(date +%s%N); "$TASKSET" -c 0 "$WL/writes" $((N / 2)) 8 $((N / 2)) 4096; e=\$(date +%s%N)
echo "calls=$N ns=\$((e - s))"
EOF
for ((r = 0; r < REPS; r++)); do
	loop_ns "$SH" "$T/wr.sh" >> "$T/h.base"
	loop_ns "$PERF_SQL" -a "$SQL_HIST" -- "$SH" "$T/wr.sh" >> "$T/h.bpf"
	grep -q "4096 -> 8191 *: $((N / 2)) " "$T/out" || anomaly "perf-sql log2_hist: $(tr '\n' ' ' < "$T/out" | head -c 300)"
	[ "$have_bt" = 1 ] || continue
	loop_ns bpftrace -e "$BT_HIST" -c "$SH $T/wr.sh" >> "$T/h.bt"
	grep -q "^\[4K, 8K) *$((N / 2)) " "$T/out" || anomaly "bpftrace hist: $(tr '\n' ' ' < "$T/out" | head -c 300)"
done
base=$(median < "$T/h.base")
bpf=$(added "$T/h.bpf"); bt=$(added "$T/h.bt")
echo "bpf log2_hist of write sizes, $N writes (untraced $base ns/write): ns added per write: perf-sql BPF $bpf  bpftrace $bt  ratio $(ratio "$bpf" "$bt")"

# (3) start-up: the whole run over "true"
wall() {
	local s e
	s=$EPOCHREALTIME
	"$@" > /dev/null 2>&1
	e=$EPOCHREALTIME
	awk -v s="$s" -v e="$e" 'BEGIN { printf "%.4f\n", e - s }'
}
for ((r = 0; r < 5; r++)); do
	wall "$PERF_SQL" -a "$SQL_COUNT" -- true >> "$T/s.bpf"
	wall "$PERF_SQL" -a --no-bpf "$SQL_COUNT" -- true >> "$T/s.ring"
	[ "$have_bt" = 1 ] && wall bpftrace -e "$BT_COUNT" -c "$(readlink -f "$(command -v true)")" >> "$T/s.bt"
done
sb=$(median < "$T/s.bpf"); sr=$(median < "$T/s.ring"); st=$([ -s "$T/s.bt" ] && median < "$T/s.bt" || echo -)
echo "bpf start-up (wall time over \"true\", median of 5): perf-sql BPF $sb s  bpftrace $st s  ratio $(ratio "$sb" "$st") (target <= 0.25);  perf-sql ring $sr s"

# (4) perf-sql's CPU for 1M events in 10 groups: the loops run outside perf-sql (its rusage
# would count a child's CPU) while its workload waits on a FIFO; cpu 0: no loop
rusage() {   # rusage FILE CMD...: CMD's user + sys seconds (us resolution) into FILE
	python3 -c 'import os, sys
pid = os.fork()
if pid == 0:
    os.execvp(sys.argv[2], sys.argv[2:])
_, _, ru = os.wait4(pid, 0)
open(sys.argv[1], "w").write("%.6f\n" % (ru.ru_utime + ru.ru_stime))' "$@"
}
cpu() {
	local go=$T/go.$1 i pids=()
	mkfifo "$go"
	rm -f "$T/err.$1"
	rusage "$T/time" "$PERF_SQL" -a -v "$sql10" -- "$SH" -c "read x < $go" > "$T/out" \
		2> "$T/err.$1" &
	for ((i = 0; i < 250; i++)); do grep -q "^  target" "$T/err.$1" 2> /dev/null && break; sleep 0.02; done
	for ((i = 0; i < $1; i++)); do "$WL/getppid_loop" 100000 > /dev/null & pids+=($!); done
	[ ${#pids[@]} -gt 0 ] && wait "${pids[@]}"
	echo > "$go"
	wait
	rm -f "$go"
	cat "$T/time"
}
if command -v python3 > /dev/null; then
	sql10="select _pid, count(*) from sys_enter_getppid where comm = 'getppid_loop' group by _pid"
	for ((r = 0; r < REPS; r++)); do
		cpu 10 >> "$T/u.ten"
		[ "$(awk '$2 == 100000' "$T/out" | wc -l)" = 10 ] || anomaly "10 groups: $(tr '\n' ' ' < "$T/out")"
		cpu 0 >> "$T/u.none"
	done
	awk -v a="$(median < "$T/u.ten")" -v b="$(median < "$T/u.none")" 'BEGIN {
		printf "bpf perf-sql CPU for 1M events in 10 groups (user+sys, minus a run with no events): %.2f ms (target < 5 ms; the whole run: %.1f ms)\n", (a - b) * 1000, a * 1000 }'
fi
if [ -s "$T/anomalies" ]; then
	echo "bpf anomalies:"
	sed 's/^/  /' "$T/anomalies"
fi
exit 0
