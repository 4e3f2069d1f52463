-- wakeups: who wakes whom: wakeups per waker and wakee, and how many cross CPUs
-- needs: tracepoints sched:sched_wakeup
-- param: limit int 20 "at most this many waker/wakee pairs"
-- example: perf-sql wakeups -i 1000
-- _comm/_tid are the waking task (for wakeups from interrupts: whatever ran), comm/pid the
-- woken one; remote counts wakeups onto another CPU than the waker's.
SELECT _comm AS waker, _tid AS waker_tid, comm AS wakee, pid AS wakee_tid, count(*) AS wakeups,
       sum(target_cpu != _cpu) AS remote
  FROM sched_wakeup
 GROUP BY _tid, pid
 ORDER BY wakeups DESC
 LIMIT :limit;
