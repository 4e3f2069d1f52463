-- softirq: softirq handler time per vector: calls, total, min/p50/p99/max
-- needs: tracepoints irq:softirq_entry, irq:softirq_exit
-- param: than duration 0 "count only handlers that ran at least this long"
-- example: perf-sql softirq -i 1000
-- Like perf-prof softirq latency. Entry and exit pair by CPU. Times in microseconds.
SELECT CASE start_value WHEN 0 THEN 'HI' WHEN 1 THEN 'TIMER' WHEN 2 THEN 'NET_TX'
            WHEN 3 THEN 'NET_RX' WHEN 4 THEN 'BLOCK' WHEN 5 THEN 'IRQ_POLL'
            WHEN 6 THEN 'TASKLET' WHEN 7 THEN 'SCHED' WHEN 8 THEN 'HRTIMER' WHEN 9 THEN 'RCU'
            ELSE start_value END AS vec, count(*) AS calls,
       round(sum(latency) / 1e3, 1) AS total_us, round(min(latency) / 1e3, 1) AS min_us,
       round(p50(latency) / 1e3, 1) AS p50_us, round(p99(latency) / 1e3, 1) AS p99_us,
       round(max(latency) / 1e3, 1) AS max_us
  FROM pairs('softirq_entry', '_cpu', 'softirq_exit', '_cpu', 'vec')
 WHERE latency >= :than
 GROUP BY start_value
 ORDER BY sum(latency) DESC;
