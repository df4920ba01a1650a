"""The fleet dataset's tables: their columns and types, declared once.

Every table is written as Parquet shards under ``DATASET/<table>/`` and read back as a DuckDB view
of the same name. A row is keyed by ``session_id`` (a hash of the session's path); no table holds
message text unless the run asked for ``--with-text`` (``tools.text``). Money columns
(``cost_usd``...) are nullable: they stay NULL until a price is known (:mod:`.money`).
"""

from __future__ import annotations

#: table -> {column: DuckDB type}, in column order.
TABLES: dict[str, dict[str, str]] = {
    "sessions": {
        "session_id": "VARCHAR",
        "path": "VARCHAR",
        "format": "VARCHAR",
        "model": "VARCHAR",
        "encoding": "VARCHAR",
        "profile": "VARCHAR",
        "size_bytes": "BIGINT",
        "mtime_ns": "BIGINT",
        "messages": "BIGINT",
        "turns": "BIGINT",
        "model_calls": "BIGINT",
        "tokens_total": "BIGINT",
        "tokens_messages": "BIGINT",
        "tokens_tool_definitions": "BIGINT",
        "tokens_system": "BIGINT",
        "tokens_user": "BIGINT",
        "tokens_assistant": "BIGINT",
        "tokens_tool_exchange": "BIGINT",
        "tokens_summary": "BIGINT",
        "context_next_call": "BIGINT",
        "peak_context": "BIGINT",
        "compactions": "BIGINT",
        "recorded_input_total": "BIGINT",
        "output_total": "BIGINT",
        "orphan_results": "BIGINT",
        "orphan_calls": "BIGINT",
        "truncated_in_source": "BIGINT",
        "openai_violations": "BIGINT",
        "anthropic_violations": "BIGINT",
        "openai_ends_on_tool_call": "BOOLEAN",
        "anthropic_ends_on_tool_call": "BOOLEAN",
        "cost_usd": "DOUBLE",
    },
    "calls": {
        "session_id": "VARCHAR",
        "call": "BIGINT",
        "message_index": "BIGINT",
        "turn": "BIGINT",
        "model": "VARCHAR",
        "baseline_tokens": "BIGINT",
        "recorded_tokens": "BIGINT",
        "input_tokens": "BIGINT",
        "cache_read_input_tokens": "BIGINT",
        "cache_creation_input_tokens": "BIGINT",
        "output_tokens": "BIGINT",
        "cost_usd": "DOUBLE",
    },
    "units": {
        "session_id": "VARCHAR",
        "unit_id": "BIGINT",
        "kind": "VARCHAR",
        "turn": "BIGINT",
        "first_index": "BIGINT",
        "messages": "BIGINT",
        "tokens": "BIGINT",
        "tool_names": "VARCHAR[]",
        "first_call": "BIGINT",
        "calls_in_context": "BIGINT",
    },
    "tools": {
        "session_id": "VARCHAR",
        "tool": "VARCHAR",
        "message_index": "BIGINT",
        "block_index": "BIGINT",
        "call_index": "BIGINT",
        "call_tokens": "BIGINT",
        "result_tokens": "BIGINT",
        "result_chars": "BIGINT",
        "is_error": "BOOLEAN",
        "unstructured_error": "BOOLEAN",
        "truncated": "BOOLEAN",
        "structured": "BOOLEAN",
        "fields": "VARCHAR[]",
        "unused_fields": "VARCHAR[]",
        "secrets": "BIGINT",
        "secret_kinds": "VARCHAR[]",
        "secret_places": "VARCHAR[]",  # "email at line 4, result line 1 column 34: j***@example.com" (redacted)
        "content_hash": "VARCHAR",
        "text": "VARCHAR",
    },
    "strategies": {
        "session_id": "VARCHAR",
        "strategy": "VARCHAR",
        "baseline_total": "BIGINT",
        "total": "BIGINT",
        "saving": "BIGINT",
        "openai_violations": "BIGINT",
        "anthropic_violations": "BIGINT",
        "saving_usd": "DOUBLE",
    },
}

#: The tables a user's ``fleet query`` sees, by name.
TABLE_NAMES = tuple(TABLES)
