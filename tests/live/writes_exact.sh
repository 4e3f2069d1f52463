# 1000 write(fd, buf, 777) among 50 other writes: exact counts through a tracepoint table.
. "$(dirname "$0")/lib.sh"; need_root
out=$(q "select count(*), sum(count = 777), sum(count = 10) from sys_enter_write
         where _pid = workload_pid()" -- "$WL/writes" 1000 777 50 10) || fail "perf-sql failed"
eq "$out" "1050,1000,50" "writes: all, of 777 bytes, of 10 bytes"
out=$(q "select count(*) from sys_enter_write where count = 777 and _pid = workload_pid()" \
      -- "$WL/writes" 300 777) || fail "perf-sql failed"
eq "$out" "300" "300 writes of 777"
# the full name works too, and so does the comm column of the producing task
out=$(q 'select comm, count(*) from "syscalls:sys_enter_write" where count = 777 group by comm' \
      -- "$WL/writes" 1000 777) || fail "perf-sql failed"
eq "$out" "writes,1000" "per-comm count under the full table name"
