-- hwstat: cycles, instructions, IPC, branches and misses, counted like perf stat
-- needs: pmu hardware counters (cycles, instructions, ...): not in most VMs
-- example: perf-sql hwstat -i 1000
-- example: perf-sql hwstat -- ./app
-- Like perf-prof hwstat. Nothing is sampled: each table is counted (no column is read).
SELECT c.n AS cycles, i.n AS instructions, round(1.0 * i.n / c.n, 2) AS ipc,
       b.n AS branches, round(100.0 * m.n / b.n, 2) AS branch_miss_pct
  FROM (SELECT count(*) AS n FROM cycles) AS c, (SELECT count(*) AS n FROM instructions) AS i,
       (SELECT count(*) AS n FROM branch_instructions) AS b,
       (SELECT count(*) AS n FROM branch_misses) AS m;
