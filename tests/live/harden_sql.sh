# The locked-down SQL connection (engine/lockdown.c) end to end: writes outside temp objects,
# ATTACH and load_extension are refused with a message saying what is allowed; a runaway
# recursive CTE stops at --query-timeout and the next window still runs. Skips until the
# front end has --query-timeout (the hook in engine/query.c, the option in cli/options.c).
. "$(dirname "$0")/lib.sh"; need_root
"$PERF_SQL" --help | grep -q -- --query-timeout || skip "perf-sql has no --query-timeout yet"
dir=$(mktemp -d); trap 'rm -rf "$dir"' EXIT
err=$dir/err
refuse() {   # refuse SQL EXPECTED-TEXT [STATUS]: 2 when refused as it is prepared (usage)
	"$PERF_SQL" -d 0.2s "$1" >/dev/null 2>"$err"; rc=$?
	[ $rc = "${3:-2}" ] || fail "'$1' exited $rc, expected ${3:-2}"
	grep -qF "$2" "$err" || fail "'$1': expected '$2' in: $(cat "$err")"
	echo "ok: refused: $1"
}
refuse "create table m(a)" "not authorized: CREATE TABLE main.m; the SQL may write only its own TEMP objects"
refuse "attach '$dir/attach.db' as x" "not authorized: ATTACH '$dir/attach.db'; database files are attached only with --allow-attach"
[ -e "$dir/attach.db" ] && fail "ATTACH created a file"
refuse "select load_extension('/lib/x86_64-linux-gnu/libm.so.6')" "not authorized: load_extension()"
refuse "pragma writable_schema = 1" "not authorized: PRAGMA writable_schema"
refuse "vacuum into '$dir/vacuum.db'" "perf-sql:" 1 # refused as it runs
[ -e "$dir/vacuum.db" ] && fail "VACUUM INTO wrote a file"
# every statement is prepared before the first runs, so one statement makes and fills it
"$PERF_SQL" -d 0.3s "create temp table if not exists t as select count(*) as n from sched_switch" \
	>/dev/null 2>"$err" || fail "a temp table: $(cat "$err")"
echo "ok: temp tables may be written"

# a CTE that ends over the planning run's empty windows but never once events arrive
"$PERF_SQL" --csv -i 1000 -d 3.5s --query-timeout 300ms "select count(*) > 0 as seen from sched_switch;
	with recursive r(x) as (select 1 union all select x + 1 from r
	where (select count(*) from sched_switch) > 0) select count(*) from r" >"$err.out" 2>"$err"; rc=$?
out=$(tr -d '\r' <"$err.out")
eq "$rc" 1 "exit status after a window's query was stopped"
n=$(grep -c "query took longer than --query-timeout 300ms;" "$err")
[ "$n" -ge 3 ] || fail "expected a timeout message per window, got $n: $(cat "$err")"
eq "$(printf '%s\n' "$out" | grep -cE '^[0-9T:.+-]+,1$')" "$n" "windows whose first statement still ran"
echo "ok: $n runaway windows stopped at 300ms, the following windows ran"
