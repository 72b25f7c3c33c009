"""Scenarios for a study's dialogues (`ScenarioPool`), and the error a study that cannot run raises.

Kept apart from the study's settings (`duologue.web.study`) so that the whole-study check
(`duologue.web.study_check`), which the study's loader calls, can try the pool without importing
the loader back.
"""

from __future__ import annotations

import random
from typing import TYPE_CHECKING

from duologue.core.schema import Scenario

if TYPE_CHECKING:
    from duologue.web.study import Study


class StudyError(ValueError):
    """A study file that cannot run; the message says which field and why."""


class ScenarioPool:
    """Hands out scenarios for a study: fresh or pooled generated ones, or a corpus's."""

    def __init__(self, study: Study) -> None:
        self.study = study
        self._corpus: list[tuple[str, Scenario]] | None = None
        if study.scenarios.source == "corpus":
            from duologue.data.io import read_corpus
            from duologue.tasks import corpus_format

            corpus, path = study.scenarios.corpus, study.scenarios.path
            if corpus is None or path is None:  # refused by `Scenarios` on validation; a copy made without it can get here
                raise StudyError(f"study {study.id}: scenarios.source 'corpus' needs scenarios.corpus and scenarios.path")
            dialogues = read_corpus(corpus_format(corpus), path, skip_invalid=True).dialogues
            if study.scenarios.limit is not None:
                dialogues = dialogues[: study.scenarios.limit]
            self._corpus = [(f"corpus:{d.id}", d.scenario) for d in dialogues]
            if not self._corpus:
                raise StudyError(f"study {study.id}: no scenarios in {study.scenarios.path}")

    def keys(self) -> list[str]:
        if self._corpus is not None:
            return [k for k, _ in self._corpus]
        if self.study.scenarios.pool:
            return [f"seed:{self.study.scenarios.seed + i}" for i in range(self.study.scenarios.pool)]
        return []

    def choose(self, counts: dict[tuple[str, str], int], pairing: str, rng: random.Random) -> tuple[str, Scenario | None, int] | None:
        """(key, scenario or None to generate, seed) for the next dialogue of `pairing`, or None
        when every scenario's quota for that pairing is full. Fills the least-used scenario first."""
        seed = rng.randrange(2**31)
        keys = self.keys()
        if not keys:
            return f"seed:{seed}", None, seed
        limit = self.study.per_scenario
        open_keys = [k for k in keys if limit is None or counts.get((k, pairing), 0) < limit]
        if not open_keys:
            return None
        fewest = min(counts.get((k, pairing), 0) for k in open_keys)
        key = rng.choice([k for k in open_keys if counts.get((k, pairing), 0) == fewest])
        if self._corpus is not None:
            return key, dict(self._corpus)[key], seed
        return key, None, int(key.split(":")[1])
