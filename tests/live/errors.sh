# Bad input: one line naming what is wrong and how to fix it, a non-zero exit, no crash.
. "$(dirname "$0")/lib.sh"; need_root; need_tracefs
check() { # EXPECTED_STATUS PATTERN ARGS...
	local want=$1 pat=$2; shift 2
	err=$("$PERF_SQL" "$@" 2>&1 >/dev/null); rc=$?
	[ "$rc" = "$want" ] || fail "perf-sql $*: exit $rc, expected $want ($err)"
	[ "$(printf '%s\n' "$err" | wc -l)" = 1 ] || fail "perf-sql $*: more than one line: $err"
	printf '%s\n' "$err" | grep -q -- "$pat" || fail "perf-sql $*: '$err' lacks '$pat'"
	echo "ok: $err"
}
# SQL that does not prepare is bad usage (2), as the man page says; a failing run is 1
check 2 "did you mean: sched_switch" "select count(*) from sched_swich"
check 2 "did you mean: sys_enter_write" "select * from sys_enter_wrte"
check 2 "no such column: bogus; list a table's columns" "select bogus from sched_switch"
check 2 'near "selec": syntax error' "selec 1"
check 2 "unknown option '--bogus'" --bogus "select 1"
check 2 "no such output format 'boxx'; choices: table csv json pprof" -f boxx "select 1"
check 2 "-d 'soon': expected a duration" -d soon "select 1"
check 2 "ring size must be a power of two" -m 3 "select count(*) from sched_switch"
check 1 "cannot run 'no-such-cmd-xyz': No such file or directory" "select count(*) from sched_switch" -- no-such-cmd-xyz
check 2 "no such table: nosuch" --schema nosuch
check 2 "did you mean: sched_switch" --schema '"sched_swich"'
# malformed probe specs and target lists are bad usage too
check 2 "--breakpoint '0x10/3': expected ADDR|SYMBOL" --breakpoint 0x10/3 "select 1"
check 2 "--breakpoint x:zz: no binary to find 'x:zz' in; give SYMBOL@BINARY" --breakpoint x:zz "select 1"
check 2 "--uprobe 'nofunc': expected FUNC@BINARY" --uprobe nofunc "select 1"
check 2 "--uretprobe '@bin': expected FUNC@BINARY" --uretprobe @bin "select 1"
check 2 "--usdt 'x': expected PROVIDER:NAME@BINARY" --usdt x "select 1"
check 2 "-p abc: expected a comma-separated list of ids" -p abc "select 1"
check 2 "-C 9-x: not a list of online CPUs" -C 9-x "select 1"
# what is not found on this machine is a runtime error
check 1 "--uprobe nosuchfunc@/bin/true: no function 'nosuchfunc'" --uprobe nosuchfunc@/bin/true "select 1"
check 1 "-p 99999999: no such process" -p 99999999 "select 1"
# nothing left behind: no perf-sql filters in tracefs, no stray children
grep -q common_pid "$TFS/events/sched/sched_switch/filter" &&
	fail "a filter was left in tracefs: $(cat "$TFS/events/sched/sched_switch/filter")"
echo "ok: no tracefs filter left"
