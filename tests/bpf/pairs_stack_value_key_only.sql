-- pairs()'s START_COL 'stack' (the switch out's chain) is a GROUP BY key only in the kernel (offcpu): a statement that tests it stays on the ring, saying why
SELECT count(*) FROM pairs('sched_switch', 'prev_pid', 'sched_switch', 'next_pid', 'stack') WHERE start_value IS NOT NULL;
