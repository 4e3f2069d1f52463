-- capture: writes.cap   every function of sqlite/functions.c (tests/live/extension.sh checks that each is here), run by perf-sql -r and by perf_sql.so: the same text
SELECT count, count(*) AS n, log2_hist(count) AS h, lin_hist(count, 0, 1000, 100) AS l
  FROM sys_enter_write GROUP BY count ORDER BY count;
SELECT percentile(count, 25) AS p25, p50(count), p90(count), p95(count), p99(count),
       p999(count), stats(count), avg(count) FROM sys_enter_write;
SELECT log2_hist(count, 'bytes') AS h, heatmap(_time, count, 10000) AS hm FROM sys_enter_write;
SELECT slot_start - (SELECT min(_time) / 10000 * 10000 FROM sys_enter_write) AS slot, low, high,
       count FROM heatmap_rows((SELECT heatmap(_time, count, 10000) FROM sys_enter_write));
SELECT low, high, count FROM hist_rows((SELECT lin_hist(count, 0, 1000, 250, 'B')
                                        FROM sys_enter_write));
SELECT syscall_name(1), syscall_name(0), syscall_name(-1), errno_name(-2), errno_name(13),
       errno_name(0), ipv4(16777343), ipv4(x'7f000001'),
       ipv6(x'20010db8000000000000000000000001'), mac(x'0242ac110002'),
       cgroup_name('/system.slice/nginx.service');
SELECT task_state(prev_state) AS s, flags('prev_state', prev_state) AS f,
       symbolic('prev_state', prev_state) AS y, prev_comm, next_comm, count(*)
  FROM sched_switch GROUP BY 1, 2, 3, 4, 5 ORDER BY 1, 4, 5;
SELECT dur(512), dur(2500), dur(1234567), dur(4e9), dur(count * 1000),
       substr(ts(_time), 1, 16) || substr(ts(_time), 27) AS minute
  FROM sys_enter_write ORDER BY _time LIMIT 3;
SELECT workload_pid(), is_target(_tid), is_target(_tid, _time), stack_text(stack),
       stack_text(stack, ';'), stack_depth(stack), ksym(0), usym(_pid, 0), srcline(_pid, 0)
  FROM sys_enter_write LIMIT 1;
SELECT folded_stack(stack), folded_stack_merge(stack, 2) AS fm FROM sys_enter_write;
SELECT count(*), sum(latency > 0), min(start_value), max(end_value), sum(lost)
  FROM pairs('sys_enter_write', '_tid', 'sys_exit_write', '_tid', 'count', 'ret');
SELECT comm, _pid = pid, fd, count(*), sum(count) FROM sys_enter_write GROUP BY 1, 2, 3;
SELECT log2_hist_merge(x'0100000000000000', 'B') AS m2, lin_hist_merge(zeroblob(32), 0, 10, 5) AS ml,
       loglin_percentile(x'0a000000000000000100000000000000', 50) AS lp
  FROM sys_enter_write;
