-- exec: every program started (execve), in time order, like execsnoop
-- needs: tracepoints sched:sched_process_exec
-- param: comm text NULL "only programs whose new name matches this GLOB"
-- example: perf-sql exec -i 1000
-- pid is the process after exec; old_pid differs when a thread other than the leader exec'd.
SELECT ts(_time) AS time, pid, old_pid, _comm AS comm, filename
  FROM sched_process_exec
 WHERE :comm IS NULL OR _comm GLOB :comm
 ORDER BY _time;
