-- an aggregate: log2_hist, floor(log2) by halving steps, negatives flagged
SELECT log2_hist(count, 'bytes') FROM sys_enter_write;
