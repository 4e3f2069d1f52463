# profiler kmemleak and pending(): the msgs workload sends 150 System V messages of 208 bytes
# (one kmalloc each in load_msg, 256 bytes) and receives 30 (their kfree): 120 stay allocated
# in the kernel when it exits. kmemleak under -- CMD answers the same row in the kernel
# (pending() in a BPF hash, --explain says so) and on the ring (--no-bpf): load_msg, 120
# objects, 30,720 bytes; system-wide (-a) with a WHERE on the workload, pending() answers 120
# on both paths; with -i, a window's rows are the objects still allocated since the start.
. "$(dirname "$0")/lib.sh"; need_root
key=$((7000 + $$ % 1000 * 100))
trap '"$WL/msgs" 0 0 $key' EXIT
row() { printf '%s\n' "$1" | grep '^load_msg+' | cut -d, -f1-3 | sed 's/+0x[0-9a-f]*//'; }

p=$("$PERF_SQL" --explain kmemleak -- "$WL/msgs" 0 0 $key 2>&1) || fail "explain kmemleak: $p"
if ! printf '%s\n' "$p" | grep -q "pending() starts in the kernel"; then
	printf '%s\n' "$p" | grep -q "perf ring: not permitted\|cannot create BPF maps" &&
		skip "no BPF here: $(printf '%s\n' "$p" | grep path)"
	fail "kmemleak -- CMD: not in the kernel: $p"
fi
echo "ok: kmemleak -- CMD runs in the kernel"

out=$(q kmemleak -- "$WL/msgs" 150 30 $key) || fail "kmemleak: $out"
eq "$(row "$out")" "load_msg,120,30720" "kmemleak in the kernel: load_msg's objects and bytes"
"$WL/msgs" 0 0 $key
out=$(q --no-bpf kmemleak -- "$WL/msgs" 150 30 $key) || fail "kmemleak --no-bpf: $out"
eq "$(row "$out")" "load_msg,120,30720" "kmemleak on the ring: load_msg's objects and bytes"
"$WL/msgs" 0 0 $key

# than=: the objects younger than it at the end are left out (all of them: the run is short)
out=$(q kmemleak than=10s -- "$WL/msgs" 150 30 $key) || fail "kmemleak than=10s: $out"
eq "$(row "$out")" "" "kmemleak than=10s: no load_msg row"
"$WL/msgs" 0 0 $key

sql="select count(*), sum(start_value2), count(distinct start_tid) from pending('kmalloc', 'ptr',
     'kfree', 'ptr', 'call_site', 'bytes_req') where start_pid = workload_pid()
     and ksym(start_value) like 'load_msg+%'"
for path in "" --no-bpf; do
	out=$(q -a $path "$sql" -- "$WL/msgs" 150 30 $key) || fail "pending() -a $path: $out"
	eq "$out" "120,30720,1" "pending() -a ${path:-(kernel)}: the workload's messages, bytes_req, one task"
	"$WL/msgs" 0 0 $key
done

# windows: pending starts carry over, so the last window of -i lists the 120 too
out=$(q -i 100 "select count(*) from pending('kmalloc', 'ptr', 'kfree', 'ptr', 'call_site')
      where ksym(start_value) like 'load_msg+%'" -- sh -c "sleep 0.3; $WL/msgs 150 30 $key; sleep 0.3") ||
	fail "pending() -i: $out"
eq "$(printf '%s\n' "$out" | tail -1 | awk -F, '{ print $NF }')" 120 "pending() -i 100: the last window's load_msg objects"
