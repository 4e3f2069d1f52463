-- kvm-exit: time from a guest exit to the next entry, per exit reason (KVM hosts)
-- needs: tracepoints kvm:kvm_exit, kvm:kvm_entry; a running KVM guest
-- param: than duration 0 "count only exits handled in at least this"
-- example: perf-sql kvm-exit -i 1000
-- Like perf-prof kvm-exit. An exit pairs with the next entry of the same vCPU thread.
-- exit_reason is the architecture's number (VMX: 1 external interrupt, 10 CPUID, 12 HLT,
-- 30 I/O, 31/32 MSR read/write, 48 EPT violation). Times in microseconds.
SELECT start_value AS exit_reason, count(*) AS exits,
       round(sum(latency) / 1e3, 1) AS total_us, round(min(latency) / 1e3, 1) AS min_us,
       round(p50(latency) / 1e3, 1) AS p50_us, round(p99(latency) / 1e3, 1) AS p99_us,
       round(max(latency) / 1e3, 1) AS max_us
  FROM pairs('kvm_exit', '_tid', 'kvm_entry', '_tid', 'exit_reason')
 WHERE latency >= :than
 GROUP BY start_value
 ORDER BY sum(latency) DESC;
