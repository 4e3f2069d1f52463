-- capture: writes.cap   received/lost per table as recorded (tables the query names)
SELECT count(*) FROM sys_enter_write;
SELECT count(*) FROM sched_switch WHERE _time > 0;
SELECT "table", sum(received), sum(lost) FROM perf_sql_stats WHERE cpu IS NOT NULL GROUP BY 1 ORDER BY 1;
