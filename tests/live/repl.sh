# The REPL driven through stdin (the scriptable mode): exact outputs, dot commands, saved
# queries, errors that set the exit status without ending the session.
. "$(dirname "$0")/lib.sh"; need_root
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
export XDG_CONFIG_HOME=$tmp/config XDG_STATE_HOME=$tmp/state
# repl < SCRIPT: its stdout (stderr in $tmp/err); returns perf-sql's exit status
repl() { "$PERF_SQL" 2>"$tmp/err" >"$tmp/out"; local rc=$?; tr -d '\r' <"$tmp/out"; return $rc; }

# one-shot queries, a multi-line statement, a query reading no event table answers at once
out=$(repl <<'EOF'
.mode csv
select 1+1;
.duration 500ms
select count(*) > 0 as busy
  from sched_switch;
select 'a' || 'b' as ab;
EOF
)
eq "$out" "$(printf '1+1\n2\nbusy\n1\nab\nab')" "csv results of three statements"
start=$(date +%s%N)
out=$(printf '.duration 60s\n.mode csv\nselect 6*7 as n;\n' | repl)
ms=$((($(date +%s%N) - start) / 1000000))
eq "$out" "$(printf 'n\n42')" "a query without event tables"
between "$ms" 0 59999 "it does not wait for .duration 60s (ms)"
start=$(date +%s%N)
out=$(printf '.duration 500ms\n.mode csv\nselect count(*) >= 0 from sys_enter_write;\n' | repl)
ms=$((($(date +%s%N) - start) / 1000000))
between "$ms" 500 300000 "a one-shot query collects for .duration, then ends (ms)"

# .schema, .tables, settings printed back
out=$(printf '.mode csv\n.schema sched_switch\n' | repl)
eq "$(printf '%s\n' "$out" | head -3 | tr '\n' ' ')" "column,type _time,INTEGER _cpu,INTEGER " ".schema head"
printf '%s\n' "$out" | grep -qx 'prev_comm,TEXT' || fail ".schema lacks prev_comm: $out"
printf '%s\n' "$out" | grep -qx 'next_pid,INTEGER' || fail ".schema lacks next_pid: $out"
echo "ok: .schema lists the event's fields"
out=$(printf '.tables sched_switch\n.tables *:sched_switch\n.tables perf_sql_*\n' | repl)
eq "$(printf '%s\n' "$out" | tr '\n' ' ')" "sched_switch perf_sql_events perf_sql_stats " ".tables GLOB"
out=$(printf '.mode json\n.mode\n.interval 250\n.interval\n.duration off\n.duration\n.timer on\n.timer\n.cpu 0-1\n.cpu\n' | repl)
eq "$(printf '%s\n' "$out" | tr '\n' '|')" "json|250 ms|off (until Ctrl-C)|on|0-1|" "settings read back"

# a bad statement sets the exit status; the statements after it still run
out=$(printf '.mode csv\nselec 1;\nselect * from sched_swich;\n.bogus\n.mode boxx\nselect 7 as after;\n' | repl)
rc=$?
eq "$out" "$(printf 'after\n7')" "statements after errors run"
eq "$rc" 2 "exit status: the first failure's (SQL that does not prepare: 2)"
grep -q 'near "selec": syntax error' "$tmp/err" || fail "stderr: $(cat "$tmp/err")"
grep -q "no such table: sched_swich; did you mean: sched_switch" "$tmp/err" || fail "stderr: $(cat "$tmp/err")"
grep -q "no such command '.bogus'; see .help" "$tmp/err" || fail "stderr: $(cat "$tmp/err")"
grep -q "no such output mode 'boxx'; choices: table csv json" "$tmp/err" || fail "stderr: $(cat "$tmp/err")"
eq "$(wc -l < "$tmp/err")" 4 "one line per error"
"$PERF_SQL" <<<'select 1;' >/dev/null 2>&1; eq "$?" 0 "exit status when nothing failed"

# .save then .run gives what the query gives; parameters are bound; names are checked
sql="select count(*) > 0 as busy, 'x,y' as tag from sched_switch where prev_pid >= 0;"
raw=$(printf '.mode csv\n.duration 300ms\n%s\n' "$sql" | repl)
out=$(printf '.mode csv\n.duration 300ms\n%s\n.save busy\n.run busy\n' "$sql" | repl)
eq "$out" "$(printf '%s\nsaved busy (%s); run it with .run busy\n%s' "$raw" \
	"$XDG_CONFIG_HOME/perf-sql/profilers/busy.sql" "$raw")" ".save then .run"
