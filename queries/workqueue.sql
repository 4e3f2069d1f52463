-- workqueue: kernel work item run time per work function
-- needs: tracepoints workqueue:workqueue_execute_start, workqueue:workqueue_execute_end
-- param: than duration 0 "count only runs of at least this"
-- param: limit int 20 "at most this many functions"
-- example: perf-sql workqueue -i 1000
-- A work item's execute_start pairs with its execute_end (keyed by the work pointer); function
-- is a kernel address. Times in microseconds.
SELECT printf('%#x', start_value) AS function, count(*) AS runs,
       round(sum(latency) / 1e3, 1) AS total_us, round(p99(latency) / 1e3, 1) AS p99_us,
       round(max(latency) / 1e3, 1) AS max_us
  FROM pairs('workqueue_execute_start', 'work', 'workqueue_execute_end', 'work', 'function')
 WHERE latency >= :than
 GROUP BY start_value
 ORDER BY sum(latency) DESC
 LIMIT :limit;
