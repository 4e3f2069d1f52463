-- perf-top: the functions on CPU most often: samples and share per function
-- needs: pmu cpu_clock (a software clock: works in VMs)
-- param: limit int 20 "at most this many functions"
-- example: perf-sql perf-top -i 1000
-- example: perf-sql perf-top -F 999 -- ./app
-- Like perf top. The sampled instruction pointer, symbolized (kernel: ksym, user: usym)
-- without its offset, counted per window; -F sets the rate (default 99 Hz per CPU).
-- The samples are counted per instruction pointer and process first (g: in the kernel, a
-- BPF map), then symbolized once per group.
WITH g AS (SELECT ip, _pid, count(*) AS n FROM cpu_clock GROUP BY ip, _pid),
     s AS (SELECT coalesce(ksym(ip), usym(_pid, ip), printf('%#x', ip)) AS sym, n FROM g),
     f AS (SELECT CASE WHEN instr(sym, '+0x') THEN substr(sym, 1, instr(sym, '+0x') - 1) ||
                       CASE WHEN instr(sym, ' (') THEN substr(sym, instr(sym, ' (')) ELSE '' END
                  ELSE sym END AS function, n FROM s)
SELECT function, sum(n) AS samples,
       round(100.0 * sum(n) / (SELECT sum(n) FROM f), 1) AS pct
  FROM f
 GROUP BY function
 ORDER BY samples DESC
 LIMIT :limit;
