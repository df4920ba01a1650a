"""Tool-result diet: what each tool result costs the context and what the model did with it.

For every tool result of one analysed session: its size (tokens, characters), whether the tool
reported an error and whether that error is unstructured text, whether the agent already cut or
cleared it, the JSON fields it carried and which of them the model never used afterwards, and
strings that look like secrets (with their exact place, shown redacted).

**Field use heuristic** (simple on purpose, and stated in every report): a result is *structured*
when its text is one JSON object or array, or JSON Lines of objects. Its fields are the object
keys (nested keys as ``a.b``, keys of objects inside lists as ``items[].name``, at most
:data:`MAX_DEPTH` levels). A field counts as *used* when, in any later assistant message (its text
or its tool-call arguments), either the field's own name appears as a word, or one of the values it
held appears (a value is a string of 4 to 80 characters or a number of 3 or more digits; one-word
values must match a whole word, longer ones a substring). Otherwise the field is *unused*: the
model was never seen to read it. It is a lower bound on use (the model may act on a field without
quoting it), so *unused* fields are candidates to trim, not proof.

Nothing here prints; the per-tool summary (:func:`tool_summary`) is the figure views show.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from statistics import median
from typing import TYPE_CHECKING, Any

import orjson

from ..model import ToolCallBlock, ToolResultBlock
from ..units import has_truncation_marker

if TYPE_CHECKING:  # pragma: no cover
    from .. import Analysis

MAX_DEPTH = 3
MAX_FIELDS = 200  # per result: a huge record list adds nothing past this
VALUE_MIN, VALUE_MAX = 4, 80

HEURISTIC = (
    "a JSON field is 'used' when a later assistant message (text or tool-call arguments) contains the "
    "field's name as a word or one of its values (strings of 4-80 characters, numbers of 3+ digits); "
    "unused fields are candidates to trim, not proof the model ignored them"
)

_WORD = re.compile(r"[\w.\-/@:]+")
_ERROR_START = re.compile(r"^\s*(error|exception|traceback|fatal|failed|panic)\b", re.IGNORECASE)

#: (kind, hints, pattern): strings that look like credentials or personal data. A pattern runs only
#: when one of its hints (lower case) is in the lower-cased text: most results contain none.
SECRET_PATTERNS: tuple[tuple[str, tuple[str, ...], re.Pattern[str]], ...] = (
    ("private_key", ("private key",), re.compile(r"-----BEGIN [A-Z ]*PRIVATE KEY-----")),
    ("openai_key", ("sk-",), re.compile(r"\bsk-(?:proj-|ant-)?[A-Za-z0-9_\-]{20,}")),
    ("aws_access_key", ("akia", "asia"), re.compile(r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b")),
    ("github_token", ("gh", "github_pat_"), re.compile(r"\b(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{22,})")),
    ("slack_token", ("xox",), re.compile(r"\bxox[baprs]-[A-Za-z0-9\-]{10,}")),
    ("google_api_key", ("aiza",), re.compile(r"\bAIza[0-9A-Za-z_\-]{35}")),
    ("jwt", ("eyj",), re.compile(r"\beyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}")),
    ("bearer_token", ("bearer",), re.compile(r"\bBearer\s+[A-Za-z0-9._~+/\-]{20,}=*")),
    (
        "assigned_secret",
        ("key", "secret", "passw", "token"),
        re.compile(r"""(?i)\b(?:api[_-]?key|secret|passw(?:or)?d|access[_-]?token|auth[_-]?token)["']?\s*[:=]\s*["']?([A-Za-z0-9_\-./+]{12,})"""),
    ),
    ("email", ("@",), re.compile(r"(?<![A-Za-z0-9._%+\-])[A-Za-z0-9._%+\-]+@[A-Za-z0-9.\-]+\.[A-Za-z]{2,}\b")),
)


