-- -i: two maps swapped per window through the array of maps
-- args: -i 1000
SELECT comm, count(*) FROM sys_enter_write GROUP BY comm;
