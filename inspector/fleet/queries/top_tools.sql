-- Which tools' results eat the context: result tokens per tool and their share of all sessions'
-- tokens, with the result size distribution and how often results were cut, failed or leaked.
WITH total AS (SELECT sum(tokens_total) AS tokens FROM sessions)
SELECT
    tool,
    count(*)                                               AS results,
    sum(result_tokens)                                     AS result_tokens,
    round(100.0 * sum(result_tokens) / nullif(any_value(total.tokens), 0), 1) AS share_pct,
    quantile_disc(result_tokens, 0.5)                      AS tokens_p50,
    quantile_disc(result_tokens, 0.9)                      AS tokens_p90,
    max(result_tokens)                                     AS tokens_max,
    count(*) FILTER (WHERE truncated)                      AS truncated,
    count(*) FILTER (WHERE unstructured_error)             AS unstructured_errors,
    sum(secrets)                                           AS secrets
FROM tools, total
GROUP BY tool
ORDER BY result_tokens DESC, tool
LIMIT 15