@dataclass(frozen=True, slots=True)
class SecretHit:
    """A string that looks like a secret: where it is and a redacted form (never the value)."""

    kind: str
    message_index: int
    block_index: int
    line: int  # 1-based line within the result text
    column: int  # 1-based character column within that line
    source: str  # where the message is in the file (SourceRef), e.g. "line 12"
    redacted: str


@dataclass(frozen=True, slots=True)
class ResultFacts:
    """One tool result, measured."""

    tool: str
    message_index: int
    block_index: int
    call_index: int | None  # the assistant message that made the call
    call_tokens: int
    tokens: int
    chars: int
    is_error: bool
    unstructured_error: bool
    truncated: bool
    structured: bool
    fields: tuple[str, ...]
    unused_fields: tuple[str, ...]
    secrets: tuple[SecretHit, ...]
    content_hash: str
    text: str = field(repr=False, default="")


def redact(kind: str, value: str) -> str:
    """A recognisable but harmless form: the first 4 characters and the length (emails: first
    letter and domain)."""
    if kind == "email" and "@" in value:
        local, domain = value.split("@", 1)
        return f"{local[:1]}***@{domain}"
    return f"{value[:4]}…[{len(value)} chars]"


def find_secrets(text: str, message_index: int, block_index: int, source: str) -> list[SecretHit]:
    hits: list[SecretHit] = []
    taken: list[tuple[int, int]] = []
    lower = text.lower()
    for kind, hints, pattern in SECRET_PATTERNS:
        if not any(h in lower for h in hints):
            continue
        for m in pattern.finditer(text):
            start, end = m.span(1) if m.re.groups else m.span()
            if any(s < end and start < e for s, e in taken):
                continue  # already flagged by a more specific pattern
            taken.append((start, end))
            line = text.count("\n", 0, start) + 1
            column = start - (text.rfind("\n", 0, start) + 1) + 1
            hits.append(SecretHit(kind, message_index, block_index, line, column, source, redact(kind, text[start:end])))
    hits.sort(key=lambda h: (h.line, h.column))
    return hits


def _json_documents(text: str) -> list[Any] | None:
    """The JSON the result holds (one document, or one per JSON Lines line), None if it is text."""
    stripped = text.strip()
    if not stripped or stripped[0] not in "[{":
        return None
    try:
        return [orjson.loads(stripped)]
    except orjson.JSONDecodeError:
        pass
    docs = []
    for line in stripped.splitlines():
        line = line.strip()
        if not line:
            continue
        if line[0] != "{":
            return None
        try:
            docs.append(orjson.loads(line))
        except orjson.JSONDecodeError:
            return None
    return docs or None


def _walk(value: Any, prefix: str, depth: int, out: dict[str, set[str]]) -> None:
    if depth > MAX_DEPTH or len(out) >= MAX_FIELDS:
        return
    if isinstance(value, dict):
        for key, item in value.items():
            path = f"{prefix}.{key}" if prefix else str(key)
            values = out.setdefault(path, set())
            if isinstance(item, (dict, list)):
                _walk(item, path, depth + 1, out)
            else:
                text = _value_text(item)
                if text is not None and len(values) < 50:
                    values.add(text)
    elif isinstance(value, list):
        for item in value[:100]:
            _walk(item, f"{prefix}[]" if prefix else "[]", depth, out)


def _value_text(item: Any) -> str | None:
    if isinstance(item, bool) or item is None:
        return None
    if isinstance(item, int):
        return str(item) if abs(item) >= 100 else None
    if isinstance(item, float):
        text = str(item)
        return text if sum(map(str.isdigit, text)) >= 3 else None
    text = str(item).strip()
    return text if VALUE_MIN <= len(text) <= VALUE_MAX else None


def json_fields(text: str) -> dict[str, set[str]] | None:
    """Field path -> the value strings it held; None when the result is not JSON."""
    docs = _json_documents(text)
    if docs is None:
        return None
    out: dict[str, set[str]] = {}
    for doc in docs:
        _walk(doc, "", 0, out)
    return {path: values for path, values in out.items() if not path.startswith("[]") or "." in path}


