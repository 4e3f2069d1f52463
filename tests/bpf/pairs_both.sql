-- pairs(): one table both ends and starts (sched_switch prev_pid -> next_pid)
SELECT count(*), max(latency) FROM pairs('sched_switch', 'prev_pid', 'sched_switch', 'next_pid');