out=$(printf '.mode csv\n.run busy\n' | repl)
eq "$out" "$raw" ".run in a new session"
eq "$(stat -c %a "$XDG_CONFIG_HOME/perf-sql/profilers/busy.sql")" 600 "saved file mode"
eq "$(stat -c %a "$XDG_CONFIG_HOME/perf-sql/profilers")" 700 "profilers directory mode"
out=$(printf ".mode csv\nselect :n * 2 as twice, :s as s;\n.save twice\n.run twice n=21 s=it's\n.profilers\n" | repl)
eq "$(printf '%s\n' "$out" | sed -n 4,5p | tr '\n' '|')" "twice,s|42,it's|" ".run with parameters"
printf '%s\n' "$out" | grep -q "^twice  *saved  *select :n \* 2 as twice" || fail ".profilers: $out"
printf '%s\n' "$out" | grep -q "^rundelay  *built-in  " || fail ".profilers lacks the built-ins: $out"
# .profilers: every profiler, each of the kind perf-sql list gives it (saved* shadows a built-in)
"$PERF_SQL" save top "select 1 as one" --force >/dev/null || fail "save top --force"
kinds() { awk 'NR > 1 && NF == 0 { exit } NR > 1 { print $1, $2 }'; }
out=$(echo .profilers | PERF_SQL_SYSTEM_PROFILERS=$tmp/none repl) || fail ".profilers: $(cat "$tmp/err")"
eq "$(printf '%s\n' "$out" | head -1 | tr -s ' ')" "name kind summary" ".profilers header"
eq "$(printf '%s\n' "$out" | kinds)" "$(PERF_SQL_SYSTEM_PROFILERS=$tmp/none "$PERF_SQL" list | kinds)" \
	".profilers: the names and kinds of perf-sql list"
printf '%s\n' "$out" | grep -q '^top  *saved\*  *select 1 as one$' || fail ".profilers: no saved* top: $out"
"$PERF_SQL" delete top >/dev/null || fail "delete top"
echo "ok: .profilers lists every profiler and its kind: $(printf '%s\n' "$out" | kinds | grep -c ' saved') saved"
# .help says what .run, .save and .profilers do: they are not only about saved queries
out=$(printf '.help run\n.help save\n.help profilers\n' | repl)
eq "$out" ".run NAME [PARAM=VALUE...]   run a profiler (built-in, system or saved) with its parameters
.save NAME                   save the last query as a profiler, NAME
.profilers                   list every profiler and its kind (built-in, system, saved)" ".help of .run .save .profilers"
printf '.save ../evil\n.run nosuch\n.run twice bogus=1\n' | repl >/dev/null
eq "$?" 1 "exit status after bad saved-query commands"
grep -q "profiler name '../evil': use 1 to 64 letters, digits, '_' or '-'" "$tmp/err" || fail "$(cat "$tmp/err")"
grep -q "no such profiler 'nosuch'; perf-sql list shows them all" "$tmp/err" || fail "$(cat "$tmp/err")"
grep -q "twice has no parameter 'bogus'; parameters of twice: n (auto), s (auto)" "$tmp/err" || fail "$(cat "$tmp/err")"
[ ! -e "$XDG_CONFIG_HOME/perf-sql/evil.sql" ] || fail "a bad name escaped the directory"
echo "ok: names are checked"

# watched queries append one result per window when not on a terminal
out=$(printf '.mode csv\n.interval 100\n.duration 450ms\nselect count(*) >= 0 as ok from sched_switch;\n' | repl)
n=$(printf '%s\n' "$out" | grep -c ',1$')
between "$n" 3 6 "windows of a watched query"
eq "$(printf '%s\n' "$out" | head -1)" "window_start,ok" "watched csv header"

# .explain, .stats on: the plan; received/lost after the result
out=$(printf '.explain select prev_comm from sched_switch where prev_pid = 1\n' | repl)
printf '%s\n' "$out" | grep -q "from WHERE   prev_pid == 1" || fail ".explain: $out"
echo "ok: .explain prints the plan"
out=$(printf '.mode csv\n.duration 300ms\n.stats on\nselect count(*) > 0 as busy from sched_switch;\n' | repl)
eq "$(printf '%s\n' "$out" | sed -n '1,3p' | tr '\n' '|')" "busy|1|table,received,lost|" ".stats on"

# stdin stays readable across queries (a slow pipe: each line arrives after the last query)
out=$({ echo ".mode csv"; echo ".duration 200ms"; echo "select count(*) >= 0 as a from sched_switch;"
	sleep 0.5; echo "select 'second' as b;"; } | repl)
eq "$out" "$(printf 'a\n1\nb\nsecond')" "statements after a query on a slow pipe"
