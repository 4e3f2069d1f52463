# -d, SIGINT and SIGTERM end collection and still print; a closed pipe ends quietly.
. "$(dirname "$0")/lib.sh"; need_root
dir=$(mktemp -d); trap 'rm -rf "$dir"' EXIT
start=$(date +%s%N)
out=$(q -d 300ms "select count(*) >= 0 from sched_switch") || fail "-d run"
ms=$(( ($(date +%s%N) - start) / 1000000 ))
eq "$out" 1 "-d 300ms result"
# it collects for 300 ms at least, then ends by itself (a hang would hit run.sh's timeout)
between "$ms" 300 300000 "-d 300ms wall time (ms)"
for sig in INT TERM; do
	"$PERF_SQL" --csv "select count(*) > 0 from sched_switch" > "$dir/sig.out" 2>&1 &
	pid=$!; wait_perf_fds $pid; sleep 0.3; kill -$sig $pid; wait $pid; rc=$?
	eq "$rc" 0 "exit status after SIG$sig"
	eq "$(tail -1 "$dir/sig.out" | tr -d '\r')" 1 "result printed after SIG$sig"
done
err=$( { "$PERF_SQL" "select * from perf_sql_events" | head -1 >/dev/null; } 2>&1 )
eq "$err" "" "stderr when the reader closes the pipe"
