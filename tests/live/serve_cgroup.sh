# perf-sql serve labels a metric by _cgroup and cgroup_name(_cgroup) like any column: writes 300
# in a cgroup of the v2 hierarchy made after serve started (its id unknown to the walk at
# planning) is the series {cgroup="PATH",unit="NAME"} of value 300, on the kernel path (the
# default) and on the ring (--no-bpf).
. "$(dirname "$0")/lib.sh"; need_root
. "$(dirname "$0")/serve_lib.inc"
base=""
for d in /sys/fs/cgroup/unified /sys/fs/cgroup; do
	[ -f "$d/cgroup.procs" ] && [ "$(stat -f -c %T "$d")" = cgroup2fs ] && base=$d && break
done
[ -n "$base" ] || skip "no cgroup v2 hierarchy mounted"
size=$((3001 + $$ % 997)) cg=perfsql-serve-$$.service
trap 'serve_cleanup; rmdir "$base/$cg" 2>/dev/null' EXIT
for opt in "" --no-bpf; do
	serve_start -i 300 $opt --name cg "select _cgroup as cgroup, cgroup_name(_cgroup) as unit,
		count(*) as writes from sys_enter_write where count = $size group by _cgroup"
	mkdir "$base/$cg" || fail "cannot make $base/$cg"
	sh -c 'echo $$ > "$0/cgroup.procs" && exec "$1" 300 "$2"' "$base/$cg" "$WL/writes" "$size" \
		>/dev/null || fail "writes"
	wait_metric "perf_sql_cg_writes_total{cgroup=\"$cg\",unit=\"$cg\"}" 300
	echo "ok: serve ${opt:-(kernel path)}: writes labelled by _cgroup and cgroup_name()"
	kill -TERM $SERVE_PID && wait $SERVE_PID || fail "serve did not stop: $(cat "$SERVE_DIR/serve.err")"
	SERVE_PID=
	rmdir "$base/$cg" || fail "rmdir $cg"
done
