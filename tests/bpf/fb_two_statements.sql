-- fall-back: a table read by two statements, one of them reading rows (two GROUP BYs each get a program: several_statements)
SELECT comm, count(*) FROM sys_enter_write GROUP BY comm;
SELECT fd FROM sys_enter_write;
