-- a key: a field of a classic tracepoint program (net_dev_xmit: no raw argument holds it), read at its format offset
SELECT rc, count(*) FROM net_dev_xmit GROUP BY rc;
