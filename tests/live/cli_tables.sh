# The command line's two tables (cli/options.c, cmd/subcommands.c): a saved profiler can take
# no subcommand's name (every subcommand --help lists, by every way of saving), save checks the
# SQL (prepares it with the parameters' defaults bound) and saves nothing when it does not
# prepare, and an option's value is never taken for a profiler's PARAM=VALUE.
. "$(dirname "$0")/lib.sh"; need_root
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
export XDG_CONFIG_HOME=$tmp/config PERF_SQL_SYSTEM_PROFILERS=$tmp/etc
dir=$XDG_CONFIG_HOME/perf-sql/profilers
subs=$("$PERF_SQL" --help | sed -n '/^subcommands:/,/^$/p' | grep -o '^  perf-sql [a-z]*' |
	awk '{print $2}')
[ "$(echo "$subs" | wc -w)" -ge 6 ] || fail "--help lists too few subcommands: $subs"
for s in $subs; do
	out=$("$PERF_SQL" save "$s" "select 1" 2>&1); rc=$?
	eq "$rc" 2 "exit status of save $s"
	[[ "$out" == "perf-sql: profiler name '$s' is a subcommand of perf-sql; pick another" ]] ||
		fail "save $s said: $out"
	out=$("$PERF_SQL" "select 1" --save "$s" 2>&1); rc=$?
	eq "$rc" 2 "exit status of --save $s"
	[ ! -e "$dir/$s.sql" ] || fail "$s.sql was written"
	out=$(printf 'select 1;\n.save %s\n' "$s" | "$PERF_SQL" 2>&1)
	[[ "$out" == *"'$s' is a subcommand"* ]] || fail ".save $s said: $out"
	[ ! -e "$dir/$s.sql" ] || fail "$s.sql was written by .save"
done
echo "ok: no saved profiler can be named $(echo $subs)"
# save prepares the SQL first: a bad table, a syntax error, a bad column, nothing saved
check_bad() {   # NAME SQL EXPECTED-MESSAGE-START
	out=$("$PERF_SQL" save "$1" "$2" 2>&1); rc=$?
	eq "$rc" 2 "exit status of save $1"
	[[ "$out" == "perf-sql: not saved: $3"* ]] || fail "save $1 said: $out"
	[ "$(echo "$out" | wc -l)" = 1 ] || fail "save $1: more than one line: $out"
	[ ! -e "$dir/$1.sql" ] || fail "$1.sql was written"
	echo "ok: save $1 refused: $out"
}
check_bad t1 "select * from no_such_table" "no such table: no_such_table"
check_bad t2 "selec 1" 'near "selec": syntax error'
check_bad t3 "select no_such_col from sys_enter_write" "no such column: no_such_col"
check_bad t4 "select count(*) from sys_enter_write where count = :n; select * from nope" \
	"no such table: nope"
out=$("$PERF_SQL" "select * from nope2" --save t5 2>&1); rc=$?
eq "$rc" 2 "exit status of --save of a bad query"
[ ! -e "$dir/t5.sql" ] || fail "t5.sql was written by --save"
# a good one with a parameter is saved and runs
"$PERF_SQL" save good "select count(*) from sys_enter_write where count = :n" >/dev/null ||
	fail "save good"
eq "$(q good n=7 -- "$WL/writes" 30 7)" 30 "the saved profiler's rows"
# -o's value looks like PARAM=VALUE: it stays the option's
out=$("$PERF_SQL" good n=7 -o "$tmp/x=y.csv" --csv -- "$WL/writes" 12 7) || fail "run with -o x=y"
eq "$(tail -n 1 "$tmp/x=y.csv" | tr -d "\r")" 12 "-o x=y.csv is the output file, not a parameter"
# -o is made only once the SQL holds: a typo leaves the old report as it was
printf 'old report\n' > "$tmp/rep.csv"
"$PERF_SQL" -o "$tmp/rep.csv" "selec 1" 2>/dev/null && fail "bad SQL exited 0"
eq "$(cat "$tmp/rep.csv")" "old report" "-o FILE after a SQL error"
# a FIFO nobody reads is refused at once (it would hang the run), another user's FIFO too
mkfifo "$tmp/ff"
out=$(timeout 10 "$PERF_SQL" -o "$tmp/ff" "select 1" 2>&1); rc=$?
eq "$rc" 1 "exit status of -o to a FIFO nobody reads"
[[ "$out" == *"a FIFO no process reads"* ]] || fail "FIFO with no reader said: $out"
setpriv --reuid=65534 --regid=65534 --clear-groups mkfifo "$tmp/ff2" 2>/dev/null ||
	{ chmod 1777 "$tmp"; setpriv --reuid=65534 --regid=65534 --clear-groups mkfifo "$tmp/ff2"; }
out=$(timeout 10 "$PERF_SQL" -o "$tmp/ff2" "select 1" 2>&1); rc=$?
eq "$rc" 1 "exit status of -o to another user's FIFO"
[[ "$out" == *"a FIFO of another user"* ]] || fail "another user's FIFO said: $out"
# subcommands refuse extra arguments with one line
for args in "help a b" "list x"; do
	out=$("$PERF_SQL" $args 2>&1); rc=$?
	eq "$rc" 2 "exit status of perf-sql $args"
	[ "$(echo "$out" | wc -l)" = 1 ] || fail "perf-sql $args: not one line: $out"
done
