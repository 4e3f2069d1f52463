-- llcstat: last level cache loads, misses and hit ratio, counted like perf stat
-- needs: pmu hardware cache counters (llc_read_access, llc_read_miss): not in most VMs
-- example: perf-sql llcstat -i 1000
-- Like perf-prof llcstat and bcc llcstat (system-wide, or for -- CMD; not per process).
SELECT a.n AS loads, m.n AS misses, round(100.0 - 100.0 * m.n / a.n, 2) AS hit_pct
  FROM (SELECT count(*) AS n FROM llc_read_access) AS a,
       (SELECT count(*) AS n FROM llc_read_miss) AS m;
