-- profile: CPU flame graph: sampled stacks, folded for flamegraph.pl
-- needs: pmu cpu_clock (a software clock: works in VMs)
-- example: perf-sql profile -F 999 -d 10 -- ./app > cpu.folded; flamegraph.pl cpu.folded > cpu.svg
-- example: perf-sql profile -d 10 --flame-graph cpu.svg
-- Like perf-prof profile --flame-graph. Samples every CPU at -F HZ (default 99; with -- CMD,
-- the command's tasks). One line per distinct stack: the task's name, frames root first,
-- ';' separated, then the number of samples.
SELECT folded_stack(stack) AS folded
  FROM cpu_clock;
