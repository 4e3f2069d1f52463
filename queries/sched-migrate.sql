-- sched-migrate: task migrations between CPUs, per task and CPU pair
-- needs: tracepoints sched:sched_migrate_task
-- param: comm text NULL "only tasks whose name matches this GLOB"
-- param: limit int 20 "at most this many rows"
-- example: perf-sql sched-migrate -i 1000
-- Like perf-prof sched-migrate (counts instead of one line per migration; trace
-- table=sched_migrate_task prints those).
SELECT comm, pid AS tid, orig_cpu, dest_cpu, count(*) AS migrations
  FROM sched_migrate_task
 WHERE :comm IS NULL OR comm GLOB :comm
 GROUP BY pid, orig_cpu, dest_cpu
 ORDER BY migrations DESC
 LIMIT :limit;
