-- pairs(): WHERE on the latency, the start's task and pid
SELECT comm, start_tid, count(*) FROM pairs('sys_enter_clock_nanosleep', '_tid', 'sys_exit_clock_nanosleep', '_tid') WHERE latency >= 1000000 GROUP BY comm, start_tid;
