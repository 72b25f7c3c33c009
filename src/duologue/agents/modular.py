"""The modular agent of He et al. (2018): parse each move into a coarse act, decide the next act, generate.

"Decoupling Strategy and Generation in Negotiation Dialogues" splits a negotiator into three parts,
and so does this module, for any task:

1. a **parser** turns each of the partner's moves (a message, an offer, a submitted deal) into a
   coarse dialogue act plus its arguments (a price, a split). It is the task's own understanding
   code (CraigslistBargain: the corpus parser's acts, `tasks/craigslist/acts.py`; CaSiNo: the
   strategy tagger or `tasks/casino/understanding.py`), so the agent reads people and bots alike;
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
start-up from a corpus path: its spec argument (`modular:/path/to/file`), else `$DUOLOGUE_DATA`,
else `../shared/data` beside the checkout. What it builds is cached per process (self-play makes a
new agent for every episode). Without a corpus it logs a warning once and plays with its task's
built-in act-transition prior and templates: still legal and sensible, only less varied.

`ModularAgent` is the generic base; a task subclasses it with its parser, its rules and how to
fill its slots (`tasks/craigslist/modular.py`, `tasks/casino/modular.py`). Every reply it
generates is logged in `generated` (intended act, text, where it came from, whether it parsed
back), which the benchmark turns into the share of replies that fit their act.
"""

from __future__ import annotations

import logging
import math
import os
import random
import re
import string
from abc import abstractmethod
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, ClassVar, Iterable, Mapping, Sequence

from duologue.core.agent import Agent
from duologue.core.schema import Dialogue
from duologue.core.task import IllegalAction, Task

log = logging.getLogger(__name__)

START = "<start>"
"""The act before anything was said (the context of a dialogue's first move)."""


# ---------------------------------------------------------------------------- where the corpus is


def data_root() -> Path:
    """The real corpora: `$DUOLOGUE_DATA`, else `../shared/data` beside the checkout."""
    configured = os.environ.get("DUOLOGUE_DATA")
    if configured:
        return Path(configured)
    return Path(__file__).resolve().parents[3].parent / "shared" / "data"


def corpus_dialogues(corpus: str, path: Path) -> list[Dialogue]:
    """The valid dialogues of a native corpus file or folder (invalid records are left out)."""
    from duologue.data.io import read_corpus
    from duologue.tasks import corpus_format

    return read_corpus(corpus_format(corpus), path, skip_invalid=True).dialogues


def resolve_corpus(argument: str | None, relative: str) -> Path | None:
    """The corpus file or folder to learn from: the spec argument if given, else `data_root() / relative`.

    Returns None when that path does not exist (the agent then plays from its built-in prior).
    """
    path = Path(argument).expanduser() if argument else data_root() / relative
    return path if path.exists() else None


# ---------------------------------------------------------------------------- the manager: act policy


def _key(context: Sequence[str]) -> str:
    return "|".join(context)


