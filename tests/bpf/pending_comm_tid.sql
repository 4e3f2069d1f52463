-- pending() of a statement that names comm and start_tid: the start program keeps the task's ids and name too
SELECT comm, start_tid, count(*) FROM pending('kmalloc', 'ptr', 'kfree', 'ptr') GROUP BY 1, 2;
