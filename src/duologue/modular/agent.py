"""The modular agent of He et al. (2018): parse each move into a coarse act, decide the next act, generate.

"Decoupling Strategy and Generation in Negotiation Dialogues" splits a negotiator into three parts,
and so does this module, for any task:

1. a **parser** turns each of the partner's moves (a message, an offer, a submitted deal) into a
   coarse dialogue act plus its arguments (a price, a split). It is the task's own understanding
   code (CraigslistBargain: the corpus parser's acts, `tasks/craigslist/acts.py`; CaSiNo: the
   strategy tagger or `tasks/casino/understanding.py`; Deal or No Deal:
   `tasks/dealornodeal/understanding.py`), so the agent reads people and bots alike;
2. a **manager** chooses the next coarse act. `ActPolicy` is a conditional frequency model
   P(next act | context) estimated from the act sequences of a corpus, with interpolated backoff
   from the full context (the partner's last act, the agent's last act, the price gap, ...) to
   shorter ones. The task part keeps the rules: it offers the policy only the acts that are legal
   and sensible now (never accept below the limit, never a split that does not add up), and it
   fixes the arguments (the price from a concession schedule, the split from the agent's plan);
3. a **generator** realises the act as words by retrieval: `UtteranceIndex` holds corpus
   utterances that carried each act, with numbers and items replaced by placeholders at indexing
   time (`{price}`), filled with the agent's own values at use time. Each filled candidate is
   checked by the task's act parser (it must parse back to the intended act and arguments); when
   no candidate fits, the agent falls back to its own templates.

Data policy: corpus utterances never ship with duologue. An agent builds its index and policy at
start-up from a corpus path: its spec argument (`modular:/path/to/file`, refused when nothing is
there), else `$DUOLOGUE_DATA`, else `../shared/data` beside the checkout. What it builds is cached
per process (self-play makes a new agent for every episode). Without a corpus (none found, or asked
for with `modular:prior`) it plays with its task's built-in act-transition prior and templates
(logging a warning once when none was found): still legal and sensible, only less varied.

`ModularAgent` is the generic base; a task subclasses it with its parser, its rules and how to
fill its slots (`tasks/craigslist/modular.py`, `tasks/casino/modular.py`, `tasks/dealornodeal/modular.py`). Every reply it
generates is logged in `generated` (intended act, text, where it came from, whether it parsed
back), which the benchmark turns into the share of replies that fit their act.

The manager lives in `policy.py` (`ActPolicy`, `OptionChoices`, `START`) and the generator's
index and word helpers in `retrieval.py`; this module keeps where the corpus is, the cache
of what was learned from it, and the agent, and re-exports every name of the other two.
"""

from __future__ import annotations

import logging
import math
import os
import random
from abc import abstractmethod
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, ClassVar, Iterable, Mapping, Sequence

from duologue.modular.policy import START as START
from duologue.modular.policy import ActPolicy as ActPolicy
from duologue.modular.policy import OptionChoices as OptionChoices
from duologue.modular.policy import _key as _key
from duologue.modular.retrieval import (  # the generator, also importable from here
    _FIELD as _FIELD,
    _WORD as _WORD,
    Candidate as Candidate,
    UtteranceIndex as UtteranceIndex,
    _stem as _stem,
    _tag_matches as _tag_matches,
    content_words as content_words,
    document_frequency as document_frequency,
    escape_braces as escape_braces,
    fill as fill,
    similarity as similarity,
    template_slots as template_slots,
    ungrounded_words as ungrounded_words,
)
from duologue.core.agent import Agent
from duologue.core import actions
from duologue.core.task import IllegalAction, Observation, Task

log = logging.getLogger(__name__)


# ---------------------------------------------------------------------------- where the corpus is


def data_root() -> Path:
    """The real corpora: `$DUOLOGUE_DATA`, else `../shared/data` beside the checkout."""
    configured = os.environ.get("DUOLOGUE_DATA")
    if configured:
        return Path(configured)
    return Path(__file__).resolve().parents[3].parent / "shared" / "data"


PRIOR_ONLY = "prior"
"""The spec argument (`modular:prior`) for a modular agent that learns from no corpus."""


def resolve_corpus(argument: str | None, relative: str) -> Path | None:
    """The corpus file or folder to learn from: the spec argument if given, else `data_root() / relative`.

    Returns None when that path does not exist (the agent then plays from its built-in prior).
    """
    path = Path(argument).expanduser() if argument else data_root() / relative
    return path if path.exists() else None


# ---------------------------------------------------------------------------- what the agent learned


