-- a stack key of a system call's event: the user chain only
SELECT count(*), folded_stack(stack) FROM sys_enter_getppid GROUP BY stack;