class ActPolicy:
    """P(next act | context), estimated by counting, with interpolated backoff over context prefixes.

    A context is a tuple of features, most important first (for example `(role, partner's last
    act, price gap, my last act)`). Counts are kept for every prefix of every context seen; the
    estimate for a context mixes the relative frequencies at the full context with the estimate
    at its prefix one feature shorter, weighting the longer one by `n / (n + strength)` where n is
    how often that context was seen (Witten-Bell-like), down to the empty context and finally a
    uniform floor. So rare contexts lean on shorter ones, and an act never seen in a context keeps
    a small chance when the rules allow it.
    """

    def __init__(self, strength: float = 4.0, floor: float = 0.02) -> None:
        self.strength = strength
        self.floor = floor
        # Weights are real numbers (a table may give fractional counts), so plain float maps, not Counter.
        self.counts: defaultdict[str, dict[str, float]] = defaultdict(dict)

    def add(self, context: Sequence[str], act: str, weight: float = 1.0) -> None:
        """Count one observed act after `context` (at the context and at each of its prefixes)."""
        for length in range(len(context) + 1):
            bucket = self.counts[_key(context[:length])]
            bucket[act] = bucket.get(act, 0.0) + weight

    @classmethod
    def from_table(cls, table: Mapping[str, Mapping[str, float]], **options: float) -> "ActPolicy":
        """A policy from counts written as data: `{"feature|feature": {act: count}}` (prefix contexts included or not).

        Counts given only for full contexts are propagated to their prefixes, so a hand-written
        table needs only its most specific rows.
        """
        policy = cls(**options)
        for context, acts in table.items():
            features = tuple(context.split("|")) if context else ()
            for act, count in acts.items():
                policy.add(features, act, float(count))
        return policy

    @property
    def size(self) -> float:
        """How many acts were counted (at the empty context)."""
        return float(sum(self.counts.get("", {}).values()))

    def distribution(self, context: Sequence[str], allowed: Iterable[str]) -> dict[str, float]:
        """The probability of each allowed act after `context`, renormalised over the allowed acts."""
        allowed = list(dict.fromkeys(allowed))
        if not allowed:
            return {}
        estimate = {act: 1.0 / len(allowed) for act in allowed}
        for length in range(len(context) + 1):
            counts = self.counts.get(_key(context[:length]))
            if not counts:
                continue
            seen = sum(counts.get(act, 0.0) for act in allowed)
            if seen <= 0:
                continue
            weight = seen / (seen + self.strength)
            estimate = {act: weight * counts.get(act, 0.0) / seen + (1 - weight) * estimate[act] for act in allowed}
        total = sum(estimate.values())
        floored = {act: max(p / total, self.floor) for act, p in estimate.items()}
        norm = sum(floored.values())
        return {act: p / norm for act, p in floored.items()}

    def sample(self, context: Sequence[str], allowed: Iterable[str], rng: random.Random) -> str:
        """An act drawn from `distribution` with the agent's own RNG."""
        dist = self.distribution(context, allowed)
        if not dist:
            raise ValueError("no act is allowed")
        acts = list(dist)
        return rng.choices(acts, weights=[dist[a] for a in acts])[0]

    def best(self, context: Sequence[str], allowed: Iterable[str]) -> str:
        dist = self.distribution(context, allowed)
        return max(dist, key=dist.__getitem__)


# ---------------------------------------------------------------------------- the generator: retrieval


_FIELD = string.Formatter()


def template_slots(template: str) -> frozenset[str]:
    """The placeholder names of a template (`{price}` -> `price`)."""
    return frozenset(name for _, name, _, _ in _FIELD.parse(template) if name)


def escape_braces(text: str) -> str:
    """Corpus text made safe for `str.format` before placeholders are put in."""
    return text.replace("{", "{{").replace("}", "}}")


def fill(template: str, values: Mapping[str, str]) -> str:
    """The template with its placeholders replaced (every placeholder must have a value)."""
    return " ".join(template.format_map(dict(values)).split())


@dataclass(frozen=True)
class Candidate:
    """One utterance the generator may say: a template for an act, with the context it came from."""

    act: str
    template: str
    tags: tuple[tuple[str, str], ...] = ()
    """Context of the utterance (`role`, `category`, the issue levels it talks about ...)."""
    source: str = "corpus"
    """`corpus` (retrieved) or `template` (the agent's own fallback wording)."""
    context: str = ""
    """The partner's message this utterance answered in its own dialogue (empty for an opening), to
    retrieve lines said after something like what the partner just said."""

    @property
    def slots(self) -> frozenset[str]:
        return template_slots(self.template)

    def tag(self, name: str) -> str | None:
        return dict(self.tags).get(name)


class UtteranceIndex:
    """Utterances by act, with the context tags they were said in; retrieval filters and ranks by tags."""

    def __init__(self) -> None:
        self.by_act: dict[str, list[Candidate]] = defaultdict(list)
        self._seen: set[tuple[str, str, tuple[tuple[str, str], ...]]] = set()

    def add(self, act: str, template: str, tags: Mapping[str, str] | None = None, source: str = "corpus", context: str = "") -> bool:
        """Index one template (duplicates with the same act and tags are kept once). Returns whether it was new.

        context: the message the utterance answered where it was said (see `Candidate.context`).
        """
        template = " ".join(template.split())
        if not template:
            return False
        frozen = tuple(sorted((tags or {}).items()))
        key = (act, template.lower(), frozen)
        if key in self._seen:
            return False
        self._seen.add(key)
        self.by_act[act].append(Candidate(act=act, template=template, tags=frozen, source=source, context=" ".join(context.split())))
        return True

    def __len__(self) -> int:
        return sum(len(c) for c in self.by_act.values())

    def acts(self) -> list[str]:
        return sorted(self.by_act)

    def candidates(
        self,
        act: str,
        *,
        slots: Iterable[str] = (),
        require: Mapping[str, str | Sequence[str]] | None = None,
        prefer: Mapping[str, str] | None = None,
        accept: Callable[[Candidate], bool] | None = None,
        rank: Callable[[Candidate], float] | None = None,
        rng: random.Random | None = None,
        limit: int | None = None,
    ) -> list[Candidate]:
        """Candidates for `act` whose placeholders can all be filled from `slots`.

        require: tags that must match (a value or a list of allowed values). prefer: tags that rank
        a candidate first, one tier per matching tag; within a tier the order is shuffled with `rng`,
        then sorted by `rank` (highest first; ties keep the shuffled order). accept: any further test.
        """
        available = set(slots)
        require = require or {}
        prefer = prefer or {}
        tiers: dict[int, list[Candidate]] = defaultdict(list)
        for candidate in self.by_act.get(act, ()):
            if not candidate.slots <= available:
                continue
            tags = dict(candidate.tags)
            if any(not _tag_matches(tags.get(name), wanted) for name, wanted in require.items()):
                continue
            if accept is not None and not accept(candidate):
                continue
            tiers[sum(tags.get(name) == value for name, value in prefer.items())].append(candidate)
        ordered: list[Candidate] = []
        for score in sorted(tiers, reverse=True):
            tier = tiers[score]
            if rng is not None:
                tier = tier[:]
                rng.shuffle(tier)
            if rank is not None:
                tier = sorted(tier, key=rank, reverse=True)
            ordered.extend(tier)
            if limit is not None and len(ordered) >= limit:
                break
        return ordered[:limit] if limit is not None else ordered


