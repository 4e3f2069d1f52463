# profiler rundelay: 200 sleeps of 1 ms -> wakeup -> run pairs for the sleeper's tid, exactly
# the pairs the same run's rows make (a wakeup of the sleeper followed by a switch to it),
# and 200 of them less the wakeups the run counted lost; perf_sql_stats' pairs() row counts
# replaced starts and unmatched ends. Nothing is pinned: in the kernel (the profiler's path under
# -- CMD and -p) every wakeup of the sleeper is seen, on an idle machine and a loaded one; the
# ring misses those an idle CPU's interrupts fire here (docs/reliability.md), counted lost.
. "$(dirname "$0")/lib.sh"; need_root
# (-m 1024: under -- CMD every CPU's switches reach the ring, to be picked in user space; on a
# busy machine 64 pages overflow)
# (the sleeper's tid from the shell that becomes it: the rows may hold other tasks, a sleeper of
# another run among them)
tmp=$(mktemp -d); trap 'kill ${BG[@]+"${BG[@]}"} 2>/dev/null; idle_cpus; rm -rf "$tmp"' EXIT
out=$(q -m 1024 rundelay limit=-1 -- sh -c "echo \$\$ > $tmp/pid; exec $WL/sleeper 20 1") ||
	fail "perf-sql rundelay failed"
row=$(printf '%s\n' "$out" | grep "^sleeper,$(cat "$tmp/pid"),") ||
	fail "no sleeper row for tid $(cat "$tmp/pid"): $out"
# comm,tid,runs,total_us,min_us,p50_us,p99_us,max_us
[[ "$(echo "$row" | cut -d, -f2)" =~ ^[0-9]+$ ]] || fail "tid is not a number: $row"
echo "ok: rundelay row of the sleeper: $row"
# the reference, in the same run: the sleeper's rows in time order, a switch to it right after
# a wakeup of it (named sleeper) is a pair, as pairs() pairs them (a newer wakeup replaces)
REF="with ev as (select _time as t, 0 as k, comm as c from sched_wakeup where pid = workload_pid()
       union all select _time, 1, null from sched_switch where next_pid = workload_pid()),
     o as (select k, lag(k) over (order by t, k) as pk, lag(c) over (order by t, k) as pc from ev)
     select count(*) from o where k = 1 and pk = 0 and pc = 'sleeper'"
P="pairs('sched_wakeup', 'pid', 'sched_switch', 'next_pid', 'comm')"
out=$("$PERF_SQL" --csv -m 1024 "select count(*) from $P where key = workload_pid() and start_value = 'sleeper';
      $REF; select sum(lost) from perf_sql_stats where \"table\" = 'sched_wakeup';
      select count(*) from sched_wakeup where pid = workload_pid() and comm = 'sleeper';
      select replaced is not null, unmatched > 0 from perf_sql_stats where \"table\" like 'pairs(%'" \
      -- "$WL/sleeper" 200 1 2>"$tmp/err" | tr -d '\r' | grep -v '[a-z]') || fail "perf-sql pairs failed: $(cat "$tmp/err")"
# (each statement's header has letters, its values none)
read -r pairs ref lost wakeups stats <<<"$(echo $out)"
eq "$pairs" "$ref" "wakeup -> run pairs of the sleeper, against the same run's rows"
# every sleep is one wakeup, received or counted lost (a lost one may be of another task; the
# kernel may wake the sleeper once more, e.g. at its exec)
[ $((wakeups + lost)) -ge 200 ] ||
	fail "sleeper wakeups $wakeups, lost $lost: 200 sleeps not accounted for"
echo "ok: 200 sleeps: $wakeups wakeups received, $lost lost"
eq "$stats" "1,1" "perf_sql_stats pairs() row: replaced counted, unmatched ends counted"
# than=1s: no sleeper waited that long for a CPU
out=$(q rundelay than=1s -- "$WL/sleeper" 20 1) || fail "rundelay than=1s failed"
eq "$(printf '%s\n' "$out" | grep -c '^sleeper,')" 0 "sleeper rows with than=1s"

# the profiler as a user runs it, in the kernel: 200 sleeps of 1 ms are 200 wakeup -> run pairs
# (one more after the exec, and at most a few more: at most 206), under -- CMD and -p, on an
# idle machine and with every CPU busy (busy_cpus, lib.sh)
p=$("$PERF_SQL" --explain rundelay -- true | grep "^  path")
printf '%s\n' "$p" | grep -q "pairs() starts in the kernel" || fail "rundelay -- CMD not in the kernel: $p"
runs() { # runs OPTION...: the sleeper's runs under rundelay with OPTION
	local out
	if [ "$1" = -p ]; then
		dir=$tmp/held; mkdir -p "$dir"
		hold "$dir" "$WL/sleeper" 200 1
		query_held "$dir" rundelay -p "$HELD"
		grep -q "pairs() starts in the kernel" "$dir/query.err" ||
			fail "rundelay -p not in the kernel: $(grep path "$dir/query.err")"
		release "$dir"
		out=$(tail -n +2 "$dir/query" | tr -d '\r'); rm -rf "$dir"
	else
		out=$(q rundelay -- "$WL/sleeper" 200 1) || fail "rundelay -- CMD failed"
	fi
	printf '%s\n' "$out" | awk -F, '$1 == "sleeper" { n += $3 } END { print n + 0 }'
}
# (One run in five here has 198 or 199, idle or busy, 197 once during the whole suite with every
# CPU busy, and so has the ring in such a run (bpf_options.sh compares the two on one run): a
# sleep whose 1 ms timer fired
# before the sleeper switched out has a wakeup and no run (perf_sql_stats' replaced), and some
# sleeps fire no sched_wakeup at all: bpftrace, counting beside it, saw 1397 sched_wakeup of
# tasks named sleeper for 1401 clock_nanosleep calls and 1401 switches out asleep. The ring,
# unpinned, reported 0 to 121 on an idle machine.)
for load in idle busy; do
	[ $load = busy ] && busy_cpus
	between "$(runs --)" 195 206 "rundelay -- sleeper 200 1 ($load): runs"
	between "$(runs -p)" 195 206 "rundelay -p of sleeper 200 1 ($load): runs"
	idle_cpus
done
