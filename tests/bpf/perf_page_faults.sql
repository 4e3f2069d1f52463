-- a software event's addr and ip, every event sampled
SELECT addr / 4096, count(*) FROM page_faults GROUP BY 1;
