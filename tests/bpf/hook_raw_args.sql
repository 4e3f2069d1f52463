-- keys that are a raw tracepoint's arguments (irq_handler_exit: int irq, int ret): tp_btf, each
-- argument cut to its field's 4 bytes and sign-extended as the record's int
SELECT irq, ret, count(*) FROM irq_handler_exit GROUP BY irq, ret;