def _tag_matches(value: str | None, wanted: str | Sequence[str]) -> bool:
    if isinstance(wanted, str):
        return value == wanted
    return value in wanted


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


# ---------------------------------------------------------------------------- argument variants


class OptionChoices:
    """Argument variants a task's modular agent offers a learned strategy (a mixin for the task's agent).

    At a decision point (`point`: an act that carries numbers, or an answer) the task's code computes
    the variants it allows, its planner's own first, and asks `choose_option`; the plain agent always
    plays the first, and a learned strategy (`rl:`) replaces `choose_option` to pick one."""

    option_variants: ClassVar[Mapping[str, tuple[str, ...]]] = {}
    """Every decision point and its variants (`point` -> options), the planner's own first."""

    def option_names(self) -> list[str]:
        """Every `point:option` a learned policy may choose (its vocabulary beside the acts)."""
        return [f"{point}:{option}" for point, options in self.option_variants.items() for option in options]

    def choose_option(self, point: str, context: Sequence[str], options: Sequence[str]) -> str:
        """Which variant to play at `point`: the planner's own, always the first."""
        return options[0]


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
        """corpus: a corpus file or folder to learn from (the spec argument of `modular:/path`)."""
        self.corpus_argument = corpus or None

    def reset(self, task: Task, party: str, rng: random.Random) -> None:
        super().reset(task, party, rng)
        path = resolve_corpus(self.corpus_argument, self.corpus_relative)
        if self.corpus_argument and path is None and type(self).__qualname__ not in _WARNED:
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


_WORD = re.compile(r"[a-z]+")


def content_words(text: str) -> set[str]:
    """Lower-case alphabetic words of at least three letters (for item-specific vocabulary checks)."""
    return {w for w in _WORD.findall(text.lower()) if len(w) >= 3}


def document_frequency(texts: Iterable[str]) -> Counter[str]:
    """In how many of `texts` each content word occurs (a word's commonness across a corpus)."""
    counts: Counter[str] = Counter()
    for text in texts:
        counts.update(content_words(text))
    return counts


def ungrounded_words(text: str, grounds: Iterable[str], common: Iterable[str] | Mapping[str, Any]) -> set[str]:
    """Content words of `text` that are neither common talk nor said anywhere in `grounds` (the item's
    description, the partner's messages, the agent's own): words that tie a retrieved line to the
    dialogue it came from (`is the convertible still available?` about a sedan)."""
    grounded: set[str] = set()
    for ground in grounds:
        grounded |= content_words(ground)
    grounded |= {_stem(word) for word in grounded}
    return {word for word in content_words(text) if word not in common and word not in grounded and _stem(word) not in grounded}


def similarity(a: str, b: str) -> float:
    """Overlap of two texts' content words (Jaccard), for ranking lines by the message they answered."""
    left, right = content_words(a), content_words(b)
    if not left or not right:
        return 0.0
    return len(left & right) / len(left | right)


def _stem(word: str) -> str:
    """A crude stem (`miles` -> `mile`, `scratched` -> `scratch`) so an inflection still counts as grounded."""
    for suffix in ("ing", "ed", "es", "s"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            return word[: -len(suffix)]
    return word
