# profiler memleak: uprobes on the workload's my_alloc/my_free, 1,000 allocations and 900
# frees -> 100 outstanding objects under the allocating stack (main).
. "$(dirname "$0")/lib.sh"; need_root
[ -e /sys/bus/event_source/devices/uprobe/type ] || skip "no uprobe PMU in this kernel"
out=$(qx sum= memleak alloc=uretprobe_my_alloc free=uprobe_my_free \
      --uretprobe my_alloc@"$WL/allocs" --uprobe my_free@"$WL/allocs" -- "$WL/allocs" 1000 900) ||
	fail "perf-sql memleak failed"
[ "$(printf '%s\n' "$out" | wc -l)" = 1 ] || fail "expected one stack: $out"
eq "$(echo "$out" | awk -F, '{ print $NF }')" 100 "outstanding objects"
# the allocating stack: my_alloc's caller main, then libc start-up; uprobes walk frame pointers
# (--call-graph auto copies stacks for sampled clocks only), cut where glibc's start-up code
# stops keeping them (symbols/unwind.c), so no garbage frame follows
[[ "$out" =~ ^main\+0x[0-9a-f]+\ \(allocs\)\ \<-\ __libc_start_call_main\+0x[0-9a-f]+\ \(allocs\), ]] ||
	fail "the allocating stack: $out"
[[ "$out" == *"main+"*"(allocs)"* ]] || fail "the stack does not name main: $out"
echo "ok: the stack is main <- __libc_start_call_main: ${out%%,*}"
