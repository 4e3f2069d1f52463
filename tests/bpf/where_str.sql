-- WHERE: text equality and inequality, 8 bytes at a time
SELECT next_comm, count(*) FROM sched_switch WHERE prev_comm = 'swapper/0' AND comm != 'perf-sql' GROUP BY next_comm;
