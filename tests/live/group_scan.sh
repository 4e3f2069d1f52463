# A GROUP BY of a table's columns is handed to SQLite group by group
# (vtab/tp_group.c): the same rows, in the same order, as SQLite's own sorter gives them. Each
# statement runs twice over one capture: as written, and with its terms as expressions (+col,
# which SQLite never hands to the table, so it sorts), over pingpong's and writes' exact counts
# and the whole machine's switches, wakeups and openat calls (texts, integers, several terms).
. "$(dirname "$0")/lib.sh"; need_root
dir=$(mktemp -d); trap 'rm -rf "$dir"' EXIT
"$PERF_SQL" record -o "$dir/s.cap" -a sched_switch,sched_wakeup,sys_enter_write,sys_enter_openat \
	-- sh -c "$WL/pingpong 300; $WL/writes 500 7 200 64" > /dev/null 2> "$dir/rec.err" ||
	fail "record: $(cat "$dir/rec.err")"
# exact: the workloads' own counts, by the grouped scan
got=$(q -r "$dir/s.cap" "select _comm, count, count(*) from sys_enter_write
	where _comm in ('pingpong', 'writes') group by _comm, count" 2> /dev/null | tr '\n' ' ')
eq "$got" "pingpong,1,600 writes,7,500 writes,64,200 " "writes by task and size, grouped"
plan=$("$PERF_SQL" -r "$dir/s.cap" "explain query plan select _comm, count(*)
	from sys_enter_write group by _comm" 2>&1)
[[ $plan == *"TEMP B-TREE"* ]] && fail "GROUP BY _comm still sorted by SQLite: $plan"
echo "ok: GROUP BY of a column: no sorter in the plan"
n=0 # each {term} as written, then as +term
while IFS= read -r form; do
	[ -n "$form" ] || continue
	sql=$(sed 's/[{}]//g' <<< "$form")
	sorted=$(sed 's/{\([a-z_]*\)}/+\1/g' <<< "$form")
	a=$(q -r "$dir/s.cap" "$sql" 2> "$dir/err") || fail "$sql: $(cat "$dir/err")"
	b=$(q -r "$dir/s.cap" "$sorted" 2> "$dir/err") || fail "$sorted: $(cat "$dir/err")"
	[ -n "$a" ] || fail "no rows: $sql"
	[ "$a" = "$b" ] || fail "grouped and sorted differ: $sql: $(diff <(echo "$a") <(echo "$b") | head -5)"
	n=$((n + 1))
done << 'EOF_SQL'
select prev_comm, count(*) from sched_switch group by {prev_comm}
select prev_comm, prev_state, count(*), sum(prev_prio) from sched_switch group by {prev_comm}, {prev_state}
select _cpu, next_pid, count(*), min(_time) from sched_switch group by {_cpu}, {next_pid}
select comm, target_cpu, _comm, count(*) from sched_wakeup group by {comm}, {target_cpu}, {_comm}
select _comm, count(*), max(count) from sys_enter_write group by {_comm}
select filename, _tid, count(*) from sys_enter_openat group by {filename}, {_tid}
select distinct {prev_comm} from sched_switch
select _comm, count(*) from sched_switch where prev_state = 1 group by {_comm} having count(*) > 1
select prev_comm, count(*) from sched_switch group by {prev_comm} order by 2 desc, 1 limit 3
EOF_SQL
echo "ok: $n statements grouped by the table give SQLite's own rows, in its order"
