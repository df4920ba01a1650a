"""What the user has set up, as one immutable value: the strategies in panel order, which are on,
every parameter, the token counter and profile; plus presets and the rules for editing a
parameter (typed or stepped). No Textual here: the panel and the key bindings call these
methods and get a new :class:`PipelineState` back, which is what the planning worker reads.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Any

from typing import Literal

from pydantic import ValidationError

from ..strategies import STRATEGIES, Param
from ..strategies.pipeline import panel_strategies
from ..strategies import params as declared
from ..tokens import ENCODINGS, PROFILES

#: The two counting choices the panel edits beside the strategies' own params.
COUNTING_PARAMS: dict[str, Param] = {
    "encoding": Param("encoding", Literal[ENCODINGS], "cl100k_base", "token counter", label="token counter"),
    "profile": Param("profile", Literal[tuple(PROFILES)], "openai", "message framing to count"),
}


def global_params() -> tuple[str, ...]:
    """Parameters shown above the strategies: they apply to the whole pipeline."""
    return tuple(n for n, p in declared.PARAMS.items() if p.pipeline_wide) + tuple(COUNTING_PARAMS)


def spec_for(name: str) -> Param:
    """How parameter ``name`` is shown and edited (its declaration)."""
    return COUNTING_PARAMS.get(name) or declared.PARAMS[name]


def strategy_params(name: str) -> tuple[str, ...]:
    """The parameters listed under a strategy in the panel (global ones are shown once, above)."""
    strategy = STRATEGIES.get(name)
    if strategy is None:
        return ()
    shown_above = global_params()
    return tuple(p for p in strategy.params if p not in shown_above)


@dataclass(frozen=True)
class Preset:
    name: str
    pipeline: tuple[str, ...]
    settings: tuple[tuple[str, Any], ...] = ()
    note: str = ""


PRESETS: tuple[Preset, ...] = (
    Preset("baseline: no pruning", ()),
    Preset("seed proposal: tool_pruning", ("tool_pruning",), note="keep each earlier turn's prompt and final answer"),
    Preset("tool_pruning + sliding_window 5", ("tool_pruning", "sliding_window"), (("window_mode", "turns"), ("window_turns", 5))),
    Preset("truncate_results + fifo", ("truncate_results", "fifo")),
    Preset("summarize over budget", ("summarize",)),
    Preset("Anthropic clear_tool_uses", ("clear_tool_uses",)),
    Preset("Strands window: 40 messages", ("sliding_window",), (("window_mode", "messages"), ("window_messages", 40))),
)


def available_presets() -> list[Preset]:
    """The viewer's own presets, then what each agent or framework does (:mod:`inspector.presets`)."""
    return [p for p in PRESETS if all(n in STRATEGIES for n in p.pipeline)] + agent_presets()


def agent_presets() -> list[Preset]:
    """The agent presets as viewer presets: every parameter their pipeline reads, at the preset's
    value or its default; the note says where it comes from and what it does."""
    from ..presets import PresetError, load_presets, settings_for

    try:
        presets = load_presets()
    except PresetError:  # a broken user preset file: the command line reports it
        return []
    out = []
    for p in presets.values():
        if not all(n in STRATEGIES for n in p.pipeline):
            continue
        settings = settings_for(p, {})
        read = dict.fromkeys(name for s in p.pipeline for name in STRATEGIES[s].params)
        note = f"{p.agent} {p.version}: {p.does} Source ({p.sure}): {p.source}"
        out.append(Preset(p.name, p.pipeline, tuple((k, getattr(settings, k)) for k in read), note=" ".join(note.split())))
    return out


def fit_to_session(preset: Preset, session, model: str | None = None) -> Preset:
    """The agent preset ``preset`` as the commands' ``--preset`` applies it to ``session``
    (:func:`inspector.analysis.window.with_session_window`: the parameters it gives the agent
    version the session records, the session model's window); the note says which version's
    parameters differ. Any other preset as it is. ``model``: the viewer's ``--model``."""
    from ..analysis.session_facts import agent_of, agent_version_of
    from ..analysis.window import with_session_window
    from ..presets import PresetError, get_preset, settings_for

    try:
        source = get_preset(preset.name)
    except PresetError:
        return preset
    settings = with_session_window(settings_for(source, {}), session, set(), model, preset=source)
    values = tuple((k, getattr(settings, k)) for k, _ in preset.settings)
    if values == preset.settings:
        return preset
    version = agent_version_of(session)
    changed = {k: v for k, v in source.for_agent(agent_of(session), version).items() if source.params.get(k) != v}
    if not changed:
        return replace(preset, settings=values)
    said = ", ".join(f"{k}={v:,}" if isinstance(v, int) else f"{k}={v}" for k, v in changed.items())
    return replace(preset, settings=values, note=f"{preset.note} For this {source.agent} {version} session: {said}.".strip())


class ParamError(ValueError):
    """A typed or stepped value the parameter does not accept; the message says why."""


def parse_int(text: str) -> int:
    """``"40000"``, ``"40,000"``, ``"40k"``, ``"1.5k"``, ``"2m"`` -> int."""
    t = text.strip().lower().replace(",", "").replace("_", "").replace(" ", "")
    scale = 1
    if t.endswith("k"):
        scale, t = 1000, t[:-1]
    elif t.endswith("m"):
        scale, t = 1_000_000, t[:-1]
    try:
        value = float(t) * scale
    except ValueError:
        raise ParamError(f"{text!r} is not a number (try 40000 or 40k)") from None
    if not math.isfinite(value) or value != int(value):
        raise ParamError(f"{text!r} is not a whole number")
    return int(value)


