-- a stack key of cpu_clock samples: a perf_event program on every CPU
SELECT folded_stack(stack), count(*) FROM cpu_clock GROUP BY stack;
