"""The modular agent's generator: corpus utterances indexed by act, retrieved and filled.

`UtteranceIndex` holds `Candidate` templates per act with the context tags they were said in;
`template_slots`, `escape_braces` and `fill` turn corpus text into templates and back into words.
The word helpers (`content_words`, `similarity`, `ungrounded_words` ...) rank retrieved lines by
the message they answered and catch lines tied to the dialogue they came from.
`duologue.modular.agent` re-exports every name defined here.
"""

from __future__ import annotations

import random
import re
import string
from collections import Counter, defaultdict
from dataclasses import dataclass
from typing import Any, Callable, Iterable, Mapping, Sequence


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
