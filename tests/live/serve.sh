# perf-sql serve on its own: bad input is one line and exit 2 (bad SQL and a port in use: exit
# 1, as for a query); the format follows the Accept header; a scrape never sees a half-built
# window; a saved profiler runs with its parameters, and as a table; SIGTERM ends it with exit
# 0 within a second and its perf events closed.
. "$(dirname "$0")/lib.sh"; need_root
. "$(dirname "$0")/serve_lib.inc"

# bad: EXPECTED_STATUS MESSAGE_PART ARGS...: one line on stderr holding MESSAGE_PART
bad() {
	local want=$1 part=$2 err rc
	shift 2
	err=$(timeout 20 "$PERF_SQL" serve --listen 127.0.0.1:0 "$@" 2>&1 >/dev/null); rc=$?
	[ "$rc" = "$want" ] || fail "serve $*: exit $rc, expected $want ($err)"
	[ "$(printf '%s\n' "$err" | grep -c .)" = 1 ] || fail "serve $*: not one line: $err"
	[[ "$err" == *"$part"* ]] || fail "serve $*: '$err' does not say '$part'"
	echo "ok: serve $* -> $want: $err"
}
bad 2 "give at least one profiler"
bad 2 "option '-f' does not apply" -f csv syscalls
bad 2 "takes no command" syscalls -- true
bad 2 "--listen 'localhost:1'" --listen localhost:1 syscalls
bad 2 "PARAM=VALUE goes after the profiler" "select 1 as x from sys_enter_write" than=1ms
bad 2 "--name x names nothing" syscalls --name x
bad 2 "--max-series '0'" --max-series 0 syscalls
bad 2 "no such profiler" no_such_profiler_here
bad 2 "serve: q2: no such column: nope" --name q1 "select count(*) as n from sys_enter_write" \
	--name q2 "select nope from sys_enter_write"
# an unclosed /* is fine to SQLite alone; joined, it would hide the next arguments' statements
bad 1 "serve: a: its SQL ends inside an unclosed /* comment" \
	--name a "select count(*) as n from sys_enter_write /* x" \
	--name b "select count(*) as n from sys_enter_read"
bad 1 "not told apart (2 separators of 1)" \
	"select count(*) as perf_sql_serve_next from sys_enter_write" \
	"select count(*) as n from sys_enter_read"
bad 2 "parameter :than differs" syscalls than=1ms --name s2 syscalls than=2ms
bad 2 "than" syscalls than=banana
bad 2 "reads no event table" "select count(*) as n from perf_sql_events"
python3 -c 'import socket, sys, time
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(1)
print(s.getsockname()[1], flush=True); time.sleep(60)' > "$SERVE_DIR/busy" & SERVE_KIDS=$!
for _ in $(seq 100); do [ -s "$SERVE_DIR/busy" ] && break; sleep 0.05; done
busy=$(cat "$SERVE_DIR/busy")
err=$("$PERF_SQL" serve --listen "127.0.0.1:$busy" syscalls 2>&1); rc=$?
eq "$rc" 1 "a port in use: exit status"
[[ "$err" == *"Address already in use"* ]] || fail "a port in use: $err"

# three statements that count the same rows, one a saved profiler with parameters, one that
# profiler as a table: in every scrape, taken while windows end every 20 ms and a workload
# writes, the totals are equal (a half-built window would show one ahead)
WR=wr$$
cp "$WL/writes" "$SERVE_DIR/$WR" || fail "copy writes"
export XDG_CONFIG_HOME=$SERVE_DIR/config
"$PERF_SQL" save wrsize "select count(*) as n from sys_enter_write where count = :size and
	comm = :comm" --summary "writes of one size by one command" >/dev/null || fail "perf-sql save"
serve_start -i 20 -m 256 --name a \
	"select count(*) as n from sys_enter_write where count = 2345 and comm = '$WR'" \
	--name b wrsize size=2345 comm=$WR --name c "select sum(n) as n from wrsize(2345, '$WR')"
(for _ in $(seq 100); do "$SERVE_DIR/$WR" 300 2345 || exit 1; sleep 0.02; done) & wpid=$!
scrapes=0 moving=0
while kill -0 $wpid 2>/dev/null || [ $scrapes = 0 ]; do
	body=$(scrape) || fail "a scrape failed"
	a=$(printf '%s\n' "$body" | awk '$1 == "perf_sql_a_n_total" { print $2 }')
	b=$(printf '%s\n' "$body" | awk '$1 == "perf_sql_b_n_total" { print $2 }')
	c=$(printf '%s\n' "$body" | awk '$1 == "perf_sql_c_n_total" { print $2 }')
	[ -n "$a" ] && [ "$a" = "$b" ] && [ "$a" = "$c" ] ||
		fail "scrape $scrapes: perf_sql_a_n_total $a, perf_sql_b_n_total $b, perf_sql_c_n_total $c"
	[ "$a" != 0 ] && [ "$a" -lt 29000 ] && moving=$((moving + 1))
	scrapes=$((scrapes + 1))
