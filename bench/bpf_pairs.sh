#!/usr/bin/env bash
# bench/bpf_pairs.sh - pairs() in the kernel (docs/bpf.md) side by side with its peers, in one
# run, as ratios (lower is better); tools interleaved per repetition, medians.
#   (1) syscall latency: getppid_loop N (pinned to CPU 0) untraced, under `perf-sql syscalls`
#       (BPF, then --no-bpf: the ring), a bpftrace script pairing raw_syscalls sys_enter/sys_exit
#       per tid into hist(), `perf trace -s`, and bcc's `syscount -L` where it runs (on the
#       loop's pid): ns added per call (a call is one enter and one exit; the loop times itself).
#   (2) run delay: pingpong -c 0 N (both tasks on CPU 0: a wakeup and a switch to the wakee
#       per half round trip) untraced, under `perf-sql -a rundelay` (BPF, ring) and a bpftrace
#       runqlat script (wakeup -> switch to, per pid into hist()); ns added per round trip.
#   (3) run delay of a workload: the same under `perf-sql rundelay -- CMD` (in the kernel the
#       programs test the tasks an event names against the map of the workload's tasks; the
#       ring picks its rows in user space) and bpftrace's own runqlat.bt (Debian's bpftrace
#       package, /usr/sbin), which has no target: every task's delays.
# Each tool's answer is checked where it has one: perf-sql's getppid calls, bpftrace's count.
# Run by bench/run.sh (section "pairs") or alone: PERF_SQL=... BUILD=... bash bench/bpf_pairs.sh
# Knobs: BENCH_REPS (3), BENCH_PAIRS_CALLS (1000000), BENCH_PAIRS_PP (100000),
# BENCH_PAIRS_ONLY (syscalls or rundelay: that part alone).
set -u
: "${PERF_SQL:?}" "${BUILD:?}"
WL=$BUILD/workloads
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
REPS=${BENCH_REPS:-3}
N=${BENCH_PAIRS_CALLS:-1000000}
PP=${BENCH_PAIRS_PP:-100000}
BT_SYS='tracepoint:raw_syscalls:sys_enter /pid == cpid/ { @s[tid] = nsecs; }
tracepoint:raw_syscalls:sys_exit /pid == cpid && @s[tid]/ {
	@[args->id] = hist(nsecs - @s[tid]); @n = count(); delete(@s[tid]); }'
BT_RQ='tracepoint:sched:sched_wakeup { @q[args->pid] = nsecs; }
tracepoint:sched:sched_switch /@q[args->next_pid]/ {
	@[args->next_pid] = hist(nsecs - @q[args->next_pid]); delete(@q[args->next_pid]); }'
median() { sort -g | awk '{ v[NR] = $1 } END { print NR ? v[int((NR + 1) / 2)] : "-" }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a == "-" || b == "-" || b <= 0) print "-"; else printf "%.2f", a / b }'; }
anomaly() { echo "$*" >> "$T/anomalies"; }
: > "$T/anomalies"

p=$("$PERF_SQL" --explain syscalls 2>&1)
if ! printf '%s\n' "$p" | grep -q "pairs() starts in the kernel"; then
	echo "pairs: [skipped: perf-sql does not pair in the kernel here: $(printf '%s\n' "$p" | grep path | head -1)]"
	exit 0
fi
have() { command -v "$1" > /dev/null; }
# ns per call of getppid_loop (its own timing) under CMD...; the output in $T/out
loop_ns() {
	"$@" > "$T/out" 2> "$T/err"
	awk '/^calls=/ { split($1, c, "="); split($2, t, "="); printf "%.1f\n", t[2] / c[2] }' "$T/out" "$T/err" | head -1
}
TASKSET=$(readlink -f "$(command -v taskset)")
wloop=("$TASKSET" -c 0 "$WL/getppid_loop" "$N")
# syscount -L follows a pid: the loop, started stopped, released once syscount is attached
syscount_ns() {
	local pid ns
	"$TASKSET" -c 0 "$WL/getppid_loop" "$N" > "$T/sc.loop" 2>&1 &
	pid=$!
	kill -STOP "$pid"
	syscount-bpfcc -L -p "$pid" > "$T/out" 2> "$T/err" &
	local sc=$!
	sleep 3 # bcc compiles its program
	kill -CONT "$pid"
	wait "$pid"
	kill -INT "$sc" 2> /dev/null
	wait "$sc"
	awk '/^calls=/ { split($1, c, "="); split($2, t, "="); printf "%.1f\n", t[2] / c[2] }' "$T/sc.loop"
}
sc_ok=0
have syscount-bpfcc && timeout 20 syscount-bpfcc -L -d 1s > /dev/null 2>&1 && sc_ok=1
[ "${BENCH_PAIRS_ONLY:-}" = rundelay ] && REPS_S=0 || REPS_S=$REPS
for ((r = 0; r < REPS_S; r++)); do
	loop_ns "${wloop[@]}" >> "$T/s.base"
	loop_ns "$PERF_SQL" syscalls -- "${wloop[@]}" >> "$T/s.bpf"
	grep -q "^getppid *$N " "$T/out" || anomaly "perf-sql syscalls: $(head -c 300 "$T/out")"
	loop_ns "$PERF_SQL" --no-bpf -m 1024 syscalls -- "${wloop[@]}" >> "$T/s.ring"
	grep -q "^getppid *$N " "$T/out" || anomaly "perf-sql syscalls --no-bpf: $(head -c 300 "$T/out")"
	if have bpftrace; then
		loop_ns bpftrace -e "$BT_SYS" -c "${wloop[*]}" >> "$T/s.bt"
	fi
	if have perf; then
		loop_ns perf trace -s -- "${wloop[@]}" >> "$T/s.ptrace"
	fi
	[ "$sc_ok" = 1 ] && syscount_ns >> "$T/s.sc"
