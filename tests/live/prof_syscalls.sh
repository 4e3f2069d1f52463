# profiler syscalls: 20 sleeps of 10 ms -> clock_nanosleep, 20 calls, each at least 10 ms.
. "$(dirname "$0")/lib.sh"; need_root
out=$(q syscalls -- "$WL/sleeper" 20 10) || fail "perf-sql syscalls failed"
row=$(printf '%s\n' "$out" | grep '^clock_nanosleep,') || fail "no clock_nanosleep row: $out"
# syscall,calls,total_us,min_us,p50_us,p99_us,max_us,errors
eq "$(echo "$row" | cut -d, -f2)" 20 "clock_nanosleep calls"
awk -F, '{ exit !($4 >= 10000) }' <<<"$row" || fail "min_us below 10 ms: $row"
echo "ok: min_us >= 10000 ($(echo "$row" | cut -d, -f4))"
eq "$(echo "$row" | cut -d, -f8)" 0 "clock_nanosleep errors"
# a parameter: only that syscall, and than= leaves out the fast ones
out=$(q syscalls syscall=clock_nanosleep than=5ms -- "$WL/sleeper" 5 10) || fail "with parameters"
eq "$(echo "$out" | cut -d, -f1,2)" "clock_nanosleep,5" "syscall= and than= filter"
# a bare number is milliseconds here too (core/units.h): than=5 is 5 ms, only the sleeps are left
out=$(q syscalls than=5 -- "$WL/sleeper" 5 10) || fail "than=5"
eq "$(echo "$out" | cut -d, -f1,2)" "clock_nanosleep,5" "than=5 is 5 ms"
