-- blktrace: block request latency per stage: insert -> issue, issue -> complete
-- needs: tracepoints block:block_rq_insert, block:block_rq_issue, block:block_rq_complete
-- param: than duration 0 "count only requests that took at least this long in the stage"
-- example: perf-sql blktrace -i 1000
-- example: perf-sql blktrace -a -- dd if=/dev/zero of=/var/tmp/f bs=4k count=1000 oflag=direct
-- Like perf-prof blktrace. Requests are keyed by their start sector; rwbs is the request kind
-- at the start of the stage (R read, W write, S sync, F flush, ...). Times in microseconds.
-- Block completions run in interrupt context: with -- CMD, add -a to see them.
SELECT 'insert->issue' AS stage, start_value AS rwbs, count(*) AS requests,
       round(min(latency) / 1e3, 1) AS min_us, round(p50(latency) / 1e3, 1) AS p50_us,
       round(p99(latency) / 1e3, 1) AS p99_us, round(max(latency) / 1e3, 1) AS max_us
  FROM pairs('block_rq_insert', 'sector', 'block_rq_issue', 'sector', 'rwbs')
 WHERE latency >= :than
 GROUP BY start_value
UNION ALL
SELECT 'issue->complete', start_value, count(*),
       round(min(latency) / 1e3, 1), round(p50(latency) / 1e3, 1),
       round(p99(latency) / 1e3, 1), round(max(latency) / 1e3, 1)
  FROM pairs('block_rq_issue', 'sector', 'block_rq_complete', 'sector', 'rwbs')
 WHERE latency >= :than
 GROUP BY start_value;
