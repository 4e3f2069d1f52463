# perf-sql serve scraped by a real Prometheus (Debian's, on a loopback port, every second): the
# exact counts of known workloads come back through its query API. writes N 3217 makes exactly N
# writes of 3217 bytes; sizes 1000 writes once each size 1..1000. Both run under names of this
# test's own (wr$$, sz$$), so the system-wide queries count them and nothing else. The counter's
# value and its increase() over the run are N; the histogram's buckets are those of log2_hist()
# over the same workload run directly.
. "$(dirname "$0")/lib.sh"; need_root
. "$(dirname "$0")/serve_lib.inc"
N=5000 WR=wr$$ SZ=sz$$
cp "$WL/writes" "$SERVE_DIR/$WR" && cp "$WL/sizes" "$SERVE_DIR/$SZ" || fail "copy the workloads"
serve_start -i 500 -m 256 \
	--name wr "select count(*) as writes from sys_enter_write where count = 3217 and comm = '$WR'" \
	--name sz "select comm, log2_hist(count) as bytes, sum(count) as bytes_sum from sys_enter_write
		   where comm = '$SZ' group by comm"
prom_start
# the counter's first samples are 0: the series starts before the workload
prom_wait 'perf_sql_wr_writes_total' 0
"$SERVE_DIR/$WR" $N 3217 || fail "writes failed"
"$SERVE_DIR/$SZ" 1000 || fail "sizes failed"
wait_metric perf_sql_wr_writes_total $N
wait_metric "perf_sql_sz_bytes_count{comm=\"$SZ\"}" 1000
prom_wait 'perf_sql_wr_writes_total' $N
prom_wait 'perf_sql_sz_bytes_count' 1000
eq "$(prom_query 'perf_sql_wr_writes_total')" "- $N" "prometheus: perf_sql_wr_writes_total"
# increase() at the time of the last sample, over a range that starts before the first (0): no
# extrapolation at either end, so it is the exact count
t=$(prom_query 'timestamp(perf_sql_wr_writes_total)' | awk '{ print $2 }')
eq "$(prom_query 'increase(perf_sql_wr_writes_total[1h])' "$t")" "- $N" \
	"prometheus: increase(perf_sql_wr_writes_total[1h]) at the last sample"
eq "$(prom_query 'perf_sql_events_lost_total')" "table=syscalls:sys_enter_write 0" \
	"prometheus: perf_sql_events_lost_total"

# the histogram: cumulative buckets from a direct run's log2_hist(), as Prometheus holds them
want=$(q "select * from hist_rows((select log2_hist(count) from sys_enter_write
	  where _pid = workload_pid()))" -- "$WL/sizes" 1000 |
	awk -F, -v c="comm=$SZ" '{ n += $3; printf "%s,le=%d.0 %d\n", c, $2, n }
		END { printf "%s,le=+Inf %d\n", c, n }' |
	sort)
[ -n "$want" ] || fail "no direct log2_hist"
got=$(prom_query 'perf_sql_sz_bytes_bucket')
eq "$got" "$want" "prometheus: perf_sql_sz_bytes_bucket = the direct run's log2_hist"
eq "$(prom_query 'perf_sql_sz_bytes_sum')" "comm=$SZ 500500" "prometheus: perf_sql_sz_bytes_sum"
eq "$(prom_query 'up{job="perf-sql"}')" "- 1" "prometheus: the target is up"
# Prometheus asked for OpenMetrics: the exposition it parsed is that format
eq "$(curl -sf "http://127.0.0.1:$PPORT/api/v1/targets" | python3 -c '
import json, sys
t = json.load(sys.stdin)["data"]["activeTargets"]
print(t[0]["lastError"] or "no error", t[0]["health"])')" "no error up" "prometheus: the last scrape"
serve_stop
