"""The model's context window, what the agent keeps free of it, and the default token budget.

Windows come from the file where it records one (Codex ``token_count`` events carry
``model_context_window``), else from the table the ``genai-prices`` package ships (its bundled
snapshot; nothing is downloaded; Claude Code sessions are capped at its default 200,000 unless a
call recorded more or the file names the 1M variant of the session's model (``[1m]``: the model
the CLI ran, or resolved for a sub-agent on the session's model), or the window its stream-json
``result`` states; Gemini CLI sessions take the CLI's own token limit), else a
stated default labelled "assumed". The agent's own
reservation comes from its known compaction rule (reference: presets.md):

- Claude Code compacts at window - reserved output - 13,000 buffer (claude-code issue #12004: the
  decompiled ``13000``): 20,000 reserved from 2.1.25 on, 32,000 in 2.1.20 and earlier, as the
  ``claude-code`` preset holds it for the version the transcript records;
- Codex compacts at 9/10 of its catalog window (``auto_compact_token_limit`` in codex-rs), which is
  the window its rollouts record divided by 0.95: the trigger of the ``codex`` preset, the one
  home of that figure (244,800 of a recorded 258,400).

The default budget is what the agent can use before it compacts (the window when the agent is
unknown). Pure functions; the genai-prices table is loaded on first use.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from ..model import MODEL_WINDOWS, RESOLVED_MODELS, Session
from .session_facts import agent_of, agent_version_of, model_of

#: The window assumed when the file names no model (or a model no table knows).
DEFAULT_WINDOW = 200_000


@dataclass(frozen=True, slots=True)
class Window:
    model: str | None
    #: The model's context window, in tokens.
    tokens: int
    #: Where ``tokens`` comes from: "recorded in the file", "genai-prices", the agent's own
    #: ("Claude Code's 200K default", "Gemini CLI's token limit"...), or "assumed: ...".
    source: str
    #: Tokens the agent keeps free before it compacts (output reservation and buffer); 0 unknown.
    reserved: int = 0
    reserved_note: str = ""

    @property
    def budget(self) -> int:
        """What the agent can fill before it compacts: the default token budget."""
        return self.tokens - self.reserved

    @property
    def assumed(self) -> bool:
        return self.source.startswith("assumed")

    def free(self, used: int) -> int:
        return self.tokens - used


@lru_cache(maxsize=256)
def _table_window(model: str) -> int | None:
    """The window genai-prices gives ``model``: None when the model is not in its table, 0 when it
    is but without a window (gemini-2.5-pro)."""
    try:
        from genai_prices.data_snapshot import get_snapshot
    except ImportError:  # pragma: no cover - a core dependency
        return None
    from .prices import library_name

    name, provider = library_name(model)
    try:
        _, info = get_snapshot().find_provider_model(name, None, provider, None)
    except LookupError:
        return None
    return info.context_window or 0


def _reservation(agent: str | None, window: int, version: str | None = None) -> tuple[int, str]:
    if agent == "claude_code":
        output, margin = claude_code_reservation(version)
        return output + margin, f"Claude Code{' ' + version if version else ''} compacts at window - {output:,} reserved output - {margin:,} buffer"
    if agent == "codex":
        limit = codex_limit(codex_reported_window(window))
        return window - limit, f"Codex compacts at 9/10 of {round(limit / 0.9):,}"  # its catalog window
    return 0, ""


def codex_reported_window(window: int) -> int:
    """The window as Codex reports it, from the window a rollout records. Rollouts of 0.58 and later
    record 95 % of the catalog window (``effective_context_window_percent``: 272,000 -> 258,400);
    0.40 records the catalog window itself (272,000). 95 % of a catalog window that is a multiple of
    20 is a multiple of 19, and no catalog window is one, so a recorded window that is not a
    multiple of 19 is a catalog window, and Codex reports 95 % of it."""
    return window if window % 19 == 0 else window * 95 // 100


@lru_cache(maxsize=64)
def claude_code_reservation(version: str | None) -> tuple[int, int]:
    """``(reserved output, buffer)`` of the Claude Code ``version`` (None: the newest known): the
    ``claude-code`` preset's parameters for that version (builtin.toml holds them and their sources)."""
    from ..presets import builtin_preset

    params = builtin_preset("claude-code").for_agent("claude_code", version)
    return int(params["reserved_output"]), int(params["compact_margin"])


