-- --max-groups: the map's size
-- args: --max-groups 100
SELECT fd, count(*) FROM sys_enter_write GROUP BY fd;
