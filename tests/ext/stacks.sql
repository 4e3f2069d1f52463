-- capture: stacks.cap   (tests/live/extension_live.sh records cpu_clock stacks of burn 1)
SELECT folded_stack(stack) FROM cpu_clock;
SELECT stack_depth(stack) AS depth, count(*) FROM cpu_clock GROUP BY 1 ORDER BY 1;
SELECT ksym(ip) AS k, usym(_pid, ip) AS u, count(*) FROM cpu_clock GROUP BY 1, 2 ORDER BY 3 DESC, 1, 2;
SELECT stack_text(stack, ' <- ') AS s, count(*) FROM cpu_clock GROUP BY 1 ORDER BY 2 DESC, 1 LIMIT 20;
SELECT _comm, count(*), min(_time) > 0, sum(ip != 0) FROM cpu_clock GROUP BY 1;