@lru_cache(maxsize=64)
def codex_limit(window: int) -> int:
    """Codex's auto-compaction limit for the window its rollout records: the ``codex`` preset's
    trigger at that window (builtin.toml holds the rule and its codex-rs sources)."""
    from ..presets import builtin_preset, settings_for
    from ..strategies.compact import trigger_tokens

    limit = trigger_tokens(settings_for(builtin_preset("codex"), {"context_window": window}))
    assert limit is not None  # the codex preset sets compact_share
    return limit


#: Claude Code runs Claude models with a 200,000-token window unless the user picks a 1M variant,
#: which its transcripts do not record: the automatic compactions of six public 2.1.x transcripts
#: fired at 155,000-170,500 tokens (window - reserved output - 13,000 buffer on 200,000) though
#: genai-prices lists 1,000,000 for some of their models (claude-opus-4-6).
CLAUDE_CODE_WINDOW = 200_000
#: The 1M variant's window (``[1m]``; Claude Code's default for Opus on some plans from 2.1.x): a
#: transcript's calls record the bare model id, so it shows the variant by a call that read more
#: than 200,000 tokens, which 200K cannot hold, or where it names the model with its ``[1m]`` suffix
#: (:func:`claude_code_1m`).
CLAUDE_CODE_1M_WINDOW = 1_000_000
#: Gemini CLI's own window (``tokenLimit`` in packages/core/src/core/tokenLimits.ts: 1,048,576 for
#: every model it runs, 2,097,152 for gemini-1.5-pro), which its compression threshold is a share
#: of; genai-prices gives none for gemini-2.5-pro or gemini-3-pro-preview, and 1,000,000 for others.
GEMINI_CLI_WINDOW = 1_048_576
GEMINI_CLI_WINDOWS = {"gemini-1.5-pro": 2_097_152}


def window_for(model: str | None, agent: str | None = None, recorded: int | None = None, version: str | None = None,
               peak: int = 0, variant: str | None = None) -> Window:
    """The window of ``model`` (``recorded``: the window the file states, which wins), with
    what ``agent`` (at ``version``, where the file records it) reserves of it. ``peak``: the most
    tokens one recorded call read (:func:`recorded_peak`), which a window cannot be below: a
    Claude Code call above 200,000 shows the 1M variant. ``variant``: where the file names the
    1M variant of ``model`` (:func:`claude_code_1m`), which is then its window."""
    if recorded:
        tokens, source = recorded, "recorded in the file"
    elif agent == "claude_code" and model is not None and "claude" in model.lower():
        found = _table_window(model)
        if peak > CLAUDE_CODE_WINDOW:
            tokens = max(found or 0, CLAUDE_CODE_1M_WINDOW)
            source = f"Claude Code's 1M window: a call read {peak:,}"
        elif variant:
            tokens = max(found or 0, CLAUDE_CODE_1M_WINDOW)
            source = f"Claude Code's 1M window: {variant}"
        else:
            tokens = min(found or CLAUDE_CODE_WINDOW, CLAUDE_CODE_WINDOW)
            source = "Claude Code's 200K default"
    elif agent == "gemini-cli":
        tokens = GEMINI_CLI_WINDOWS.get((model or "").lower().rsplit("/", 1)[-1], GEMINI_CLI_WINDOW)
        source = "Gemini CLI's token limit"
    elif model is None:
        tokens, source = DEFAULT_WINDOW, "assumed: the file names no model"
    else:
        found = _table_window(model)
        if found:
            tokens, source = found, "genai-prices"
        else:
            why = f"genai-prices' table gives {model} no window" if found == 0 else f"{model} is not in genai-prices' table"
            tokens, source = DEFAULT_WINDOW, f"assumed: {why}"
    reserved, note = _reservation(agent, tokens, version)
    return Window(model, tokens, source, reserved, note)


