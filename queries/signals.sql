-- signals: signals sent per signal, sender and target; how many were not delivered
-- needs: tracepoints signal:signal_generate
-- param: limit int 20 "at most this many rows"
-- example: perf-sql signals -i 1000
-- result: 0 delivered, 1 ignored, 2 already pending, 3 queue overflow, 4 info lost.
SELECT sig, _comm AS sender, comm AS target, pid AS target_tid, count(*) AS signals,
       sum(result != 0) AS not_delivered
  FROM signal_generate
 GROUP BY sig, _tid, pid
 ORDER BY signals DESC
 LIMIT :limit;