@dataclass
class Knowledge:
    """What a modular agent plays from: its act policy and its utterance index, and where they came from."""

    policy: ActPolicy
    index: UtteranceIndex
    source: str
    """The corpus path, or `built-in` for the fallback prior and templates."""
    stats: dict[str, Any] = field(default_factory=dict)
    extra: dict[str, Any] = field(default_factory=dict)
    """Anything task-specific the builder wants to keep (vocabulary, tagger ...)."""

    @property
    def from_corpus(self) -> bool:
        return self.source != "built-in"


_KNOWLEDGE: dict[tuple[str, str], Knowledge] = {}
_WARNED: set[str] = set()


def cached_knowledge(owner: str, path: Path | None, build: Callable[[Path], Knowledge], fallback: Callable[[], Knowledge]) -> Knowledge:
    """The knowledge built from `path` (or the fallback when None), built once per process and owner."""
    key = (owner, str(path.resolve()) if path is not None else "built-in")
    if key not in _KNOWLEDGE:
        if path is None:
            if owner not in _WARNED:
                _WARNED.add(owner)
                log.warning("%s: no corpus found (set DUOLOGUE_DATA or pass modular:/path); playing from the built-in act prior and templates", owner)
            _KNOWLEDGE[key] = fallback()
        else:
            try:
                _KNOWLEDGE[key] = build(path)
            except Exception as error:  # noqa: BLE001  a broken corpus file must not stop play: fall back, loudly
                log.warning("%s: could not learn from %s (%s); playing from the built-in act prior and templates", owner, path, error)
                _KNOWLEDGE[key] = fallback()
    return _KNOWLEDGE[key]


def clear_cache() -> None:
    """Forget every built index and policy (tests use it to rebuild with another corpus)."""
    _KNOWLEDGE.clear()
    _WARNED.clear()


# ---------------------------------------------------------------------------- the agent


@dataclass
class Generated:
    """One reply the agent generated: what act it meant, what it said, and whether it parsed back."""

    act: str
    text: str
    source: str
    """`corpus` (retrieved and filled) or `template` (fallback wording)."""
    fits: bool
    """The task's act parser reads the reply as the intended act (and arguments), or nothing it can check contradicts it."""
    first_fits: bool | None = None
    """Whether the first retrieved candidate already fitted (None when there was no corpus candidate)."""
    tried: int = 0
    """Corpus candidates filled and checked before one was taken."""
    checked: bool = True
    """Whether the act parser can recognise this act at all (a task whose tagger is missing may read only some acts)."""


