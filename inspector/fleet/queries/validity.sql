-- Validity breaks: sessions whose recorded history a provider would reject as sent.
SELECT
    count(*) FILTER (WHERE openai_violations > 0)     AS sessions_invalid_openai,
    count(*) FILTER (WHERE anthropic_violations > 0)  AS sessions_invalid_anthropic,
    coalesce(sum(orphan_results), 0)                  AS orphan_results,
    coalesce(sum(orphan_calls), 0)                    AS orphan_calls
FROM sessions
