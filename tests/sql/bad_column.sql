-- capture: writes.cap   a column the table does not have
SELECT nosuch FROM sys_enter_write;
