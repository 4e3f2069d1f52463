#!/usr/bin/env bash
# bench/cgroup.sh - what reading _cgroup costs per event (docs/tables.md), on each path, against
# the same statement without it, and against bpftrace's cgroup builtin, in one run.
#   getppid_loop N (pinned to CPU 0, in a cgroup of the v2 hierarchy made here) untraced, then
#   under perf-sql -a "select _pid, count(*) from sys_enter_getppid group by _pid" and the same
#   with _cgroup as a second key, on the kernel path (bpf_get_current_cgroup_id() per event)
#   and on the ring (--no-bpf: PERF_SAMPLE_CGROUP, 8 bytes more per row, the path looked up per
#   row), and under bpftrace '@[pid] = count()', '@[pid, cgroup] = count()' and
#   '@[cgroup] = count()': ns added per call (the workload times its own loop).
# Each answer is checked: the N calls counted, in the cgroup's row where there is one.
# Run by bench/run.sh (section "cgroup") or alone: PERF_SQL=... BUILD=... bash bench/cgroup.sh
# Knobs: BENCH_REPS (3), BENCH_BPF_CALLS (2000000).
set -u
: "${PERF_SQL:?}" "${BUILD:?}"
WL=$BUILD/workloads
T=$(mktemp -d)
REPS=${BENCH_REPS:-3}
N=${BENCH_BPF_CALLS:-2000000}
base_dir=
for d in /sys/fs/cgroup/unified /sys/fs/cgroup; do
	[ -f "$d/cgroup.procs" ] && [ "$(stat -f -c %T "$d")" = cgroup2fs ] && base_dir=$d && break
done
[ -n "$base_dir" ] || { echo "cgroup: [skipped: no cgroup v2 hierarchy mounted]"; exit 0; }
CG=perfsql-bench-$$
mkdir "$base_dir/$CG" || { echo "cgroup: [skipped: cannot make a cgroup under $base_dir]"; exit 0; }
trap 'rmdir "$base_dir/$CG"; rm -rf "$T"' EXIT
Q0="select _pid, count(*) from sys_enter_getppid group by _pid"
Q1="select _pid, _cgroup, count(*) from sys_enter_getppid group by _pid, _cgroup"
BT0='tracepoint:syscalls:sys_enter_getppid { @[pid] = count(); }'
BT1='tracepoint:syscalls:sys_enter_getppid { @[pid, cgroup] = count(); }'
BT2='tracepoint:syscalls:sys_enter_getppid { @[cgroup] = count(); }'
median() { sort -g | awk '{ v[NR] = $1 } END { print NR ? v[int((NR + 1) / 2)] : "-" }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a == "-" || b == "-" || b <= 0) print "-"; else printf "%.2f", a / b }'; }
anomaly() { echo "cgroup: anomaly: $*"; }

have_bt=1
command -v bpftrace > /dev/null || { have_bt=0; echo "cgroup: [bpftrace skipped: not installed]"; }
p=$("$PERF_SQL" -a --explain "$Q1" 2>&1)
printf '%s\n' "$p" | grep -q "aggregated in the kernel" ||
	echo "cgroup: [kernel path not taken here: $(printf '%s\n' "$p" | grep path)]"
# ns per call of getppid_loop (its own timing) in the cgroup, under CMD...; the answer in $T/out
TASKSET=$(readlink -f "$(command -v taskset)")
loop_ns() {
	"$@" > "$T/out" 2> "$T/err"
	awk '/^calls=/ { split($1, c, "="); split($2, t, "="); printf "%.1f\n", t[2] / c[2] }' "$T/out"
}
# the workload joins the cgroup, then execs (the shell's own getppid() is before it joins)
printf '#!/bin/sh\necho $$ > %s/cgroup.procs && exec %s -c 0 %s %s\n' "$base_dir/$CG" "$TASKSET" \
	"$WL/getppid_loop" "$N" > "$T/run" && chmod +x "$T/run"
wloop=("$T/run")
check() { # the cgroup's row holds the N calls (the pid's, the shell's getppid() too)
	grep -qE "$1" "$T/out" || anomaly "$2: $(tr '\n' ' ' < "$T/out" | head -c 300)"
}
for ((r = 0; r < REPS; r++)); do
	loop_ns "${wloop[@]}" >> "$T/base"
	loop_ns "$PERF_SQL" -a --csv "$Q0" -- "${wloop[@]}" >> "$T/bpf0"
	check "^[0-9]+,($N|$((N + 1)))\$" "perf-sql BPF"
	loop_ns "$PERF_SQL" -a --csv "$Q1" -- "${wloop[@]}" >> "$T/bpf1"
	check "^[0-9]+,$CG,$N\$" "perf-sql BPF _cgroup"
	loop_ns "$PERF_SQL" -a --csv --no-bpf -m 1024 "$Q0" -- "${wloop[@]}" >> "$T/ring0"
	check "^[0-9]+,($N|$((N + 1)))\$" "perf-sql ring"
	loop_ns "$PERF_SQL" -a --csv --no-bpf -m 1024 "$Q1" -- "${wloop[@]}" >> "$T/ring1"
	check "^[0-9]+,$CG,$N\$" "perf-sql ring _cgroup"
	[ "$have_bt" = 1 ] || continue
	loop_ns bpftrace -e "$BT0" -c "/bin/sh $T/run" >> "$T/bt0"
	check "^@\[[0-9]+\]: ($N|$((N + 1)))\$" "bpftrace pid"
	loop_ns bpftrace -e "$BT1" -c "/bin/sh $T/run" >> "$T/bt1"
	check "^@\[[0-9]+, $(stat -c %i "$base_dir/$CG")\]: $N\$" "bpftrace pid, cgroup"
	loop_ns bpftrace -e "$BT2" -c "/bin/sh $T/run" >> "$T/bt2"
	check "^@\[$(stat -c %i "$base_dir/$CG")\]: $N\$" "bpftrace cgroup"
done
base=$(median < "$T/base")
added() { [ -s "$1" ] && median < "$1" | awk -v b="$base" '{ printf "%.1f", $1 - b }' || echo -; }
b0=$(added "$T/bpf0"); b1=$(added "$T/bpf1"); r0=$(added "$T/ring0"); r1=$(added "$T/ring1")
t0=$(added "$T/bt0"); t1=$(added "$T/bt1"); t2=$(added "$T/bt2")
d() { awk -v a="$1" -v b="$2" 'BEGIN { if (a == "-" || b == "-") print "-"; else printf "%.1f", a - b }'; }
echo "cgroup getppid x $N in a v2 cgroup (untraced $base ns/call): ns added per call:" \
	"perf-sql BPF by _pid $b0, by _pid, _cgroup $b1 (_cgroup: +$(d "$b1" "$b0"));" \
	"ring by _pid $r0, by _pid, _cgroup $r1 (_cgroup: +$(d "$r1" "$r0"));" \
	"bpftrace @[pid] $t0, @[pid, cgroup] $t1 (cgroup: +$(d "$t1" "$t0")), @[cgroup] $t2;" \
	"ratio perf-sql BPF _cgroup / bpftrace $(ratio "$b1" "$t1")"
