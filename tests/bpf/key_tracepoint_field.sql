-- a key: a field of a classic tracepoint program (irq), read at its format offset
SELECT irq, count(*) FROM irq_handler_entry GROUP BY irq;