done
base=$( [ -s "$T/s.base" ] && median < "$T/s.base" || echo -)
added() { [ -s "$1" ] && median < "$1" | awk -v b="$base" '{ printf "%.1f", $1 - b }' || echo -; }
bpf=$(added "$T/s.bpf"); ring=$(added "$T/s.ring"); bt=$(added "$T/s.bt")
pt=$(added "$T/s.ptrace"); sc=$(added "$T/s.sc")
[ "$sc_ok" = 1 ] || sc="- (bcc does not run here)"
[ "$REPS_S" = 0 ] || echo "pairs syscalls, getppid x $N (untraced $base ns/call): ns added per call: perf-sql BPF $bpf," \
	"bpftrace enter/exit hist() $bt, perf trace -s $pt, syscount -L ${sc}; perf-sql ring $ring"
[ "$REPS_S" = 0 ] || echo "pairs syscalls ratios: BPF/bpftrace $(ratio "$bpf" "$bt") (target <= 0.5)," \
	"BPF/ring $(ratio "$bpf" "$ring") (target <= 0.3), BPF/perf trace $(ratio "$bpf" "$pt")," \
	"BPF/syscount $(ratio "$bpf" "$sc")"

# (2) run delay: pingpong's wall time from a wrapper
cat > "$T/pp.sh" << EOF
s=\$(date +%s%N); "$WL/pingpong" -c 0 $PP; e=\$(date +%s%N)
echo "calls=$PP ns=\$((e - s))"
EOF
SH=$(readlink -f "$(command -v sh)")
RQLAT=/usr/sbin/runqlat.bt
[ -r "$RQLAT" ] || RQLAT=/usr/share/bpftrace/tools/runqlat.bt
[ "${BENCH_PAIRS_ONLY:-}" = syscalls ] && REPS=0
rq_ok=0
have bpftrace && [ -r "$RQLAT" ] && timeout 30 bpftrace "$RQLAT" -c true > /dev/null 2>&1 && rq_ok=1
for ((r = 0; r < REPS; r++)); do
	loop_ns "$SH" "$T/pp.sh" >> "$T/r.base"
	loop_ns "$PERF_SQL" -a rundelay -- "$SH" "$T/pp.sh" >> "$T/r.bpf"
	grep -q "pingpong" "$T/out" || anomaly "perf-sql rundelay: $(head -c 300 "$T/out")"
	loop_ns "$PERF_SQL" -a --no-bpf -m 1024 rundelay -- "$SH" "$T/pp.sh" >> "$T/r.ring"
	have bpftrace && loop_ns bpftrace -e "$BT_RQ" -c "$SH $T/pp.sh" >> "$T/r.bt"
	loop_ns "$PERF_SQL" rundelay -- "$SH" "$T/pp.sh" >> "$T/w.bpf"
	grep -q "^pingpong" "$T/out" || anomaly "perf-sql rundelay -- CMD: $(head -c 300 "$T/out")"
	loop_ns "$PERF_SQL" --no-bpf -m 1024 rundelay -- "$SH" "$T/pp.sh" >> "$T/w.ring"
	# runqlat.bt itself when it compiles here (it includes <linux/sched.h>, which Debian 12's
	# headers fail to parse: __aligned_u64); else the same script as (2), every task
	if have bpftrace && [ "$rq_ok" = 1 ]; then
		loop_ns bpftrace "$RQLAT" -c "$SH $T/pp.sh" >> "$T/w.bt"
	fi
done
[ "$REPS" = 0 ] && { [ -s "$T/anomalies" ] && sed 's/^/pairs anomaly: /' "$T/anomalies"; exit 0; }
base=$(median < "$T/r.base")
bpf=$(added "$T/r.bpf"); ring=$(added "$T/r.ring"); bt=$(added "$T/r.bt")
echo "pairs rundelay, pingpong -c 0 x $PP (untraced $base ns/round trip): ns added per round trip:" \
	"perf-sql BPF $bpf, bpftrace runqlat $bt, perf-sql ring $ring; ratios BPF/bpftrace" \
	"$(ratio "$bpf" "$bt"), BPF/ring $(ratio "$bpf" "$ring")"
bpf=$(added "$T/w.bpf"); ring=$(added "$T/w.ring"); bt=$(added "$T/w.bt") btn=runqlat.bt
[ "$rq_ok" = 1 ] || { bt=$(added "$T/r.bt"); btn="runqlat (runqlat.bt does not compile here; the script of (2))"; }
echo "pairs rundelay -- CMD, pingpong -c 0 x $PP (untraced $base ns/round trip): ns added per" \
	"round trip: perf-sql BPF (the workload's tasks) $bpf, bpftrace $btn (every task) $bt," \
	"perf-sql ring $ring; ratios BPF/runqlat.bt $(ratio "$bpf" "$bt") (target <= 0.5)," \
	"BPF/ring $(ratio "$bpf" "$ring") (target <= 0.4)"
[ -s "$T/anomalies" ] && sed 's/^/pairs anomaly: /' "$T/anomalies"
exit 0
