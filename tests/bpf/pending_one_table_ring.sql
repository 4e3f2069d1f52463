-- pending() of one table that both starts and ends (tasks switched out and not yet back) stays on the ring, saying why
SELECT count(*) FROM pending('sched_switch', 'prev_pid', 'sched_switch', 'next_pid');
