-- Fleet totals: sums of each session's `info --json` counts and tokens.total.
SELECT
    count(*)                          AS sessions,
    coalesce(sum(messages), 0)        AS messages,
    coalesce(sum(model_calls), 0)     AS model_calls,
    coalesce(sum(tokens_total), 0)    AS tokens,
    coalesce(sum(compactions), 0)     AS compactions,
    sum(cost_usd)                     AS cost_usd
FROM sessions
