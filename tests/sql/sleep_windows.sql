-- capture: sleeps.cap   args: -i 200   (sleeper 4 300, recorded with -i 200)
-- each 300 ms sleep is reported in the window where it ends, rounded to 100 ms
SELECT count(*), sum(latency / 100000000) FROM pairs('sys_enter_clock_nanosleep', '_tid',
       'sys_exit_clock_nanosleep', '_tid');
