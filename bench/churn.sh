#!/usr/bin/env bash
# bench/churn.sh - continuous profiling that lasts: perf-sql -i 1000 "select stack, count(*) ...
# from cpu_clock(999) group by stack" system-wide in the kernel for BENCH_CHURN_SECS (600: the
# ten minutes of issue #26) while new processes come and go (getppid_loop runs of 100,000 calls,
# each a new process at new addresses: new user chains), and the same with --max-groups 1024 (a
# map the churn fills every three windows). Each line: the windows, the first and the last
# window's stacks and samples, the samples the stack map refused in the last window and in all.
# A stack map that is never emptied (perf-sql before 2026-11-27, and any profiler that keeps
# one bpf_get_stackid() map for the run) refuses more and more and holds fewer stacks a window.
# Run by bench/run.sh (section "churn") or alone: PERF_SQL=... BUILD=... bash bench/churn.sh
set -u
: "${PERF_SQL:?}" "${BUILD:?}"
WL=$BUILD/workloads
T=$(mktemp -d)
CPID=
trap '[ -n "$CPID" ] && kill $CPID 2> /dev/null; rm -rf "$T"' EXIT
SECS=${BENCH_CHURN_SECS:-600}
SQL="select count(*) as stacks, sum(n) as samples from (select stack, count(*) as n
	from cpu_clock(999) group by stack);
	select sum(received) as received, sum(lost) as lost from perf_sql_stats where \"table\" = 'cpu_clock'"
p=$("$PERF_SQL" --explain -i 1000 "$SQL" 2>&1)
if ! printf '%s\n' "$p" | grep -q "aggregated in the kernel"; then
	echo "churn: [skipped: not aggregated in the kernel here: $(printf '%s\n' "$p" | grep path)]"
	exit 0
fi
(while :; do "$WL/getppid_loop" 100000 > /dev/null; done) &
CPID=$!
for groups in 10240 1024; do
	"$PERF_SQL" --csv -i 1000 -d "${SECS}s" --max-groups $groups "$SQL" 2> "$T/err" |
		tr -d '\r' | grep -v '^window_start' | cut -d, -f2- | paste -d, - - > "$T/rows"
	awk -F, -v g=$groups -v s="$SECS" '
		NR == 1 { fs = $1; fn = $2 }
		{ ls = $1; ln = $2; ll = $4; lost += $4; n++ }
		END { printf "churn: %d s of new processes, -i 1000, cpu_clock(999) GROUP BY stack in the kernel, --max-groups %d: %d windows; first window %d stacks (%d samples), last %d (%d); refused by the stack map: last window %d, all windows %d (target: 0 and 0, the last window the first'"'"'s order of stacks)\n",
			s, g, n, fs, fn, ls, ln, ll, lost }' "$T/rows"
done