class ModularAgent(Agent):
    """Parse -> decide a coarse act -> generate (see the module docstring). Subclassed per task."""

    name = "modular"
    corpus_relative: ClassVar[str] = ""
    """Where the task's corpus lies under the data root (`<corpus>/validation.json`)."""
    candidates_per_turn: ClassVar[int] = 25
    """How many retrieved candidates are filled and checked before falling back to templates."""

    def __init__(self, corpus: str | None = None) -> None:
        """corpus: a corpus file or folder to learn from (the spec argument of `modular:/path`), or
        `prior` to learn from none and play from the built-in prior. A path that does not exist is
        refused: silently playing from the prior would report another agent than the one asked for."""
        self.prior_only = corpus == PRIOR_ONLY
        self.corpus_argument = None if self.prior_only else corpus or None
        if self.corpus_argument is not None and resolve_corpus(self.corpus_argument, "") is None:
            raise ValueError(f"modular:{corpus}: no corpus file or folder there (modular:{PRIOR_ONLY} plays from the built-in prior)")

    def reset(self, task: Task, party: str, rng: random.Random) -> None:
        super().reset(task, party, rng)
        path = None if self.prior_only else resolve_corpus(self.corpus_argument, self.corpus_relative)
        if self.corpus_argument and path is None and type(self).__qualname__ not in _WARNED:  # removed since it was named
            _WARNED.add(type(self).__qualname__)
            log.warning("%s: corpus %s not found", type(self).__qualname__, self.corpus_argument)
        self.knowledge = cached_knowledge(type(self).__qualname__, path, self.build_knowledge, self.fallback_knowledge)
        self.generated: list[Generated] = []
        self.used: set[str] = set()
        self.refused = 0

    def on_illegal(self, error: IllegalAction) -> None:
        self.refused += 1

    # ------------------------------------------------------------------ to implement per task

    @classmethod
    @abstractmethod
    def build_knowledge(cls, path: Path) -> Knowledge:
        """Learn the policy and build the utterance index from the corpus at `path`."""

    @classmethod
    @abstractmethod
    def fallback_knowledge(cls) -> Knowledge:
        """The built-in prior and templates used when no corpus is available."""

    # ------------------------------------------------------------------ shared helpers

    def unstick(self, observation: Observation) -> actions.Action | None:
        """After two moves in a row were refused as illegal, a random legal move (then the count starts over)."""
        if self.refused >= 2 and observation.legal:
            self.refused = 0
            return self.task.sample_action(self.party, self.rng)
        return None

    def last_acts(self, transcript: Sequence[Any], acts: Sequence[str | None]) -> tuple[str, str]:
        """(partner's last act, my last act), `START` for a side that has none yet.

        `acts` holds the coarse act of each event read so far (None for an event without one): a
        prefix of the transcript, since the newest events may not have been read yet."""
        partner_act = my_act = START
        for event, act in zip(transcript, acts, strict=False):
            if act is None:
                continue
            if event.party == self.party:
                my_act = act
            else:
                partner_act = act
        return partner_act, my_act

    def choose_act(self, context: Sequence[str], allowed: Iterable[str]) -> str:
        """The next coarse act: sampled from the learned policy, among the acts the rules allow."""
        return self.knowledge.policy.sample(context, allowed, self.rng)

    def realize(
        self,
        act: str,
        *,
        values: Mapping[str, str],
        fits: Callable[[str], bool],
        fallback: Sequence[str],
        require: Mapping[str, str | Sequence[str]] | None = None,
        prefer: Mapping[str, str] | None = None,
        accept: Callable[[Candidate], bool] | None = None,
        render: Callable[[Candidate], str | None] | None = None,
        slots: Iterable[str] | None = None,
        checked: bool = True,
        rank: Callable[[Candidate], float] | None = None,
    ) -> str:
        """Words for `act`: a retrieved corpus candidate filled with `values` that `fits`, else a fallback template.

        fits: the task's act parser applied to a filled text (does it read as the intended act and
        arguments?). render: how to turn a candidate into text when plain slot filling is not
        enough (CaSiNo proposals); it returns None when the candidate cannot express the values.
        slots: the placeholders a candidate may have (default: the keys of `values`). checked:
        whether `fits` really tests the act (False when the parser cannot recognise it; the reply is
        then left out of the fit share). rank: orders candidates within a tag tier (for example by how
        much their `context` resembles the partner's last message).
        Fallback templates are tried in a random order, preferring ones that fit and were not said yet.
        """
        candidates = self.knowledge.index.candidates(
            act, slots=values.keys() if slots is None else slots, require=require, prefer=prefer, accept=accept, rank=rank, rng=self.rng,
            limit=self.candidates_per_turn * 4,
        )
        tried = 0
        first_fits: bool | None = None
        for candidate in candidates:
            if tried >= self.candidates_per_turn:
                break
            text = render(candidate) if render is not None else fill(candidate.template, values)
            if not text or text.lower() in self.used:
                continue
            tried += 1
            ok = fits(text)
            if first_fits is None:
                first_fits = ok
            if ok:
                return self._log(Generated(act=act, text=text, source=candidate.source, fits=True, first_fits=first_fits, tried=tried, checked=checked))
        options = list(fallback)
        self.rng.shuffle(options)
        options.sort(key=lambda t: fill(t, values).lower() in self.used)  # stable: unsaid ones first
        chosen, ok = None, False
        for template in options:
            text = fill(template, values)
            if fits(text):
                chosen, ok = text, True
                break
        if chosen is None:
            chosen = fill(options[0], values) if options else "Okay."
        return self._log(Generated(act=act, text=chosen, source="template", fits=ok, first_fits=first_fits, tried=tried, checked=checked))

    def _log(self, generated: Generated) -> str:
        self.generated.append(generated)
        self.used.add(generated.text.lower())
        return generated.text


def fit_share(records: Iterable[Generated]) -> dict[str, float | int]:
    """Summary of generated replies: how many, the share retrieved from the corpus, and, among the
    replies whose act the parser can check, the share that parse back (finally, and at the first
    retrieved candidate)."""
    records = list(records)
    n = len(records)
    corpus = [r for r in records if r.source == "corpus"]
    checked = [r for r in records if r.checked]
    first = [r for r in checked if r.first_fits is not None]
    return {
        "replies": n,
        "from_corpus": len(corpus) / n if n else math.nan,
        "checked": len(checked),
        "fit": sum(r.fits for r in checked) / len(checked) if checked else math.nan,
        "first_candidate_fit": sum(bool(r.first_fits) for r in first) / len(first) if first else math.nan,
    }