def recorded_window(session: Session, model: str | None = None) -> int | None:
    """The window the file states for its latest call that states one (Codex), else the one the
    agent recorded for ``model`` (Claude Code's stream-json ``result``: :data:`MODEL_WINDOWS`, keyed
    by the model id it ran, ``claude-opus-4-7[1m]`` where the calls record ``claude-opus-4-7``)."""
    for message in reversed(session.messages):
        value = message.extra.get("model_context_window")
        if isinstance(value, int) and value > 0:
            return value
    windows = session.extra.get(MODEL_WINDOWS)
    if model and isinstance(windows, dict):
        value = windows.get(model) or windows.get(model + ONE_M_SUFFIX)
        if type(value) is int and value > 0:
            return value
    return None


#: The suffix Claude Code gives the model id of a 1M-window variant (``claude-opus-4-6[1m]``).
ONE_M_SUFFIX = "[1m]"


def claude_code_1m(session: Session, model: str | None) -> str | None:
    """Where a Claude Code file names the 1M variant of ``model`` (its calls record the bare id),
    in words; None where it does not. The model the CLI ran, as its stream-json ``init`` record
    states it (``extra["model"]``), or the model it resolved for a sub-agent that took the
    session's own (:data:`RESOLVED_MODELS`): ``claude-opus-4-8[1m]`` names the 1M variant of
    ``claude-opus-4-8``. A sub-agent on another model says nothing of the session's window."""
    if not model:
        return None
    one_m = (model + ONE_M_SUFFIX).lower()
    init = session.extra.get("model")
    if isinstance(init, str) and init.lower() == one_m:
        return f"the CLI ran {init} (init record)"
    resolved = session.extra.get(RESOLVED_MODELS)
    if isinstance(resolved, list) and any(isinstance(m, str) and m.lower() == one_m for m in resolved):
        return f"a sub-agent on the session's model ran {model + ONE_M_SUFFIX}"
    return None


def recorded_peak(session: Session) -> int:
    """The most tokens one call of the session recorded reading (input, cached and written); 0
    when it records none."""
    return max((m.usage.context_tokens or 0 for m in session.messages if m.usage is not None), default=0)


def session_window(session: Session, model: str | None = None) -> Window:
    """The window of the session's model (``model`` overrides the one the file names, and then
    neither the window the file records nor its largest call says anything of that model's)."""
    agent = agent_of(session)
    named = model or model_of(session)
    own = agent == "claude_code" and not model  # the file's facts are of its own model only
    return window_for(named, agent, None if model else recorded_window(session, named), agent_version_of(session),
                      recorded_peak(session) if own else 0, claude_code_1m(session, named) if own else None)


def default_budget(session: Session, model: str | None = None) -> int:
    """The token budget a view starts with: what the agent can fill before it compacts
    (``model`` overrides the model the file names, as ``--model`` does)."""
    return session_window(session, model).budget


def with_session_window(settings, session: Session, explicit: set[str], model: str | None = None, preset=None):
    """``settings`` with ``context_window`` (the compacting strategies' window, whose shares are
    their triggers) set to the window of the session's model, unless the user set it
    (``explicit``) or the file names no model whose window is known; with ``preset`` (a
    :class:`~inspector.presets.Preset` or its name), also the parameters the preset gives the
    agent version the session records (:meth:`inspector.presets.Preset.for_agent`), where the
    user did not set them; and the default budget (:func:`with_default_budget`). Every command,
    the Python API and the viewer build their settings here."""
    if preset is not None:
        settings = for_session_version(settings, session, explicit, preset)
    settings = with_default_budget(settings, session, explicit, model)
    tokens = strategy_window(session, model)
    if "context_window" in explicit or "context_window" not in type(settings).model_fields or tokens is None:
        return settings
    return settings.model_copy(update={"context_window": tokens})


def with_default_budget(settings, session: Session, explicit: set[str] = frozenset(), model: str | None = None):
    """``settings`` with ``budget`` set to what the agent can fill before it compacts
    (:func:`default_budget`; ``model`` overrides the model the file names), unless the user set
    the budget (``explicit``) or the settings carry one already (a preset's)."""
    if "budget" in explicit or "budget" not in type(settings).model_fields or settings.budget is not None:
        return settings
    return settings.model_copy(update={"budget": session_window(session, model).budget})


