-- a key: an integer field, on tp_btf/sys_enter (argument 0 from pt_regs)
SELECT fd, count(*) FROM sys_enter_write GROUP BY fd;
