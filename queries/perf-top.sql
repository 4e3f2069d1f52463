-- perf-top: the functions on CPU most often: samples and share per function
-- needs: pmu cpu_clock (a software clock: works in VMs)
-- param: limit int 20 "at most this many functions"
-- example: perf-sql perf-top -i 1000
-- example: perf-sql perf-top -F 999 -- ./app
-- Like perf top. The sampled instruction pointer, symbolized (kernel: ksym, user: usym)
-- without its offset, counted per window; -F sets the rate (default 99 Hz per CPU).
WITH s AS (SELECT coalesce(ksym(ip), usym(_pid, ip), printf('%#x', ip)) AS sym FROM cpu_clock),
     f AS (SELECT CASE WHEN instr(sym, '+0x') THEN substr(sym, 1, instr(sym, '+0x') - 1) ||
                       CASE WHEN instr(sym, ' (') THEN substr(sym, instr(sym, ' (')) ELSE '' END
                  ELSE sym END AS function FROM s)
SELECT function, count(*) AS samples,
       round(100.0 * count(*) / (SELECT count(*) FROM f), 1) AS pct
  FROM f
 GROUP BY function
 ORDER BY samples DESC
 LIMIT :limit;
