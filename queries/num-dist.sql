-- num-dist: distribution of a field: count, min, avg, p50, p99, max, histogram
-- needs: the tracepoint named by table=
-- param: table table NULL "the tracepoint"
-- param: field column NULL "the numeric column"
-- param: unit text value "the histogram's unit label"
-- example: perf-sql num-dist table=sys_enter_write field=count unit=bytes -- ./app
-- Like perf-prof num-dist. Negative values count, but stay out of the histogram.
SELECT count(:field) AS count, min(:field) AS min, round(avg(:field), 1) AS avg,
       round(p50(:field), 1) AS p50, round(p99(:field), 1) AS p99, max(:field) AS max,
       log2_hist(CASE WHEN :field >= 0 THEN :field END, :unit) AS hist
  FROM :table;
