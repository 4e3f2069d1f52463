-- pairs(): p50/p99 from a log-linear histogram per group, tp_btf of the scheduler
SELECT comm, p50(latency), p99(latency) FROM pairs('sched_wakeup', 'pid', 'sched_switch', 'next_pid') GROUP BY comm;
