-- fall-back: pairs() of lock:* stays on the ring (their tracepoints fire inside map locks)
SELECT count(*) FROM pairs('contention_begin', '_tid', 'contention_end', '_tid');
