#!/usr/bin/env bash
# bench/user_str.sh - user strings (docs/bpf.md, "User strings") side by side with bpftrace, in
# one run, as ns added per openat call (lower is better); tools interleaved per repetition,
# medians. The workload: opener N pinned to CPU 0 (N + 5 openat calls of known paths), timed by
# a wrapper that stamps its start and end:
#   untraced;
#   perf-sql -m 1024 "select filename_str, count(*) ... group by 1" -- the wrapper (every call's
#     record and string through the BPF output event to user space, grouped by SQLite);
#   perf-sql the same on `filename` (the pointer: the plain tracepoint ring, no program);
#   bpftrace 'tracepoint:syscalls:sys_enter_openat /comm == "opener"/ { printf("%s\n",
#     str(args->filename)); }' (every call's string through bpftrace's perf buffer, printed).
# Each answer is checked: N calls of /nonexistent/perf-sql-opener/a.
# Run by bench/run.sh (section "ustr") or alone: PERF_SQL=... BUILD=... bash bench/user_str.sh
# Knobs: BENCH_REPS (3), BENCH_USTR_CALLS (200000).
set -u
: "${PERF_SQL:?}" "${BUILD:?}"
WL=$BUILD/workloads
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
REPS=${BENCH_REPS:-3}
N=${BENCH_USTR_CALLS:-200000}
A=/nonexistent/perf-sql-opener/a
median() { sort -g | awk '{ v[NR] = $1 } END { print NR ? v[int((NR + 1) / 2)] : "-" }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a == "-" || b == "-" || b <= 0) print "-"; else printf "%.2f", a / b }'; }
anomaly() { echo "$*" >> "$T/anomalies"; }
: > "$T/anomalies"

have_bt=1
command -v bpftrace > /dev/null || { have_bt=0; echo "ustr: [bpftrace skipped: not installed; make setup installs it]"; }
p=$("$PERF_SQL" --explain "select filename_str from sys_enter_openat" 2>&1)
if ! printf '%s\n' "$p" | grep -q "BPF output event"; then
	echo "ustr: [skipped: no user strings here: $(printf '%s\n' "$p" | tail -1)]"
	exit 0
fi
TASKSET=$(readlink -f "$(command -v taskset)")
SH=$(readlink -f "$(command -v sh)")
cat > "$T/op.sh" << EOF
s=\$(date +%s%N); "$TASKSET" -c 0 "$WL/opener" $N; e=\$(date +%s%N)
echo "calls=$((N + 5)) ns=\$((e - s))"
EOF
# ns per call of the wrapper's run under CMD...; the answer in $T/out
call_ns() {
	"$@" > "$T/out" 2> "$T/err"
	awk '/^calls=/ { split($1, c, "="); split($2, t, "="); printf "%.1f\n", t[2] / c[2] }' "$T/out"
}
BT='tracepoint:syscalls:sys_enter_openat /comm == "opener"/ { printf("%s\n", str(args->filename)); }'
for ((r = 0; r < REPS; r++)); do
	call_ns "$SH" "$T/op.sh" >> "$T/base"
	call_ns "$PERF_SQL" -m 1024 "select filename_str, count(*) from sys_enter_openat group by 1" \
		-- "$SH" "$T/op.sh" >> "$T/str"
	grep -q "^$A  *$N\$" "$T/out" || anomaly "perf-sql filename_str: $(tr '\n' ' ' < "$T/out" | head -c 300)"
	call_ns "$PERF_SQL" -m 1024 "select filename, count(*) from sys_enter_openat group by 1" \
		-- "$SH" "$T/op.sh" >> "$T/ring"
	[ "$have_bt" = 1 ] || continue
	call_ns bpftrace -e "$BT" -c "$SH $T/op.sh" >> "$T/bt"
	[ "$(grep -c "^$A\$" "$T/out")" = "$N" ] || anomaly "bpftrace: $(grep -c "^$A\$" "$T/out") lines of $A"
done
base=$(median < "$T/base")
added() { [ -s "$1" ] && median < "$1" | awk -v b="$base" '{ printf "%.1f", $1 - b }' || echo -; }
str=$(added "$T/str"); ring=$(added "$T/ring"); bt=$(added "$T/bt")
echo "ustr openat x $((N + 5)) (untraced $base ns/call): ns added per call: perf-sql filename_str $str  bpftrace str() $bt  ratio $(ratio "$str" "$bt");  perf-sql ring (the pointer only) $ring  ratio $(ratio "$str" "$ring")"
if [ -s "$T/anomalies" ]; then
	echo "ustr anomalies:"
	sed 's/^/  /' "$T/anomalies"
fi
