#!/usr/bin/env bash
# bench/replay.sh - record now, query later, against perf record / perf report / perf script
# on the same 1,000,000 events (sys_enter_getppid of getppid_loop 1000000), best of 3:
#   capture size and write rate, and replay events/s of a GROUP BY comm.
# Run by bench/run.sh (section "replay") or alone: PERF_SQL=... BUILD=... bash bench/replay.sh
set -u
: "${PERF_SQL:?}" "${BUILD:?}"
WL=$BUILD/workloads
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
N=1000000
best() { sort -g | head -1; }
now() { date +%s.%N; }
secs() { awk -v s="$1" -v e="$2" 'BEGIN { printf "%.3f", e - s }'; }

"$PERF_SQL" record -o "$T/r.cap" -m 2048 sys_enter_getppid -- "$WL/getppid_loop" $N > /dev/null 2> "$T/rec.err" || {
	echo "replay: [skipped: perf-sql record failed: $(tail -1 "$T/rec.err")]"; exit 0; }
recv=$(sed -n 's/.*recorded \([0-9]*\) events (\([0-9]*\) lost).*/\1 \2/p' "$T/rec.err")
psql_size=$(stat -c %s "$T/r.cap")
have_perf=1
perf record -q -m 2048 -e syscalls:sys_enter_getppid -o "$T/perf.data" -- "$WL/getppid_loop" $N > /dev/null 2>&1 || have_perf=0
perf_size=$([ $have_perf = 1 ] && stat -c %s "$T/perf.data" || echo 0)
printf 'capture of %s events (received, lost: %s): perf-sql %.1f MB  perf record %.1f MB  ratio %.2f (lower is better)\n' \
	$N "$recv" "$(echo "$psql_size / 1000000" | awk '{ print $1 / $3 }')" \
	"$(echo "$perf_size / 1000000" | awk '{ print $1 / $3 }')" \
	"$(awk -v a="$psql_size" -v b="$perf_size" 'BEGIN { print b ? a / b : 0 }')"
grep -o '([0-9.]*x), [0-9.]* MB/s' "$T/rec.err" | sed 's/^/perf-sql capture compression and write rate: /'

sql="select comm, count(*) from sys_enter_getppid group by comm"
for i in 1 2 3; do s=$(now); "$PERF_SQL" -r "$T/r.cap" "$sql" > /dev/null; secs "$s" "$(now)"; echo; done | best > "$T/psql"
if [ $have_perf = 1 ]; then
	for i in 1 2 3; do s=$(now); perf report -i "$T/perf.data" --sort comm --stdio > /dev/null 2>&1; secs "$s" "$(now)"; echo; done | best > "$T/report"
	for i in 1 2 3; do s=$(now); perf script -i "$T/perf.data" > /dev/null 2>&1; secs "$s" "$(now)"; echo; done | best > "$T/script"
fi
p=$(cat "$T/psql"); r=$(cat "$T/report" 2>/dev/null || echo 0); sc=$(cat "$T/script" 2>/dev/null || echo 0)
awk -v p="$p" -v r="$r" -v s="$sc" -v n=$N 'BEGIN {
	printf "replay GROUP BY comm over %d events (whole command): perf-sql %.2fM ev/s (%.3f s)  perf-report %.2fM ev/s (%.3f s)  ratio %.2f (higher is better)\n", n, n/p/1e6, p, r ? n/r/1e6 : 0, r, r ? r/p : 0
	printf "replay GROUP BY comm over %d events (whole command): perf-sql %.2fM ev/s  perf-script %.2fM ev/s (%.3f s)  ratio %.2f (higher is better)\n", n, n/p/1e6, s ? n/s/1e6 : 0, s, s ? s/p : 0 }'
