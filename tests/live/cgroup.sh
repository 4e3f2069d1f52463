# --cgroup: only the tasks of a cgroup (and what they start) are traced.
. "$(dirname "$0")/lib.sh"; need_root
base=""
for d in /sys/fs/cgroup/unified /sys/fs/cgroup; do
	[ -f "$d/cgroup.procs" ] && [ "$(stat -f -c %T "$d")" = cgroup2fs ] && base=$d && break
done
[ -n "$base" ] || skip "no cgroup v2 hierarchy mounted"
cg="$base/perfsql-test-$$"
mkdir "$cg" || skip "cannot create a cgroup under $base"
trap 'rmdir "$cg" 2>/dev/null' EXIT
# the target waits 0.5 s (for perf-sql to attach), then does 500 writes of 77 bytes
sh -c "echo \$\$ > $cg/cgroup.procs; sleep 0.5; exec $WL/writes 500 77" & target=$!
sleep 0.2
out=$(q --cgroup "${cg#$base/}" "select count(*), sum(count = 77), count(distinct _pid) from sys_enter_write") ||
	fail "perf-sql --cgroup"
wait $target
eq "$out" "500,500,1" "writes seen in the cgroup: all of the target's, and no one else's"
err=$("$PERF_SQL" --cgroup no-such-cgroup-xyz "select 1" 2>&1); rc=$?
eq "$rc" 1 "exit status for an unknown cgroup"
[[ "$err" == "perf-sql: --cgroup no-such-cgroup-xyz: no such cgroup;"* ]] || fail "message: $err"
