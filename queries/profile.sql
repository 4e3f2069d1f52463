-- profile: CPU flame graph: sampled stacks, folded for flamegraph.pl
-- needs: pmu cpu_clock (a software clock: works in VMs)
-- example: perf-sql profile -F 999 -d 10s -- ./app > cpu.folded; flamegraph.pl cpu.folded > cpu.svg
-- example: perf-sql profile -d 10s --flame-graph cpu.svg
-- example: perf-sql profile -f pprof -o cpu.pb.gz -- ./app; go tool pprof -top cpu.pb.gz
-- pprof: SELECT stack, count(*) AS samples FROM cpu_clock GROUP BY stack
-- Like perf-prof profile --flame-graph. Samples every CPU at -F HZ (default 99; with -- CMD,
-- the command's tasks). One line per distinct stack: the task's name, frames root first,
-- ';' separated, then the number of samples. With -f pprof, the same samples by stack, as a
-- profile for go tool pprof (docs/pprof.md).
SELECT folded_stack(stack) AS folded
  FROM cpu_clock;
