# Profiler parameters: unknown or malformed ones are one clear line (exit 2) listing the valid
# ones; good ones bind (checked with --explain: nothing is collected).
. "$(dirname "$0")/lib.sh"; need_root
check() { # PATTERN ARGS...
	local pat=$1; shift
	err=$("$PERF_SQL" "$@" 2>&1 >/dev/null); rc=$?
	[ "$rc" = 2 ] || fail "perf-sql $*: exit $rc, expected 2 ($err)"
	[ "$(printf '%s\n' "$err" | wc -l)" = 1 ] || fail "perf-sql $*: more than one line: $err"
	printf '%s\n' "$err" | grep -qF -- "$pat" || fail "perf-sql $*: '$err' lacks '$pat'"
	echo "ok: $err"
}
check "rundelay has no parameter 'thn'; parameters of rundelay: than (duration, default 0), comm (text), limit (int, default 20)" rundelay thn=4ms
check "than='4xs': expected a duration like 500us, 4ms or 1s" rundelay than=4xs
check "limit='ten': expected a whole number" rundelay limit=ten
check "'4ms' is not PARAM=VALUE" rundelay 4ms
check "trace needs table=TABLE" trace
check "table='x;drop': expected a table name" trace "table=x;drop"
check "field='a b': expected a column name" num-dist table=sched_switch "field=a b"
check "no such profiler 'rundelai'; did you mean: rundelay?" rundelai
check "no such profiler 'nosuch'" help nosuch
check "--save saves a query, and syscalls is a profiler already" syscalls --save x
# good values bind: the kernel filter shows the substituted table and the bound value
out=$("$PERF_SQL" --explain trace table=sys_enter_write -- true) || fail "trace --explain"
[[ "$out" == *"table syscalls:sys_enter_write"* ]] || fail "trace table= not substituted: $out"
out=$("$PERF_SQL" --explain top table=sched:sched_switch key=prev_comm -- true) || fail "top --explain"
[[ "$out" == *"table sched:sched_switch"* ]] || fail "a table with a colon: $out"
out=$("$PERF_SQL" --explain multi-trace start=sys_enter_read end=sys_exit_read -- true) ||
	fail "multi-trace --explain"
[[ "$out" == *"sys_enter_read"* && "$out" == *"sys_exit_read"* ]] || fail "pairs() arguments: $out"
echo "ok: table and column parameters substituted"
# options before the name and between parameters work as for a query
out=$(q -d 100ms stat -d 200ms table=sched_switch) || fail "options around the name"
[[ "$out" == sched_switch,* ]] || fail "stat output: $out"
echo "ok: options around the profiler name"
# durations and sizes convert: 50ms = 50000000 ns (far above a 1 ms sleep even on a loaded VM,
# where one took 6 ms once)
out=$(q syscalls than=50ms syscall=clock_nanosleep -- "$WL/sleeper" 3 1) || fail "than=50ms"
[ -z "$out" ] || fail "1 ms sleeps counted with than=50ms: $out"
out=$(q syscalls than=900us syscall=clock_nanosleep -- "$WL/sleeper" 3 1) || fail "than=900us"
eq "$(echo "$out" | cut -d, -f2)" 3 "1 ms sleeps counted with than=900us"
