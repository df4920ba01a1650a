"""Open a side conversation of a session as a session of its own.

Readers keep conversations that are not the main one in ``Session.sidechains`` (Claude Code
sub-agents, Strands' other agents, a capture's side requests, the other instances of an OpenHands
evaluation file), keyed by an id. :func:`sidechain_ids` lists them with their message counts;
:func:`open_sidechain` returns one as a :class:`~inspector.model.Session` with the parent's
format, agent and provider, so every later stage (context, plan, replay, validation) treats it
like any session: its messages are re-indexed from 0 and keep their ``source``, so they still
point into the file they came from.
"""

from __future__ import annotations

from ..model import Session


class UnknownSidechain(ValueError):
    """A sidechain id the session does not have; ``str()`` names the ids it has."""


def sidechain_ids(session: Session) -> list[tuple[str, int]]:
    """``(id, message count)`` of every sidechain of ``session``, in the order the file has them."""
    return [(key, len(messages)) for key, messages in session.sidechains.items()]


def open_sidechain(session: Session, key: str) -> Session:
    """Sidechain ``key`` of ``session`` as its own session (``extra["sidechain"]`` = ``key``,
    ``extra["sidechain_of"]`` = the parent's session id where the file records one)."""
    if key not in session.sidechains:
        have = ", ".join(f"{k} ({n} messages)" for k, n in sidechain_ids(session))
        where = session.path or "the session"
        raise UnknownSidechain(
            f"{where} has no sidechain {key!r}; "
            + (f"it has: {have}." if have else "it has none (its file records no side conversations).")
        )
    messages = [m.model_copy(update={"index": k}) for k, m in enumerate(session.sidechains[key])]
    extra = {"sidechain": key}
    if "session_id" in session.extra:
        extra["sidechain_of"] = session.extra["session_id"]
    models = [m.usage.model for m in messages if m.usage is not None and m.usage.model]
    return Session(
        path=session.path,
        format=session.format,
        messages=messages,
        tools=session.tools,
        extra=extra,
        skipped=[],
        agent=session.agent,
        agent_version=session.agent_version,
        model=max(dict.fromkeys(models), key=models.count) if models else session.model,
        provider=session.provider,
    )


__all__ = ["UnknownSidechain", "open_sidechain", "sidechain_ids"]
