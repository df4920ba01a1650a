"""The model a session mostly used, kept as calls arrive, is Counter.most_common's choice at
every step (the first seen wins a tie)."""

from __future__ import annotations

import random
from collections import Counter

from inspector.formats.reading import ModelTally
from inspector.model import Session


def test_the_tally_is_most_common_at_every_step():
    rng = random.Random(7)
    for _ in range(500):
        session, counts = Session(format="x"), Counter()
        tally = ModelTally(session)
        for _ in range(rng.randint(1, 25)):
            model = rng.choice("abcd")
            tally.add(model)
            counts[model] += 1
            assert session.model == counts.most_common(1)[0][0]


def test_a_tie_keeps_the_model_seen_first():
    session = Session(format="x")
    tally = ModelTally(session)
    for model in ["a", "b", "b", "a"]:
        tally.add(model)
    assert session.model == "a"
