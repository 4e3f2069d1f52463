-- fall-back: count(*) alone is counting mode, no program
SELECT count(*) FROM sys_enter_write;
