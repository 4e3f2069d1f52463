-- tlbstat: data TLB loads and misses, instruction TLB misses, counted like perf stat
-- needs: pmu hardware cache counters (dtlb_read_access, dtlb_read_miss, itlb_read_miss)
-- example: perf-sql tlbstat -i 1000
-- Like perf-prof tlbstat.
SELECT a.n AS dtlb_loads, m.n AS dtlb_misses, round(100.0 * m.n / a.n, 2) AS dtlb_miss_pct,
       i.n AS itlb_misses
  FROM (SELECT count(*) AS n FROM dtlb_read_access) AS a,
       (SELECT count(*) AS n FROM dtlb_read_miss) AS m,
       (SELECT count(*) AS n FROM itlb_read_miss) AS i;