def format_value(name: str, value: Any) -> str:
    spec = spec_for(name)
    if value is None:
        return "none"
    if spec.kind == "bool":
        return "yes" if value else "no"
    if spec.kind == "float":
        return f"{value:.2f}"
    if spec.kind == "names":
        return ", ".join(value) if value else "—"
    if isinstance(value, int):
        return f"{value:,}"
    return str(value)


@dataclass(frozen=True)
class PipelineState:
    order: tuple[str, ...]
    enabled: frozenset[str]
    settings: declared.SettingsBase
    encoding: str = "cl100k_base"
    profile: str = "openai"
    preset: str | None = None

    @classmethod
    def initial(cls, settings: declared.SettingsBase | None = None, encoding: str = "cl100k_base", profile: str = "openai",
                enabled: tuple[str, ...] = ()) -> PipelineState:
        return cls(panel_strategies(), frozenset(enabled), settings or declared.settings_model()(), encoding, profile)

    @property
    def pipeline(self) -> tuple[str, ...]:
        return tuple(n for n in self.order if n in self.enabled)

    def value(self, name: str) -> Any:
        if name == "encoding":
            return self.encoding
        if name == "profile":
            return self.profile
        return getattr(self.settings, name)

    # --- strategies -------------------------------------------------------------------------
    def toggle(self, name: str) -> PipelineState:
        enabled = self.enabled - {name} if name in self.enabled else self.enabled | {name}
        return replace(self, enabled=frozenset(enabled), preset=None)

    def toggle_at(self, position: int) -> PipelineState:
        """Toggle the strategy at 0-based ``position`` in panel order (keys 1-6)."""
        if not 0 <= position < len(self.order):
            return self
        return self.toggle(self.order[position])

    def move(self, name: str, delta: int) -> PipelineState:
        order = list(self.order)
        i = order.index(name)
        j = max(0, min(len(order) - 1, i + delta))
        order.insert(j, order.pop(i))
        return replace(self, order=tuple(order), preset=None)

    def apply_preset(self, preset: Preset, base: declared.SettingsBase | None = None) -> PipelineState:
        """The preset's pipeline first in the panel, its settings on ``base`` (the settings the
        viewer opened with: nothing of an earlier preset or edit stays), or on these settings."""
        rest = [n for n in self.order if n not in preset.pipeline]
        state = replace(self, order=tuple(preset.pipeline) + tuple(rest), enabled=frozenset(preset.pipeline),
                        settings=self.settings if base is None else base)
        for name, value in preset.settings:
            state = state.set(name, value)
        return replace(state, preset=preset.name)

    # --- parameters -------------------------------------------------------------------------
    def set(self, name: str, value: Any) -> PipelineState:
        """A new state with ``name`` set to ``value``; ParamError if the setting rejects it."""
        if name == "encoding":
            if value not in ENCODINGS:
                raise ParamError(f"token counter must be one of {', '.join(ENCODINGS)}")
            return replace(self, encoding=value)
        if name == "profile":
            if value not in PROFILES:
                raise ParamError(f"profile must be one of {', '.join(PROFILES)}")
            return replace(self, profile=value)
        data = self.settings.model_dump()
        data[name] = value
        try:
            settings = declared.settings_model()(**data)
        except ValidationError as exc:
            err = exc.errors()[0]
            raise ParamError(f"{spec_for(name).title}: {err['msg'].lower()}") from None
        return replace(self, settings=settings)

    def set_text(self, name: str, text: str) -> PipelineState:
        """Set a parameter from what the user typed."""
        spec = spec_for(name)
        t = text.strip()
        if spec.kind == "optional_int" and t.lower() in ("", "none", "off", "-"):
            return self.set(name, None)
        if spec.kind in ("int", "optional_int"):
            return self.set(name, parse_int(t))
        if spec.kind == "float":
            try:
                value = float(t[:-1]) / 100 if t.endswith("%") else float(t)
            except ValueError:
                raise ParamError(f"{t!r} is not a number (try 0.3 or 30%)") from None
            return self.set(name, value)
        if spec.kind == "bool":
            if t.lower() in ("yes", "y", "true", "on", "1"):
                return self.set(name, True)
            if t.lower() in ("no", "n", "false", "off", "0"):
                return self.set(name, False)
            raise ParamError(f"{spec.title}: answer yes or no")
        if spec.kind == "choice":
            if t not in spec.choices:
                raise ParamError(f"{spec.title}: choose one of {', '.join(spec.choices)}")
            return self.set(name, t)
        names = tuple(s.strip() for s in t.split(",") if s.strip())
        return self.set(name, names)

    def step(self, name: str, direction: int, big: bool = False, reference: int | None = None,
             skip: frozenset[str] | set[str] = frozenset()) -> PipelineState:
        """Step a parameter up (+1) or down (-1): by its step, or by 10% with ``big`` where the
        parameter allows it; choices and booleans cycle (past the choices in ``skip``, e.g. an
        encoding this machine cannot load). ``reference`` seeds an unset budget."""
        spec = spec_for(name)
        value = self.value(name)
        if spec.kind == "bool":
            return self.set(name, not value)
        if spec.kind == "choice":
            i = spec.choices.index(value) if value in spec.choices else 0
            for _ in range(len(spec.choices)):
                i = (i + direction) % len(spec.choices)
                if spec.choices[i] not in skip:
                    break
            return self.set(name, spec.choices[i])
        if spec.kind == "names":
            return self
        if spec.kind == "float":
            new = round(max(spec.step, min(1.0, value + direction * spec.step)), 4)
            return self.set(name, new)
        if value is None:
            base = reference if reference is not None else 0
            value = max(0, int(round(base / 1000.0)) * 1000)
            return self.set(name, value)
        if big and spec.percent_step:
            delta = max(1, round(value * 0.1))
        else:
            delta = int(spec.step)
        return self.set(name, max(0, value + direction * delta))
