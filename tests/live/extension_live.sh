# perf_sql.so with privileges (docs/extension.md): captures made now by perf-sql record and
# analysed in Python give perf-sql -r's rows, and perf_sql_collect() gives perf-sql's.
#   (1) writes 300 777 40 10 recorded (sys_enter_write, sys_exit_write, sched_switch): exact
#       counts per size through the extension, then tests/ext/recorded.sql through both.
#   (2) cpu_clock stacks of burn 1: tests/ext/stacks.sql (folded_stack, stack_text, ksym, usym)
#       through both, with the kernel's symbols of this machine.
#   (3) tests/ext/collect.py: perf_sql_collect() of the writes workload = perf-sql --json =
#       the workload's counts; a failing command's notice; bad arguments; and, as nobody,
#       perf-sql's own error in one line.
. "$(dirname "$0")/lib.sh"
need_root
SO=$(dirname "$PERF_SQL")/perf_sql.so
PY=/usr/bin/python3
[ -f "$SO" ] || fail "$SO is missing: make test builds it"
"$PY" -c 'import sqlite3; sqlite3.connect(":memory:").enable_load_extension(True)' 2>/dev/null ||
	skip "$PY cannot load SQLite extensions (Debian's python3 can: apt-get install python3)"
preload=
if ldd "$SO" | grep -q libasan; then
	preload="$(gcc -print-file-name=libasan.so) $(gcc -print-file-name=libubsan.so)"
fi
d=$(mktemp -d) || fail "mktemp"
trap 'rm -rf "$d"' EXIT
# python3, with the sanitizer runtimes preloaded under ASan; its output is shown, and any
# sanitizer report in it fails the test
py() {
	local rc
	env LD_PRELOAD="$preload" ASAN_OPTIONS="detect_leaks=0:${ASAN_OPTIONS:-}" \
		PERF_SQL_SO="$SO" PYTHONPATH=python "$PY" "$@" > "$d/py.out" 2>&1
	rc=$?
	cat "$d/py.out"
	! grep -q 'runtime error:\|Sanitizer' "$d/py.out" || fail "sanitizer reports (above)"
	return $rc
}

# (1) a capture of known writes
"$PERF_SQL" record -o "$d/writes.cap" sys_enter_write,sys_exit_write,sched_switch \
	-- "$WL/writes" 300 777 40 10 2>"$d/rec.err" || fail "record: $(cat "$d/rec.err")"
got=$(py - "$d/writes.cap" <<'PY'
import sys, perfsql
conn = perfsql.connect(sys.argv[1])
print(perfsql.rows(conn, "select count, count(*) from sys_enter_write where comm = 'writes' "
                         "group by count order by count"))
PY
)
eq "$got" "[(10, 40), (777, 300)]" "Python over a fresh capture: writes per size"
py tests/ext/captures.py "$PERF_SQL" tests/sql --capture "$d/writes.cap" tests/ext/recorded.sql ||
	fail "recorded.sql: the extension and perf-sql -r differ"

# (2) stacks
"$PERF_SQL" record -o "$d/stacks.cap" "select _comm, stack, ip from cpu_clock(999)
	where _pid = workload_pid()" -- "$WL/burn" 1 2>"$d/rec.err" || fail "record: $(cat "$d/rec.err")"
py tests/ext/captures.py "$PERF_SQL" tests/sql --capture "$d/stacks.cap" tests/ext/stacks.sql ||
	fail "stacks.sql: the extension and perf-sql -r differ"

# (3) live collection, and its refusal without privileges
py tests/ext/collect.py "$PERF_SQL" "$WL" || fail "tests/ext/collect.py"
mkdir "$d/nobody" && cp -r python tests/ext "$SO" "$PERF_SQL" "$d/nobody/" && chmod -R a+rX "$d" ||
	fail "copying to $d/nobody"
(cd "$d/nobody" && setpriv --reuid=65534 --regid=65534 --clear-groups env HOME=/nonexistent \
	LD_PRELOAD="$preload" ASAN_OPTIONS="detect_leaks=0:${ASAN_OPTIONS:-}" \
	PERF_SQL_SO="$d/nobody/perf_sql.so" PYTHONPATH="$d/nobody/python" \
	"$PY" ext/collect.py "$d/nobody/$(basename "$PERF_SQL")" "$WL" --denied) > "$d/py.out" 2>&1 ||
	fail "tests/ext/collect.py --denied: $(cat "$d/py.out")"
cat "$d/py.out"
! grep -q 'runtime error:\|Sanitizer' "$d/py.out" || fail "sanitizer reports (above)"
