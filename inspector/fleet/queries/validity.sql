-- Validity breaks: sessions whose recorded history a provider would reject as sent. A session whose
-- only break for a provider is its last message's unanswered tool call (the agent was running it, or
-- the run ended on it) is counted apart: no request was sent with it.
SELECT
    count(*) FILTER (WHERE openai_violations > 0 AND NOT openai_ends_on_tool_call)        AS sessions_invalid_openai,
    count(*) FILTER (WHERE anthropic_violations > 0 AND NOT anthropic_ends_on_tool_call)  AS sessions_invalid_anthropic,
    count(*) FILTER (WHERE openai_ends_on_tool_call OR anthropic_ends_on_tool_call)       AS sessions_ending_on_a_tool_call,
    coalesce(sum(orphan_results), 0)                                                      AS orphan_results,
    coalesce(sum(orphan_calls), 0)                                                        AS orphan_calls
FROM sessions
