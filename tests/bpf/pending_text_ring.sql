-- pending()'s START_COL must be an integer in the kernel: a text one keeps both tables on the ring, saying why
SELECT count(*) FROM pending('sched_wakeup', 'pid', 'sched_switch', 'next_pid', 'comm');
