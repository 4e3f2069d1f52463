# counters: perf stat's counts without sampling. perf-sql and perf stat count one run of the
# workload at once (same_run in lib.sh): the same kernel events, so exactly the same number, on
# any CPU and under any load; with -i the windows sum to it.
. "$(dirname "$0")/lib.sh"; need_root
command -v perf >/dev/null || skip "perf is not installed (apt-get install linux-perf)"
dir=$(mktemp -d); trap 'rm -rf "$dir"' EXIT
# N round trips of two tasks pinned to one CPU: each round trip switches out of each task at
# least once, but the child's last (it exits, and exit switches are not counted): >= 2N - 1;
# 100,000 round trips take several 100 ms windows
n=100000
same_run "$dir" context-switches "select value from counters where name = 'context-switches'" \
	-i 100 -p HELD -- "$WL/pingpong" -c 0 $n
theirs=$(stat_count "$dir" context-switches)
ours=$(window_sum "$dir")
[ -n "$theirs" ] && [ "$theirs" -ge $((2 * n - 1)) ] ||
	fail "perf stat counted '$theirs' context switches for $n round trips: $(cat "$dir/stat")"
eq "$ours" "$theirs" "context switches summed over perf-sql's windows = perf stat's, same run"
busy=$(tail -n +2 "$dir/query" | awk -F, '$2 > 0' | grep -c .)
[ "$busy" -ge 2 ] || fail "the run fell in $busy window(s): $(cat "$dir/query")"
echo "ok: $busy windows counted switches"
# -- CMD: per-task counting, the workload's child included (inherit)
n=20000
ours=$(q "select value from counters where name = 'context-switches'" -- "$WL/pingpong" -c 0 $n) ||
	fail "run"
[ "$ours" -ge $((2 * n - 1)) ] || fail "context switches of $n round trips with -- CMD: $ours"
echo "ok: context switches of $n round trips with -- CMD: $ours (>= $((2 * n - 1)))"
# no sampling: the plan opens counting events only
plan=$("$PERF_SQL" --explain "select name, value from counters") || fail "explain"
[ "$(printf '%s\n' "$plan" | grep -c 'sample_type  none')" -ge 9 ] || fail "counters sample: $plan"
echo "ok: counters only count"
# a hardware counter a VM lacks is a row saying so, not an error
out=$(q -d 200ms "select supported from counters where name = 'cycles'") || fail "cycles row"
if perf stat -e cycles true 2>&1 | grep -q "not supported"; then
	eq "$out" 0 "cycles is an unsupported row here"
fi
