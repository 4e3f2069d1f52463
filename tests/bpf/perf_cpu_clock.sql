-- a software event: cpu_clock sampled at -F Hz, perf-sql's own samples left out
SELECT _cpu, count(*) FROM cpu_clock GROUP BY _cpu;