def _words(text: str) -> set[str]:
    return {w.strip(".:-/") for w in _WORD.findall(text)}


def _field_name(path: str) -> str:
    return path.rsplit(".", 1)[-1].removesuffix("[]")


class _Later:
    """What the assistant wrote after a point: the words (a set) and the text (for phrases).

    Walking backwards only ever adds text, so a phrase once found stays found, and a phrase not
    found is searched again only in the text added since (plus its own length of overlap)."""

    def __init__(self) -> None:
        self.words: set[str] = set()
        self.parts: list[str] = []
        self._joined: str | None = ""
        self._found: set[str] = set()
        self._searched: dict[str, int] = {}  # phrase -> length of the text it was not found in

    def add(self, text: str) -> None:
        self.words |= _words(text)
        self.parts.append(text)
        self._joined = None

    @property
    def text(self) -> str:
        if self._joined is None:
            self._joined = "\n".join(self.parts)
        return self._joined

    def _has_phrase(self, value: str) -> bool:
        if value in self._found:
            return True
        text = self.text
        # A word between two spaces of the phrase is a whole word of any text holding the phrase.
        middle = value.split(" ")[1:-1]
        if any(_WORD.fullmatch(w) and w.strip(".:-/") not in self.words for w in middle):
            self._searched[value] = len(text)
            return False
        if text.find(value, max(0, self._searched.get(value, 0) - len(value) + 1)) >= 0:
            self._found.add(value)
            return True
        self._searched[value] = len(text)
        return False

    def uses(self, path: str, values: set[str]) -> bool:
        name = _field_name(path)
        if len(name) >= 3 and name in self.words:
            return True
        for value in values:
            if value in self.words:
                return True
            if " " in value and self._has_phrase(value):
                return True
        return False


def _assistant_text(message) -> str:
    parts = []
    for block in message.content:
        if isinstance(block, ToolCallBlock):
            parts.append(block.arguments)
        elif getattr(block, "text", None) and block.type == "text":
            parts.append(block.text)
    return "\n".join(parts)


def content_hash(text: str) -> str:
    return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=8).hexdigest()


def unstructured_error(text: str, is_error: bool, structured: bool) -> bool:
    """An error the tool reported as free text (no JSON with a code/message the agent could act on)."""
    looks_failed = is_error or bool(_ERROR_START.match(text))
    return looks_failed and not structured


def session_results(analysis: Analysis, *, keep_text: bool = False) -> list[ResultFacts]:
    """Every tool result of the session, measured, in message order."""
    table = analysis.table
    messages = analysis.session.messages
    call_at: dict[str, tuple[str, int, int]] = {}  # call id -> (tool, message index, call tokens)
    for i, message in enumerate(messages):
        for k, block in enumerate(message.content):
            if isinstance(block, ToolCallBlock):
                call_at[block.id] = (block.name, i, table.counts[i].blocks[k])

    later = _Later()
    facts: list[ResultFacts] = []
    # Walk backwards so `later` holds exactly the assistant messages after each result.
    for i in range(len(messages) - 1, -1, -1):
        message = messages[i]
        if message.role == "assistant":
            later.add(_assistant_text(message))
            continue
        for k in range(len(message.content) - 1, -1, -1):
            block = message.content[k]
            if not isinstance(block, ToolResultBlock):
                continue
            text = block.text
            tool, call_index, call_tokens = call_at.get(block.tool_call_id, (block.name or "?", None, 0))
            fields = json_fields(text)
            structured = fields is not None
            names = tuple(sorted(fields)) if fields else ()
            unused = tuple(p for p in names if not later.uses(p, fields[p])) if fields else ()
            source = str(message.source) if getattr(message, "source", None) else f"message {i}"
            facts.append(
                ResultFacts(
                    tool=tool,
                    message_index=i,
                    block_index=k,
                    call_index=call_index,
                    call_tokens=call_tokens,
                    tokens=table.counts[i].blocks[k],
                    chars=len(text),
                    is_error=block.is_error,
                    unstructured_error=unstructured_error(text, block.is_error, structured),
                    truncated=has_truncation_marker(text),
                    structured=structured,
                    fields=names,
                    unused_fields=unused,
                    secrets=tuple(find_secrets(text, i, k, source)),
                    content_hash=content_hash(text),
                    text=text if keep_text else "",
                )
            )
    facts.reverse()
    return facts


