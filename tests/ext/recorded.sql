-- capture: writes.cap   (tests/live/extension_live.sh records its own: writes 300 777 40 10)
SELECT count, count(*) AS n, sum(count) FROM sys_enter_write WHERE _pid = pid GROUP BY count
 ORDER BY count;
SELECT comm, _comm, count(*), p50(count), p99(count), log2_hist(count, 'B')
  FROM sys_enter_write GROUP BY 1, 2 ORDER BY 1, 2;
SELECT count(*), sum(start_value), sum(end_value), sum(end_value = start_value)
  FROM pairs('sys_enter_write', '_tid', 'sys_exit_write', '_tid', 'count', 'ret');
SELECT prev_comm, next_comm, task_state(prev_state), count(*) FROM sched_switch
 GROUP BY 1, 2, 3 ORDER BY 1, 2, 3;
SELECT name, system, event, kind, fields FROM perf_sql_events ORDER BY name;
