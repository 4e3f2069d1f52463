# --cgroup: only the tasks of a cgroup (and what they start) are traced.
. "$(dirname "$0")/lib.sh"; need_root
base=$(cgroup_v2) || skip "no cgroup v2 hierarchy mounted"
cg="$base/perfsql-test-$$"
mkdir "$cg" || skip "cannot create a cgroup under $base"
# the target joins the cgroup held before its exec (lib.sh hold); once perf-sql collects it does
# 500 writes of 77 bytes
dir=$(mktemp -d); trap 'rmdir "$cg" 2>/dev/null; rm -rf "$dir"' EXIT
hold "$dir" "$WL/writes" 500 77
echo $HELD > "$cg/cgroup.procs" || fail "cannot move $HELD into $cg"
query_held "$dir" "select count(*), sum(count = 77), count(distinct _pid) from sys_enter_write" \
	--cgroup "${cg#$base/}"
release "$dir"
out=$(tail -n +2 "$dir/query" | tr -d '\r')
eq "$out" "500,500,1" "writes seen in the cgroup: all of the target's, and no one else's"
err=$("$PERF_SQL" --cgroup no-such-cgroup-xyz "select 1" 2>&1); rc=$?
eq "$rc" 1 "exit status for an unknown cgroup"
[[ "$err" == "perf-sql: --cgroup no-such-cgroup-xyz: no such cgroup;"* ]] || fail "message: $err"
