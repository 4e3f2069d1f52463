-- lock: kernel lock contention per lock: waits, total and max wait
-- needs: tracepoints lock:contention_begin, lock:contention_end
-- param: than duration 0 "count only waits of at least this"
-- param: limit int 20 "at most this many locks"
-- example: perf-sql lock -i 1000
-- Like perf lock contention. A task's contention_begin pairs with its next contention_end;
-- lock_addr is a kernel address. Times in microseconds.
SELECT printf('%#x', start_value) AS lock_addr, count(*) AS waits,
       round(sum(latency) / 1e3, 1) AS total_us, round(p99(latency) / 1e3, 1) AS p99_us,
       round(max(latency) / 1e3, 1) AS max_us, sum(end_value != 0) AS failed
  FROM pairs('contention_begin', '_tid', 'contention_end', '_tid', 'lock_addr', 'ret')
 WHERE latency >= :than
 GROUP BY start_value
 ORDER BY sum(latency) DESC
 LIMIT :limit;
