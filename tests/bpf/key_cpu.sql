-- a key: _cpu (bpf_get_smp_processor_id), on tp_btf/sched_switch
SELECT _cpu, count(*) FROM sched_switch GROUP BY _cpu;
