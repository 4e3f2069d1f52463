# Saved profilers: save, list, run (same output as the raw query), parameters, delete; files
# 0600 in directories 0700; built-in names need --force; the system directory is read only.
. "$(dirname "$0")/lib.sh"; need_root
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
export XDG_CONFIG_HOME=$tmp/config PERF_SQL_SYSTEM_PROFILERS=$tmp/etc
dir=$XDG_CONFIG_HOME/perf-sql/profilers
sql="select count(*) as writes, sum(count) as bytes from sys_enter_write where _pid = workload_pid()"
out=$("$PERF_SQL" save wr "$sql" --summary "writes of the workload") || fail "save"
[[ "$out" == "saved wr ($dir/wr.sql)"* ]] || fail "save said: $out"
eq "$(stat -c %a "$dir/wr.sql")" 600 "mode of the saved file"
eq "$(stat -c %a "$dir")" 700 "mode of its directory"
eq "$(stat -c %a "$XDG_CONFIG_HOME/perf-sql")" 700 "mode of the parent directory"
eq "$(head -1 "$dir/wr.sql")" "-- wr: writes of the workload" "the header line"
line=$("$PERF_SQL" list | grep '^wr ') || fail "list lacks wr"
[[ "$line" == *saved*"writes of the workload"* ]] || fail "list line: $line"
echo "ok: list shows it: $line"
raw=$("$PERF_SQL" "$sql" -- "$WL/writes" 300 7) || fail "raw query"
saved=$("$PERF_SQL" wr -- "$WL/writes" 300 7) || fail "saved run"
eq "$saved" "$raw" "saved profiler output vs the raw query"
eq "$(q wr -- "$WL/writes" 300 7)" "300,2100" "its rows"
"$PERF_SQL" help wr | grep -qF "$sql" || fail "help wr lacks the SQL"
echo "ok: help shows the SQL"
# an undeclared :n in a saved query is a parameter
"$PERF_SQL" save wrn "select count(*) from sys_enter_write where count = :n" >/dev/null || fail "save wrn"
eq "$(q wrn n=7 -- "$WL/writes" 50 7)" 50 "auto parameter n=7"
eq "$(q wrn n=8 -- "$WL/writes" 50 7)" 0 "auto parameter n=8"
# --save on a query run saves it and runs it
out=$(q --save wr2 "$sql" -- "$WL/writes" 20 3 2>"$tmp/err") || fail "--save run"
eq "$out" "20,60" "the run of --save"
grep -q "saved wr2" "$tmp/err" || fail "--save said: $(cat "$tmp/err")"
eq "$(q wr2 -- "$WL/writes" 20 3)" "20,60" "the query --save stored"
# names: checked; built-ins need --force, and then the saved one shadows the built-in
err=$("$PERF_SQL" save ../x "select 1" 2>&1); eq "$?" 2 "exit status of a bad name"
[[ "$err" == *"use 1 to 64 letters, digits, '_' or '-'"* ]] || fail "bad name: $err"
err=$("$PERF_SQL" save rundelay "select 1" 2>&1); eq "$?" 2 "exit status of a built-in name"
[[ "$err" == *"'rundelay' is a built-in profiler; pick another name, or pass --force"* ]] || fail "$err"
"$PERF_SQL" save rundelay "select 42 as answer" --force >/dev/null || fail "save --force"
"$PERF_SQL" list | grep -q '^rundelay  *saved\*' || fail "list does not mark the shadowing one"
eq "$(q rundelay)" 42 "the saved rundelay shadows the built-in"
"$PERF_SQL" delete rundelay >/dev/null || fail "delete the shadowing one"
"$PERF_SQL" list | grep -q '^rundelay  *built-in' || fail "the built-in is not back"
echo "ok: the built-in is back"
# the system directory: listed, run, never deleted
mkdir -p "$PERF_SQL_SYSTEM_PROFILERS"
printf -- '-- sys1: a system profiler\nselect 7 as seven;\n' > "$PERF_SQL_SYSTEM_PROFILERS/sys1.sql"
"$PERF_SQL" list | grep -q '^sys1  *system  *a system profiler' || fail "list lacks sys1"
eq "$(q sys1)" 7 "run a system profiler"
err=$("$PERF_SQL" delete sys1 2>&1); eq "$?" 1 "exit status of deleting a system profiler"
[[ "$err" == *"is a system-wide profiler"* ]] || fail "$err"
# a broken saved file: listed as broken, its run is one clear error
printf -- '-- bad: broken\n-- param: x nosuchtype 1 "help"\nselect :x;\n' > "$dir/bad.sql"
"$PERF_SQL" list | grep -q '^bad .*\[broken: bad: line 2: no such parameter type' || fail "list: broken"
err=$("$PERF_SQL" bad 2>&1); eq "$?" 2 "exit status of a broken profiler"
[[ "$err" == *"no such parameter type 'nosuchtype'; choices:"* ]] || fail "$err"
# delete: gone from list, and from the disk; a second delete says so
for n in wr wrn wr2 bad; do "$PERF_SQL" delete $n >/dev/null || fail "delete $n"; done
[ ! -e "$dir/wr.sql" ] || fail "wr.sql still there"
"$PERF_SQL" list | grep -q '^wr ' && fail "list still shows wr"
err=$("$PERF_SQL" delete wr 2>&1); eq "$?" 1 "exit status of a second delete"
[[ "$err" == *"no saved profiler 'wr'"* ]] || fail "$err"
err=$("$PERF_SQL" delete syscalls 2>&1)
[[ "$err" == *"'syscalls' is a built-in profiler: it cannot be deleted"* ]] || fail "$err"
echo "ok: delete"
