# Profilers as tables (profilers/view.c): every built-in profiler selected as a table gives the
# same rows as the profiler run by name, over one capture of a workload (record once, query
# twice: the same events); parameters by position and in WHERE; a join of two profilers; a
# profiler whose SQL selects from itself is refused with one line.
. "$(dirname "$0")/lib.sh"; need_root
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
export XDG_CONFIG_HOME=$tmp/config PERF_SQL_SYSTEM_PROFILERS=$tmp/etc
wl="$WL/writes 200 7; $WL/pingpong 300; $WL/sleeper 5 10; $WL/pagetouch 100 >/dev/null; true"
# identifier parameters are literal arguments, in the profiler's parameter order
declare -A args=( [hrcount]="('sys_enter_write')" [multi-trace]="('sched_wakeup', 'sched_switch')"
	[num-dist]="('sys_enter_write', 'count')" [stat]="('sys_enter_write')"
	[top]="('sched_switch')" [trace]="('sys_enter_write')" )
declare -A byname=( [hrcount]="table=sys_enter_write" [multi-trace]="start=sched_wakeup end=sched_switch"
	[num-dist]="table=sys_enter_write field=count" [stat]="table=sys_enter_write"
	[top]="table=sched_switch" [trace]="table=sys_enter_write" )
nr_same=0
for p in $("$PERF_SQL" list | awk 'NR > 1 && $2 == "built-in" {print $1}'); do
	view="select * from \"$p\"${args[$p]:-}"
	if ! err=$("$PERF_SQL" record -o "$tmp/$p.cap" "$view" -- sh -c "$wl" 2>&1 >/dev/null); then
		case $err in
		*"not supported by this CPU/VM"*|*"no such table: uprobe_"*|*"no such table: uretprobe_"*)
			echo "skip: $p: ${err##*perf-sql: }"; continue ;;
		esac
		fail "record $p as a table: $err"
	fi
	# the rows (a repeated column name is NAME:1 in a table, as in SQLite's views)
	a=$("$PERF_SQL" --csv -r "$tmp/$p.cap" "$p" ${byname[$p]:-} 2>&1 | tail -n +2) ||
		fail "$p by name: $a"
	b=$("$PERF_SQL" --csv -r "$tmp/$p.cap" "$view" 2>&1 | tail -n +2) || fail "$p as a table: $b"
	[ "$a" = "$b" ] || fail "$p: by name and as a table differ:
$(diff <(echo "$a") <(echo "$b") | head -20)"
	nr_same=$((nr_same + 1))
done
[ $nr_same -ge 20 ] || fail "only $nr_same profilers compared"
echo "ok: $nr_same built-in profilers give the same rows as a table as by name"
# parameters: by position, by name in WHERE (a parameter named as a column is _NAME), defaults
w="$WL/writes 300 7"
eq "$(q "select calls from syscalls where _syscall = 'write'" -- $w)" 300 "syscalls where _syscall = 'write'"
eq "$(q "select calls from syscalls(0, 'write')" -- $w)" 300 "syscalls(0, 'write')"
eq "$(q "select count(*) from syscalls('1h')" -- $w)" 0 "syscalls('1h'): no call took an hour"
eq "$(q "select than from syscalls(0, 'write')" -- $w)" 0 "the hidden column shows the argument"
out=$("$PERF_SQL" "select * from syscalls('soon')" -- $w 2>&1); rc=$?
[ $rc = 1 ] && [[ "$out" == "perf-sql: syscalls: than"*"soon"* ]] || fail "a bad argument ($rc): $out"
echo "ok: a malformed argument is one line: $out"
# a join of two profilers: each workload write is one syscall row and one top row
out=$(q "select s.calls, t.events from syscalls(0, 'write') s join top('sys_enter_write', 'count') t
	on t.key = 7" -- $w)
eq "$out" "300,300" "syscalls joined with top"
# the same query through a saved profiler over a profiler
"$PERF_SQL" save writes300 "select calls from syscalls(0, 'write')" >/dev/null || fail "save over a profiler"
eq "$(q writes300 -- $w)" 300 "a saved profiler over a profiler"
# a profiler that reaches itself: refused with one line (the file is written by hand: save checks)
dir=$XDG_CONFIG_HOME/perf-sql/profilers
printf -- '-- selfref: loops\nselect * from selfref;\n' > "$dir/selfref.sql"
out=$("$PERF_SQL" selfref -d 0.1s 2>&1); rc=$?
eq "$rc" 2 "exit status of a profiler that selects from itself"
[[ "$out" == *"profiler selfref refers to itself"* ]] && [ "$(echo "$out" | wc -l)" = 1 ] ||
	fail "selfref said: $out"
echo "ok: $out"
out=$("$PERF_SQL" save loop2 "select * from selfref" 2>&1); rc=$?
eq "$rc" 2 "save over a profiler that selects from itself"
# parameters in WHERE in either order, and through the '_' alias with literal arguments
eq "$(q "select calls from syscalls where than = '0' and _syscall = 'write'" -- $w)" 300 "than, then _syscall"
eq "$(q "select calls from syscalls where _syscall = 'write' and than = '0'" -- $w)" 300 "_syscall, then than"
eq "$(q "select count(*) from num_dist('sys_enter_write', 'count')" -- $w)" 1 "num_dist('t', 'f') (alias)"
# a table that takes a profiler's alias wins, and --explain and help say so (page_faults is the
# PMU table, always there; the profiler page-faults is "page-faults")
out=$("$PERF_SQL" --explain "select count(*) from page_faults" | grep '^note: ')
eq "$out" 'note: page_faults is the table software:page_faults, not the profiler page-faults (as a table: "page-faults")' \
	"--explain of a table that takes a profiler's alias"
eq "$("$PERF_SQL" --explain 'select count(*) from "page-faults"' | grep -c '^note: ')" 0 \
	"--explain of the profiler by its quoted name: no note"
eq "$("$PERF_SQL" help page-faults | grep -c '^  (page_faults is the table software:page_faults: it wins over this profiler)$')" 1 \
	"help page-faults says the table page_faults wins"
eq "$("$PERF_SQL" help syscalls | grep -c 'it wins over this profiler')" 0 "help syscalls: no table wins"
echo "ok: --explain and help say page_faults is the table, not the profiler"
