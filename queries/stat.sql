-- stat: how often a tracepoint fires, counted in the kernel like perf stat
-- needs: the tracepoint named by table=
-- param: table table NULL "the tracepoint to count"
-- example: perf-sql stat table=sched_switch -i 1000
-- example: perf-sql stat table=sys_enter_write -- ./app
-- Like perf-prof stat. No column is read, so nothing is sampled: perf-sql reads the event's
-- count at the end of each window (counting mode), whatever the rate; a system call's table
-- and sched_switch are counted by a tp_btf program instead, exactly too (docs/planning.md).
SELECT ':table' AS event, count(*) AS count
  FROM :table;
