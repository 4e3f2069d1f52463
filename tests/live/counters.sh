# counters: perf stat's counts without sampling; they agree with perf stat within 1 %.
. "$(dirname "$0")/lib.sh"; need_root
command -v perf >/dev/null || skip "perf is not installed (apt-get install linux-perf)"
ours=$(q "select value from counters where name = 'context-switches'" -- "$WL/pingpong" 5000) || fail "run"
theirs=$(perf stat -x, -e context-switches -- "$WL/pingpong" 5000 2>&1 >/dev/null | cut -d, -f1)
diff=$(( ours > theirs ? ours - theirs : theirs - ours ))
[ $((diff * 100)) -le "$theirs" ] || fail "context-switches: perf-sql $ours, perf stat $theirs (more than 1 % apart)"
echo "ok: context-switches perf-sql $ours, perf stat $theirs"
# no sampling: the plan opens counting events only
plan=$("$PERF_SQL" --explain "select name, value from counters") || fail "explain"
[ "$(printf '%s\n' "$plan" | grep -c 'sample_type  none')" -ge 9 ] || fail "counters sample: $plan"
echo "ok: counters only count"
# a hardware counter a VM lacks is a row saying so, not an error
out=$(q -d 200ms "select supported from counters where name = 'cycles'") || fail "cycles row"
if perf stat -e cycles true 2>&1 | grep -q "not supported"; then
	eq "$out" 0 "cycles is an unsupported row here"
fi
# -i windows: the sum over windows is the total
out=$(q -i 100 "select value from counters where name = 'context-switches'" \
      -- "$WL/pingpong" -c 0 20000 | awk -F, '{ s += $2 } END { print s }')
between "$out" 40000 40100 "context switches of 20,000 round trips summed over windows"
