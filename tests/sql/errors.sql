-- capture: writes.cap   a table the capture does not hold
SELECT count(*) FROM sched_wakeup;
