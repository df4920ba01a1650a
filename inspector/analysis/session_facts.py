"""Which agent, agent version and model a session and each of its calls used.

The readers fill ``Session.agent``, ``Session.agent_version``, ``Session.model`` and
``Usage.model``; until every reader does, these functions fall back to where the readers already
keep those facts (``Session.extra["version"]`` / ``["model"]``, a Claude Code assistant
message's ``extra["model"]``) and to the format name for the two agents whose format is the
agent (Claude Code, Codex). Pure functions, no I/O.
"""

from __future__ import annotations

from ..model import Message, Session

#: Formats written by exactly one agent: the format name is the agent.
_AGENT_FORMATS = frozenset({"claude_code", "codex"})


def agent_of(session: Session) -> str | None:
    """The agent that wrote the file (``claude_code``, ``codex``), where known."""
    if session.agent:
        return session.agent
    return session.format if session.format in _AGENT_FORMATS else None


def agent_version_of(session: Session) -> str | None:
    if session.agent_version:
        return session.agent_version
    version = session.extra.get("version")
    return version if isinstance(version, str) and agent_of(session) else None


def call_model(message: Message) -> str | None:
    """The model that produced this assistant message, where the file says."""
    if message.usage is not None and message.usage.model:
        return message.usage.model
    model = message.extra.get("model")
    return model if isinstance(model, str) and model and not model.startswith("<") else None


def continues_context(message: Message) -> bool:
    """Whether this message, which starts a context, re-sends the context before it with some
    content cleared rather than replacing it (Claude Code's microcompact, marked by its reader
    ``extra["continues_context"]``): the agent's hidden prefix and the turn's reasoning carry
    over to the calls after it, as they do not after a summary."""
    return message.extra.get("continues_context") is True


def reader_copies(session: Session) -> frozenset[int]:
    """Indices of the messages a reader added as copies of earlier ones for a context event the
    file records but does not write out (Claude Code's microcompact: ``extra["microcompact_copy"]``).
    The calls after the event are sent them; session-wide figures count the file's own once."""
    return frozenset(i for i, m in enumerate(session.messages) if m.extra.get("microcompact_copy") is True)


def session_model(session: Session) -> str | None:
    """The model the file records for the whole session: ``Session.model``, else where readers
    keep it (``extra["model"]``, the inspector's own JSONL header ``extra["meta"]["model"]``)."""
    if session.model:
        return session.model
    meta = session.extra.get("meta")
    for model in (session.extra.get("model"), meta.get("model") if isinstance(meta, dict) else None):
        if isinstance(model, str) and model:
            return model
    return None


def model_of(session: Session) -> str | None:
    """The model of the session's latest call that names one, else the session's own."""
    for message in reversed(session.messages):
        if message.role == "assistant":
            model = call_model(message)
            if model:
                return model
    return session_model(session)


__all__ = ["agent_of", "agent_version_of", "call_model", "model_of", "session_model"]
