-- a key: a char[16] field on a classic tracepoint, bytes after its NUL zeroed
SELECT comm, count(*) FROM task_newtask GROUP BY comm;
