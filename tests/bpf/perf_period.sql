-- a software event's _period, summed
SELECT comm, sum(_period) FROM task_clock GROUP BY comm;
