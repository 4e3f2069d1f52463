# -p follows the target's process tree as -- CMD does (issue 13): the children, grandchildren
# and threads the target creates after perf-sql attached are in the tables that name tasks, from
# their fork on. One run of each tree (N forks, N threads, a fork chain N deep, a shell loop of
# N commands), held before it starts (lib.sh hold), is counted at once by perf stat -p, by
# perf-sql -p, and by perf-sql -a around them:
#  (1) fork, exec, exit and wakeup_new rows equal the tree's exact counts and perf stat's, and
#      the forks join the exits on the child's pid;
#  (2) sleeps (switches out in state S) ran in the tree's tasks: as many as perf stat counted
#      (inherit: what runs in the target and what it creates, up to each task's exit);
#  (3) wakeups of the tree's tasks, and switches into them, happen in any task or interrupt: as
#      many as perf-sql -a saw of the tree it rebuilds from the forks.
# (--cgroup takes the same path: its threads are targets like -p's.)
. "$(dirname "$0")/lib.sh"; need_root
command -v perf >/dev/null || skip "perf is not installed (apt-get install linux-perf)"
n=40
dir=$(mktemp -d) || fail "mktemp"
trap 'kill ${BG[@]+"${BG[@]}"} ${ref:-} 2>/dev/null; rm -rf "$dir"' EXIT
# (a unary + keeps a term that names another table's rows out of the kernel filters: the dry
# run that plans them sees empty tables)
sql="with kids(p) as (select child_pid from sched_process_fork union select HELD),
	ex(p, t) as (select pid, _time from sched_process_exit)
	select (select count(*) from sched_process_fork) forks,
	(select count(*) from sched_process_exec) execs, (select count(*) from sched_process_exit) exits,
	(select count(*) from sched_wakeup_new) wakeup_new,
	(select count(*) from sched_process_fork f join sched_process_exit e on e.pid = f.child_pid) joined,
	(select count(*) from sched_switch where prev_state = 1 and +_tid in kids
	 and _time <= coalesce((select t from ex where p = _tid), 9e18)) sleeps,
	(select count(*) from sched_wakeup where +pid in kids) wakeups,
	(select count(*) from sched_switch where +next_pid in kids) switch_ins"
ref_sql="with recursive t(p, since) as (select HELD, 0 union select f.child_pid, f._time
		from sched_process_fork f join t on +f.parent_pid = t.p and f._time >= t.since)
	select (select count(*) from sched_wakeup w join t on +w.pid = t.p and w._time >= t.since),
	       (select count(*) from sched_switch s join t on +s.next_pid = t.p
		and s._time >= t.since) switch_ins"
check() {   # check NAME FORKS EXECS EXITS CMD...
	local name=$1 forks=$2 execs=$3 exits=$4 ctl ack reply ps e
	shift 4
	rm -rf "${dir:?}"/*
	mkfifo "$dir/ctl" "$dir/ack" "$dir/end" || fail "mkfifo in $dir"
	hold "$dir" "$@"
	"$PERF_SQL" --csv -v -a -m 256 "${ref_sql//HELD/$HELD}" -- sh -c 'read -r _ < "$0"' \
		"$dir/end" >"$dir/ref" 2>"$dir/ref.err" & ref=$!
	wait_plan $ref "$dir/ref.err"
	query_held "$dir" "${sql//HELD/$HELD}" -p $HELD
	perf stat -x, -o "$dir/stat" -D -1 --control "fifo:$dir/ctl,$dir/ack" -p $HELD \
		-e sched:sched_process_fork,sched:sched_process_exec,sched:sched_process_exit \
		-e sched:sched_wakeup_new -e sched:sched_switch --filter "prev_state == 1" \
		2>"$dir/stat.err" &
	BG+=($!)
	exec {ctl}>"$dir/ctl" {ack}<"$dir/ack"
	echo enable >&$ctl
	read -r -t 30 reply <&$ack
	exec {ctl}>&- {ack}<&-
	[ "$reply" = ack ] || fail "$name: perf stat did not ack enable: '$reply' $(cat "$dir/stat.err")"
	release "$dir"
	echo end >"$dir/end"
	wait $ref || fail "perf-sql -a failed: $(cat "$dir/ref.err")"
	ref=
	ps=$(for e in process_fork process_exec process_exit wakeup_new; do
		stat_count "$dir" sched:sched_$e; done)
	eq "$(echo $ps)" "$forks $execs $exits $forks" "$name: perf stat forks, execs, exits, wakeup_new"
	eq "$(tail -n +2 "$dir/query" | tr -d '\r')" \
		"$forks,$execs,$exits,$forks,$forks,$(stat_count "$dir" sched:sched_switch),$(tail -n +2 "$dir/ref" | tr -d '\r')" \
		"$name: perf-sql -p forks, execs, exits, wakeup_new, joined; sleeps (perf stat's); wakeups, switch-ins (perf-sql -a's)"
}
list=$(seq -s ' ' $n)
check "$n forks" $n 1 $((n + 1)) "$WL/forker" $n
check "$n threads" $n 1 $((n + 1)) "$WL/spawn" threads $n
check "chain of $n" $n 1 $((n + 1)) "$WL/spawn" chain $n
check "shell loop of $n" $n $((n + 1)) $((n + 1)) sh -c "for i in $list; do /bin/true; done"
