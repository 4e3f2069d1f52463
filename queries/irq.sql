-- irq: hard interrupt handler time per irq: calls, total, min/p50/p99/max
-- needs: tracepoints irq:irq_handler_entry, irq:irq_handler_exit
-- param: than duration 0 "count only handlers that ran at least this long"
-- example: perf-sql irq -i 1000
-- Like perf-prof irq (hardirq latency). Handlers do not nest on a CPU, so entry and exit pair
-- by CPU. Times in microseconds.
SELECT end_value AS irq, start_value AS name, count(*) AS calls,
       round(sum(latency) / 1e3, 1) AS total_us, round(min(latency) / 1e3, 1) AS min_us,
       round(p50(latency) / 1e3, 1) AS p50_us, round(p99(latency) / 1e3, 1) AS p99_us,
       round(max(latency) / 1e3, 1) AS max_us
  FROM pairs('irq_handler_entry', '_cpu', 'irq_handler_exit', '_cpu', 'name', 'irq')
 WHERE latency >= :than
 GROUP BY end_value, start_value
 ORDER BY sum(latency) DESC;
