-- syscalls: system call latency per call: calls, total, min/p50/p99/max, errors
-- needs: tracepoints raw_syscalls:sys_enter, raw_syscalls:sys_exit
-- param: than duration 0 "count only calls that took at least this long"
-- param: syscall text NULL "only this system call, by name (read, futex, ...)"
-- example: perf-sql syscalls -- ./app
-- example: perf-sql syscalls than=1ms -p 1234 -i 1000
-- Like perf-prof syscalls and bcc syscount -L. Each sys_enter pairs with the next sys_exit of
-- the same thread (pairs(): a call spanning windows is counted in the window it ends in).
-- Times are in microseconds; errors counts negative returns (-errno). Paired in the kernel by
-- default (docs/bpf.md): p50/p99 within 0.8 %; --no-bpf pairs in user space, exact.
SELECT syscall_name(start_value) AS syscall, count(*) AS calls,
       round(sum(latency) / 1e3, 1) AS total_us, round(min(latency) / 1e3, 1) AS min_us,
       round(p50(latency) / 1e3, 1) AS p50_us, round(p99(latency) / 1e3, 1) AS p99_us,
       round(max(latency) / 1e3, 1) AS max_us, sum(end_value < 0) AS errors
  FROM pairs('sys_enter', '_tid', 'sys_exit', '_tid', 'id', 'ret')
 WHERE latency >= :than AND (:syscall IS NULL OR syscall_name(start_value) = :syscall)
 GROUP BY start_value
 ORDER BY sum(latency) DESC;
