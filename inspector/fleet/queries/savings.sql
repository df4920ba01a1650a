-- What each strategy would have saved over every model call of every session (replayed input
-- tokens), and in how many sessions its last request would break a provider's rules.
SELECT
    strategy,
    count(*)                                           AS sessions,
    sum(baseline_total)                                AS baseline_tokens,
    sum(total)                                         AS tokens,
    sum(saving)                                        AS saving,
    round(100.0 * sum(saving) / nullif(sum(baseline_total), 0), 1) AS saving_pct,
    sum(saving_usd)                                    AS saving_usd,
    count(*) FILTER (WHERE openai_violations > 0)      AS breaks_openai,
    count(*) FILTER (WHERE anthropic_violations > 0)   AS breaks_anthropic
FROM strategies
GROUP BY strategy
ORDER BY saving DESC, strategy
