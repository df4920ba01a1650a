-- How full contexts get: the largest whole input of any call per session (peak_context), as quantiles,
-- and how many sessions compacted (a recorded compaction starts a new context).
SELECT
    count(*)                                          AS sessions,
    coalesce(min(peak_context), 0)                    AS min,
    coalesce(quantile_disc(peak_context, 0.5), 0)     AS p50,
    coalesce(quantile_disc(peak_context, 0.9), 0)     AS p90,
    coalesce(quantile_disc(peak_context, 0.99), 0)    AS p99,
    coalesce(max(peak_context), 0)                    AS max,
    count(*) FILTER (WHERE compactions > 0)           AS sessions_compacted,
    coalesce(sum(compactions), 0)                     AS compactions
FROM sessions
