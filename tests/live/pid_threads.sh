# -p of a process with 500 threads (issue 12): a kernel filter cannot hold 501 thread ids (it
# takes 4095 bytes), so the scheduler rows of the targets are picked in user space; they must
# be exactly the targets' rows. One run of the workload is watched at once by perf-sql -p and,
# as the reference, by perf-sql -a (system-wide, no task filter); both are open before the
# threads start (SIGUSR1), so both see the same events.
. "$(dirname "$0")/lib.sh"; need_root
n=500 k=10 size=7
dir=$(mktemp -d) || fail "mktemp"
trap 'kill $target $pp $pa 2>/dev/null; rm -rf "$dir"' EXIT
"$WL/threads" $n $k $size >"$dir/ready" & target=$!
for _ in $(seq 200); do grep -q ready "$dir/ready" && break; sleep 0.05; done
grep -q "ready $target" "$dir/ready" || fail "workload not ready: $(cat "$dir/ready")"
ls /proc/$target/task >"$dir/tids"
eq "$(grep -c . "$dir/tids")" $((n + 1)) "threads of the target"
# the soft open-file limit is below the 2 x 501 fds sys_enter_write needs: perf-sql raises it
(ulimit -Sn 512; exec "$PERF_SQL" --csv -v -m 512 -p $target \
	"select count(*), sum(count = $size), count(distinct tid) from sys_enter_write;
	 select prev_pid, next_pid, prev_state = 1, count(*) from sched_switch group by 1, 2, 3;
	 select sum(lost) from perf_sql_stats" >"$dir/p" 2>"$dir/p.err") & pp=$!
"$PERF_SQL" --csv -v -m 2048 -a \
	"select prev_pid, count(*) from sched_switch where prev_state = 1 group by 1;
	 select sum(lost) from perf_sql_stats" -- tail --pid=$target -f /dev/null \
	>"$dir/a" 2>"$dir/a.err" & pa=$!
for _ in $(seq 400); do
	[ "$(cat "$dir/p.err" "$dir/a.err" | grep -c "^table ")" -ge 3 ] && break
	kill -0 $pp 2>/dev/null && kill -0 $pa 2>/dev/null || break
	sleep 0.05
done
[ "$(cat "$dir/p.err" "$dir/a.err" | grep -c "^table ")" -ge 3 ] ||
	fail "not both collecting: $(cat "$dir/p.err" "$dir/a.err")"
kill -USR1 $target
wait $target || fail "workload exited $?"
wait $pp || fail "perf-sql -p exited $?: $(cat "$dir/p.err")"
wait $pa || fail "perf-sql -a exited $?: $(cat "$dir/a.err")"
grep -q "lost" "$dir/p.err" "$dir/a.err" && fail "events lost: $(cat "$dir/p.err" "$dir/a.err")"
# the statements' results, one CSV block each (a header line, then rows)
block() { awk -v b="$2" '/^[a-z_(]/ { i++; next } i == b' "$1" | tr -d '\r'; }
eq "$(block "$dir/p" 3)" 0 "-p: no event lost"
eq "$(block "$dir/a" 2)" 0 "-a: no event lost"
eq "$(block "$dir/p" 1)" "$((n * k)),$((n * k)),$n" "-p: every write of the 500 threads, and no other"
# every scheduler row names a target as the task switched out or in
block "$dir/p" 2 >"$dir/p.sw"
[ -s "$dir/p.sw" ] || fail "-p: no scheduler row"
foreign=$(awk -F, 'NR == FNR { t[$1] = 1; next } !($1 in t) && !($2 in t) { s += $4 }
		   END { print s + 0 }' "$dir/tids" "$dir/p.sw")
eq "$foreign" 0 "-p: scheduler rows of other tasks"
# the targets' sleeps (switches out in state S), thread by thread, as -a saw them
per_tid() { awk -F, 'NR == FNR { t[$1] = 1; next } ($1 in t) && $3 == 1 { s[$1] += $4 }
		     END { for (i in s) print i, s[i] }' "$dir/tids" - | sort; }
block "$dir/p" 2 | per_tid >"$dir/p.sleeps"
block "$dir/a" 1 | awk -F, '{ print $1 "," 0 "," 1 "," $2 }' | per_tid >"$dir/a.sleeps"
# (the N workers each sleep K times; the main thread only waits, in pthread_join, which may
# sleep once per worker still running: it is not counted here, and -a's count of it is below)
eq "$(awk -v k=$k -v m=$target '$1 != m && $2 >= k' "$dir/p.sleeps" | grep -c .)" $n \
	"-p: worker threads with at least $k sleeps"
cmp -s "$dir/p.sleeps" "$dir/a.sleeps" ||
	fail "-p and -a differ on the targets' sleeps: $(diff "$dir/p.sleeps" "$dir/a.sleeps" | head)"
echo "ok: -p and -a agree on the sleeps of all $(grep -c . "$dir/a.sleeps") targets that slept"
