-- fall-back: a name the rewrite needs (_c)
SELECT fd, count(*) AS _c FROM sys_enter_write GROUP BY fd;
