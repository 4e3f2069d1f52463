#!/usr/bin/env bash
# bench/churn.sh - continuous profiling that lasts: perf-sql -i 1000 "select stack, count(*) ...
# from cpu_clock(999) group by stack" system-wide in the kernel for BENCH_CHURN_SECS (600: the
# ten minutes of issue #26) while new processes come and go (getppid_loop runs of 100,000 calls,
# each a new process at new addresses: new user chains), and the same with --max-groups 1024 (a
# map the churn fills every three windows). Each line: the windows, the first and the last
# window's stacks and samples, the samples the stack map refused in the last window and in all.
# A stack map that is never emptied (perf-sql before 2026-11-27, and any profiler that keeps
# one bpf_get_stackid() map for the run) refuses more and more and holds fewer stacks a window.
# Then perf-sql serve under the same churn answers BENCH_CHURN_PROFILES (20) requests of
# /debug/pprof/profile?seconds=BENCH_CHURN_PROFILE_SECS (30) one after the other: the first and
# the last profile's samples and stacks (go tool pprof), and the samples serve said it refused.
# Run by bench/run.sh (section "churn") or alone: PERF_SQL=... BUILD=... bash bench/churn.sh
set -u
: "${PERF_SQL:?}" "${BUILD:?}"
WL=$BUILD/workloads
T=$(mktemp -d)
CPID=
SPID=
trap '[ -n "$CPID" ] && kill $CPID 2> /dev/null; [ -n "$SPID" ] && kill $SPID 2> /dev/null; wait; rm -rf "$T"' EXIT
SECS=${BENCH_CHURN_SECS:-600}
PROFILES=${BENCH_CHURN_PROFILES:-20}
PSECS=${BENCH_CHURN_PROFILE_SECS:-30}
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
		END { printf "churn: %d s of new processes, -i 1000, cpu_clock(999) GROUP BY stack in the kernel, --max-groups %d: %d windows; first window %d stacks (%d samples), last %d (%d); events the maps could not take (a full group or stack map; the lost of perf_sql_stats): last window %d, all windows %d (target: 0 and 0, the last window the first'"'"'s order of stacks)\n",
			s, g, n, fs, fn, ls, ln, ll, lost }' "$T/rows"
done

# served profiles, one after the other, under the same churn
command -v curl > /dev/null && command -v go > /dev/null || {
	echo "churn: served profiles [skipped: needs curl and go (go tool pprof)]"
	exit 0
}
"$PERF_SQL" serve --listen 127.0.0.1:0 --pprof-max-seconds "$PSECS" \
	"select count(*) as n from sys_enter_reboot" > "$T/serve.out" 2> "$T/serve.err" &
SPID=$!
for _ in $(seq 100); do
	port=$(sed -n 's|^perf-sql: serving https*://127.0.0.1:\([0-9]*\)/metrics.*|\1|p' "$T/serve.err")
	[ -n "$port" ] && break
	sleep 0.1
done
[ -n "$port" ] || { echo "churn: served profiles [failed: serve did not start: $(head -c 300 "$T/serve.err")]"; exit 0; }
for ((i = 1; i <= PROFILES; i++)); do
	code=$(curl -s -o "$T/p.pb.gz" -w '%{http_code}' \
		"http://127.0.0.1:$port/debug/pprof/profile?seconds=$PSECS")
	[ "$code" = 200 ] || { echo "churn: served profile $i: [failed: HTTP $code]"; exit 0; }
	n=$(go tool pprof -raw "$T/p.pb.gz" 2> /dev/null |
		awk '/^Samples:/ { on = 1; next } /^Locations/ { on = 0 } on && $1 ~ /^[0-9]+$/ { n += $1; k++ } END { print n + 0, k + 0 }')
	[ "$i" = 1 ] && first=$n
done
refused=$(grep -c "could not take" "$T/serve.err")
echo "churn: perf-sql serve under the churn, $PROFILES profiles of $PSECS s one after the other (/debug/pprof/profile, 99 Hz): first profile $first (samples stacks), last $n; serve's warnings of refused chains: $refused (target: the last the first's order, 0 refused)"
