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
#   (5) a 99 Hz stack profile of a busy CPU: burn SECS pinned to CPU 0, untraced and while each
#       profiler samples every CPU for its first SECS (burn runs SECS + 2, so it is alive when
#       perf-sql reads the groups and its mappings): perf-sql -a "select folded_stack(stack),
#       count(*) from cpu_clock(99) group by stack" (in the kernel), perf record -a -g -F 99,
#       bcc's profile -F 99 (where it runs). burn's work per ns on CPU (bench/burn_rounds.c: the
#       sampling interrupts count as its time), slowdown = untraced rate / rate under the tool.
# Each tool's answer is checked: the N calls of getppid_loop counted, the hist of N writes.
# Run by bench/run.sh (section "bpf") or alone: PERF_SQL=... BUILD=... bash bench/bpf.sh
# Knobs: BENCH_REPS (3), BENCH_BPF_CALLS (2000000), BENCH_PROFILE_SECS (5).
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

# (3) start-up: the whole run over "true" (a run that fails is no time: said, and left out;
# bpftrace -c needs the program's path, `command -v true` names the shell's builtin)
wall() {
	local s e
	s=$EPOCHREALTIME
	if ! "$@" > "$T/wall.out" 2>&1; then
		echo "bench: start-up: $1 failed: $(head -c 300 "$T/wall.out")" >&2
		return
	fi
	e=$EPOCHREALTIME
	awk -v s="$s" -v e="$e" 'BEGIN { printf "%.4f\n", e - s }'
}
for ((r = 0; r < 5; r++)); do
	wall "$PERF_SQL" -a "$SQL_COUNT" -- true >> "$T/s.bpf"
	wall "$PERF_SQL" -a --no-bpf "$SQL_COUNT" -- true >> "$T/s.ring"
	[ "$have_bt" = 1 ] && wall bpftrace -e "$BT_COUNT" -c "$(type -P true)" >> "$T/s.bt"
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
# (5) a 99 Hz stack profile of a busy CPU
S=${BENCH_PROFILE_SECS:-5}
SQL_PROF="select folded_stack(stack), count(*) from cpu_clock(99) group by stack"
BURN=$(readlink -f "$WL/burn")
addr=$(nm "$WL/burn" 2> /dev/null | awk '$3 == "sink" { print $1; exit }')
BCC=$(command -v profile-bpfcc || command -v /usr/share/bcc/tools/profile || true)
if [ -n "$BCC" ] && ! "$BCC" -F 99 1 > "$T/bcc.out" 2>&1; then
	bcc_why="bcc's profile does not run here: $(grep -v '^ *$' "$T/bcc.out" | tail -1 | cut -c1-160)"
	BCC=
elif [ -z "$BCC" ]; then
	bcc_why="bcc's profile: not installed (bpfcc-tools)"
fi
# burn_rate FILE CMD...: burn S on CPU 0 while CMD runs; burn's work per ns on CPU into FILE
burn_rate() {
	local out=$1 pid
	shift
	"$WL/burn" $((S + 2)) &
	pid=$!
	taskset -p -c 0 "$pid" > /dev/null
	while [ "$(readlink "/proc/$pid/exe")" != "$BURN" ] && kill -0 "$pid" 2> /dev/null; do sleep 0.01; done
	"$T/burn_rounds" "$pid" "$addr" > "$T/sink" 2> "$T/sink.err" &
	"$@" > "$T/out" 2> "$T/err"
	wait
	sed -n 's/^sink=\([0-9]*\) oncpu_ns=\([0-9]*\)$/\1 \2/p' "$T/sink" |
		awk '$2 > 0 { printf "%.9g\n", $1 / $2 }' >> "$out"
	[ -s "$T/sink" ] || anomaly "burn_rounds: $(head -c 200 "$T/sink.err")"
}
if [ -n "$addr" ] && cc -O2 -o "$T/burn_rounds" "$(dirname "$0")/burn_rounds.c" 2> /dev/null; then
	have_perf=$(command -v perf > /dev/null && echo 1 || echo 0)
	for ((r = 0; r < REPS; r++)); do
		burn_rate "$T/p.base" sleep "$S"
		burn_rate "$T/p.sql" "$PERF_SQL" --csv -a -d "${S}s" "$SQL_PROF"
		grep -q "burn;.*;main;burn_a" "$T/out" || anomaly "perf-sql profile: no burn_a: $(head -c 300 "$T/out" "$T/err")"
		[ "$have_perf" = 1 ] && burn_rate "$T/p.perf" perf record -q -a -g -F 99 -o "$T/perf.data" -- sleep "$S"
		[ -n "$BCC" ] && burn_rate "$T/p.bcc" "$BCC" -F 99 "$S"
	done
	rm -f "$T/perf.data"
	base=$(median < "$T/p.base")
	slow() { [ -s "$1" ] && ratio "$base" "$(median < "$1")" || echo -; }
	ps=$(slow "$T/p.sql"); pr=$(slow "$T/p.perf"); pb=$(slow "$T/p.bcc")
	# the untraced runs' spread: on a shared VM (steal time counts as burn's CPU time) it can
	# be larger than the 1 % to resolve
	spread=$(sort -g "$T/p.base" | awk '{ v[NR] = $1 } END { if (NR > 1 && v[1] > 0) printf "%.0f", (v[NR] / v[1] - 1) * 100; else print "-" }')
	echo "bpf 99 Hz stack profile of a busy CPU (burn on CPU 0, $S s sampled, every CPU sampled): slowdown (untraced work per CPU ns / traced): perf-sql BPF $ps  perf record -g $pr  bcc profile $pb (target perf-sql <= 1.01);  perf-sql / perf record $(ratio "$ps" "$pr");  untraced runs spread $spread %${bcc_why:+  [$bcc_why]}"
else
	echo "bpf: [stack profile skipped: no burn workload with its sink symbol, or no cc for bench/burn_rounds.c]"
fi
if [ -s "$T/anomalies" ]; then
	echo "bpf anomalies:"
	sed 's/^/  /' "$T/anomalies"
fi
exit 0
