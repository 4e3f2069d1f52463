-- pairs(): a char[16] start value, compared in WHERE
SELECT start_value, count(*) FROM pairs('sched_waking', 'pid', 'sched_switch', 'next_pid', 'comm') WHERE start_value != 'swapper/1' GROUP BY start_value;