def budget_note(session: Session, budget: int | None, model: str | None = None, given_by: str = "as set") -> str:
    """Which budget a plan used and why, in words: the default one says where it comes from
    ("budget 167,000 = the 200,000-token window of claude-opus-4 (Claude Code's 200K default)
    minus 33,000 the agent keeps free: Claude Code compacts at ..."); another one is ``given_by``
    ("as set", or "the preset's" where a preset chose it)."""
    if budget is None:
        return "no budget"
    window = session_window(session, model)
    if budget != window.budget:
        return f"budget {budget:,}, {given_by}"
    model = window.model or "the session's model"
    text = f"budget {budget:,} = the {window.tokens:,}-token window of {model} ({window.source})"
    if window.reserved:
        text += f" minus {window.reserved:,} the agent keeps free: {window.reserved_note}"
    return text


def budget_unused_note(settings, pipeline, tokens: int, who: str | None = None, stages=()) -> str:
    """Why a plan over its budget may change nothing, in words, when no strategy of ``pipeline``
    takes the budget: "" when one does or the pipeline is empty. A compaction with a trigger of
    its own (the claude-code and codex presets) fires there, not at the budget: "the preset
    claude-code compacts at its own trigger (167,000 tokens), not at the budget; this call
    (53,301 tokens) does not reach it". ``who`` names the pipeline (a preset); ``tokens`` is the
    input the plan starts from; ``stages`` (the plan's :class:`StageTotal` list) give the input
    the compaction reads after the stages before it (mask_tool_outputs first: 53,301 -> 41,552),
    which is what reaches its trigger or not. The one home of this wording (CLI, viewer)."""
    from ..strategies.compact import trigger_tokens
    from ..strategies.pipeline import STRATEGIES

    pipeline = tuple(pipeline)
    if not pipeline:
        return ""
    limit = trigger_tokens(settings) if "compact" in pipeline else None
    messages = settings.compact_messages if "compact" in pipeline else None
    own_trigger = limit is not None or messages is not None
    if any("budget" in STRATEGIES[name].params and not (name == "compact" and own_trigger) for name in pipeline):
        return ""
    who = who or (pipeline[0] if len(pipeline) == 1 else "this pipeline")
    if not own_trigger:
        return f"no strategy of {who} reads the budget"
    if limit is not None:
        seen = next((s.tokens_before for s in stages if s.strategy == "compact"), tokens)
        reach = "reaches it" if seen >= limit else "does not reach it"
        call = f"{tokens:,} tokens" if seen == tokens else f"{tokens:,} tokens, {seen:,} as compact reads it"
        return f"{who} compacts at its own trigger ({limit:,} tokens), not at the budget; this call ({call}) {reach}"
    return f"{who} compacts at its own trigger (more than {messages:,} messages), not at the budget"


def strategy_window(session: Session, model: str | None = None, window: Window | None = None) -> int | None:
    """The ``context_window`` the compacting strategies take for ``session`` (the window of its
    model, as its agent reports it); None when the window would only be assumed. ``window``: the
    session's :func:`session_window`, where the caller has it already."""
    window = window or session_window(session, model)
    if window.source.startswith("assumed"):
        return None
    return codex_reported_window(window.tokens) if agent_of(session) == "codex" else window.tokens


def for_session_version(settings, session: Session, explicit: set[str], preset):
    """``settings`` of ``preset`` (a :class:`~inspector.presets.Preset` or its name) with the
    parameters it gives the agent version that recorded ``session``, where they differ and the
    user did not set them."""
    from ..presets import PresetError, get_preset

    try:
        source = get_preset(preset) if isinstance(preset, str) else preset
    except PresetError:
        return settings
    fitted = source.for_agent(agent_of(session), agent_version_of(session))
    update = {k: v for k, v in fitted.items() if k not in explicit and k in type(settings).model_fields and getattr(settings, k) != v}
    return settings.model_copy(update=update) if update else settings


__all__ = ["DEFAULT_WINDOW", "ONE_M_SUFFIX", "budget_note", "claude_code_1m", "budget_unused_note", "claude_code_reservation", "for_session_version", "Window", "codex_limit", "codex_reported_window", "default_budget", "recorded_peak", "recorded_window", "session_window", "strategy_window", "window_for",
           "with_default_budget", "with_session_window"]