done
wait $wpid || fail "writes failed"
[ $moving -gt 0 ] || fail "no scrape while the count moved ($scrapes scrapes)"
echo "ok: $scrapes scrapes during the run ($moving while the count moved): a = b = c in each"
wait_counted perf_sql_a_n_total 30000
eq "$(metric perf_sql_b_n_total)" "$(metric perf_sql_a_n_total)" \
	"perf_sql_b_n_total (saved profiler wrsize size=2345 comm=$WR) = perf_sql_a_n_total"
eq "$(metric perf_sql_c_n_total)" "$(metric perf_sql_a_n_total)" \
	"perf_sql_c_n_total (the profiler as a table: wrsize(2345, '$WR')) = perf_sql_a_n_total"
grep -q '^# HELP perf_sql_b_n_total writes of one size by one command (column n' <(scrape) || fail "HELP of a saved profiler: $(scrape | grep 'HELP perf_sql_b')"

# formats: OpenMetrics when asked (Prometheus's Accept header), else text 0.0.4
om=$(scrape "application/openmetrics-text;version=1.0.0,text/plain;version=0.0.4;q=0.5,*/*;q=0.1")
eq "$(printf '%s\n' "$om" | tail -n 1)" "# EOF" "OpenMetrics: the last line"
printf '%s\n' "$om" | grep -qx '# TYPE perf_sql_a_n counter' || fail "OpenMetrics: no '# TYPE perf_sql_a_n counter'"
printf '%s\n' "$om" | grep -q '^perf_sql_a_n_created ' || fail "OpenMetrics: no perf_sql_a_n_created"
text=$(scrape)
printf '%s\n' "$text" | grep -qx '# TYPE perf_sql_a_n_total counter' || fail "text: no '# TYPE perf_sql_a_n_total counter'"
printf '%s\n' "$text" | grep -q 'EOF' && fail "text: an # EOF line"
ct() { curl -s -o /dev/null -w '%{content_type}' ${1:+-H "Accept: $1"} "http://127.0.0.1:$PORT/metrics"; }
eq "$(ct)" "text/plain; version=0.0.4; charset=utf-8" "Content-Type without Accept"
eq "$(ct "application/openmetrics-text; version=1.0.0")" \
	"application/openmetrics-text; version=1.0.0; charset=utf-8" "Content-Type for OpenMetrics"
eq "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$PORT/other")" 404 "GET /other"
eq "$(curl -s -o /dev/null -w '%{http_code}' -X POST -d 'select 1' "http://127.0.0.1:$PORT/metrics")" \
	405 "POST /metrics"

# SIGTERM: perf events open before; exit 0 within a second
fds=$(perf_fds "$SERVE_PID")
[ "$fds" -gt 0 ] || fail "no perf_event fds in /proc/$SERVE_PID/fd while serving"
echo "ok: $fds perf_event fds open while serving"
serve_stop
grep -q "serve: stopped after" "$SERVE_DIR/serve.err" || fail "no closing line: $(cat "$SERVE_DIR/serve.err")"

# 70 tables (past the 64 an array once held): a perf_sql_events_received_total series each
sql=$("$PERF_SQL" --csv "select group_concat('(select count(*) from ' || name || ') as n' ||
	rowid, ', ') from (select name, row_number() over (order by name) as rowid
	from perf_sql_events where name like 'sys_enter_%' order by name limit 70)" | tail -n 1 | tr -d '"')
serve_start -i 100 "select $sql"
eq "$(scrape | grep -c '^perf_sql_events_received_total{')" 70 \
	"perf_sql_events_received_total series of a query of 70 tables"
kill -TERM "$SERVE_PID"; wait "$SERVE_PID"; rc=$? SERVE_PID=   # closing 140 events takes time
eq "$rc" 0 "exit status after SIGTERM (70 tables)"

# a BPF map that fills every window (--max-groups 1, getppid from two processes at once): its
# warning is said once for the run (at most once a minute per table), whatever the windows
serve_start -i 100 --max-groups 1 --name g \
	"select _pid as p, count(*) as n from sys_enter_getppid group by _pid"
for _ in 1 2 3 4 5 6; do
	"$WL/getppid_loop" 20000 >/dev/null & a=$!
	"$WL/getppid_loop" 20000 >/dev/null & b=$!
	wait $a $b
	sleep 0.15
done
serve_stop
n=$(grep -c "found the BPF map full" "$SERVE_DIR/serve.err")
eq "$n" 1 "warnings of a full BPF map over 6 windows that filled it"
grep -q "found the BPF map full.*said at most once a minute per table" "$SERVE_DIR/serve.err" ||
	fail "the map-full warning does not say it is rate-limited: $(cat "$SERVE_DIR/serve.err")"
