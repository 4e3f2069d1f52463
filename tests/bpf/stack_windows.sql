-- GROUP BY stack with windows (-i): two stack maps, the control map names this window's, an id of the second tagged (bit 30)
-- args: -i 1000
select stack, count(*) as samples from cpu_clock(99) group by stack