def _quantile(values: Sequence[int], q: float) -> int:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else 0


def tool_summary(results: Sequence[ResultFacts], context_tokens: int) -> list[dict[str, Any]]:
    """Per tool: results, size distribution (tokens p50/p90/max), share of the context's tokens,
    truncated/error counts, fields seen and never used, secrets, the message holding its largest
    result (the first such); largest tools first."""
    by_tool: dict[str, list[ResultFacts]] = {}
    for r in results:
        by_tool.setdefault(r.tool, []).append(r)
    rows = []
    for tool, items in by_tool.items():
        sizes = [r.tokens for r in items]
        fields: dict[str, bool] = {}
        for r in items:
            for f in r.fields:
                fields[f] = fields.get(f, False) or f not in r.unused_fields
        tokens = sum(sizes)
        rows.append(
            {
                "tool": tool,
                "results": len(items),
                "result_tokens": tokens,
                "share_pct": round(100.0 * tokens / context_tokens, 1) if context_tokens else 0.0,
                "tokens_p50": int(median(sizes)),
                "tokens_p90": _quantile(sizes, 0.9),
                "tokens_max": max(sizes),
                "chars": sum(r.chars for r in items),
                "truncated": sum(r.truncated for r in items),
                "errors": sum(r.is_error for r in items),
                "unstructured_errors": sum(r.unstructured_error for r in items),
                "structured": sum(r.structured for r in items),
                "fields": sorted(fields),
                "unused_fields": sorted(f for f, used in fields.items() if not used),
                "secrets": sum(len(r.secrets) for r in items),
                "largest_message_index": max(items, key=lambda r: r.tokens).message_index,
            }
        )
    rows.sort(key=lambda r: (-r["result_tokens"], r["tool"]))
    return rows


def secret_rows(results: Sequence[ResultFacts]) -> Iterator[dict[str, Any]]:
    for r in results:
        for s in r.secrets:
            yield {"tool": r.tool, "kind": s.kind, "message_index": s.message_index, "block_index": s.block_index,
                   "line": s.line, "column": s.column, "source": s.source, "redacted": s.redacted}


def tools_report(analysis: Analysis) -> dict[str, Any]:
    """The tool diet of one session, as ``tools --json`` prints it and the viewer's Tools screen
    shows it: per tool figures (:func:`tool_summary`, share of the ``info`` context total),
    unstructured errors and secrets by place."""
    from ..analysis.info import info_report, session_report

    results = session_results(analysis)
    context = info_report(analysis, largest=0)["tokens"]["total"]
    return {
        "session": session_report(analysis),
        "encoding": analysis.table.encoding,
        "profile": analysis.table.profile,
        "context_tokens": context,
        "heuristic": HEURISTIC,
        "tools": tool_summary(results, context),
        "unstructured_errors": [
            {"tool": r.tool, "message_index": r.message_index, "block_index": r.block_index,
             "source": str(analysis.session.messages[r.message_index].source), "tokens": r.tokens}
            for r in results if r.unstructured_error
        ],
        "secrets": list(secret_rows(results)),
    }


__all__ = ["HEURISTIC", "ResultFacts", "SecretHit", "find_secrets", "json_fields", "redact", "secret_rows",
           "session_results", "tool_summary", "tools_report"]
