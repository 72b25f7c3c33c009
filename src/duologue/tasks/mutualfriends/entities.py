"""MutualFriends entity annotation: which knowledge-base values each message names, and whether it denies them.

`EntityAnnotator` (`duologue annotate entities PATH`) writes one `Annotation` per mention, in layer
`entity`, on the message's event::

    Annotation(event=3, layer="entity", source="duologue.entities-v1",
               labels=["Salisbury State University"],            # the canonical KB value, as the KB writes it
               value={"attribute": "School",                      # the scenario's attribute name
                      "text": "salisbury", "start": 25, "end": 34, # the words as written: message[start:end]
                      "negated": False})                          # the message denies it ("none at ...")

A mention the linker could not settle between values ("michigan" with both University of Michigan
and Michigan State in play) also carries `"alternatives": [[attribute, value], ...]`. Gold
annotations use the same shape without `alternatives`; a labelled message with no mention carries
one annotation with empty `labels` and `value` None, so that "no entity here" is a label too.

Which knowledge base a message is linked against (`kb`):

* `"union"` (default, for annotating corpora): the values of BOTH parties' lists. Whoever writes a
  message names values of its own list, asks about them, or answers (often denies) values the
  partner named from the partner's list; the union holds all of these, and nothing else. Linking
  only against the scenario's values (not the project's lists of hundreds of schools, names,
  companies) means a word can only become a value that is in play, which removes most false
  alarms ("mark", "will", "chase" are names only where a list has them).
* `"speaker"`: the writer's own list over the project's lexicon (what the writer knows).
* `"listener"`: the reader's own list over the project's lexicon: exactly what the rule agent sees
  when it reads its partner (`EntityLinker.for_friends`). Values outside the reader's list are still
  found through the project's lexicon, so the agent can answer "none of mine ...".

Negation follows `linking.py`: a cue ("no", "none", "nobody", "not", "don't", "zero", "neither
... nor") negates the values after it to the end of its clause ("nobody at Google in the evening"
negates both), "no, afternoon" is a bare answer, and a count of zero negates.

**Evaluation** (`EntityAnnotator.evaluate`): dialogues that carry `entity` annotations from another
source are gold; every message of such a dialogue is scored (a message without gold annotations has
no mentions). Per message, mentions are compared as sets of (attribute, value): a predicted mention
is right when both match a gold one (the span need not). Figures: precision / recall / F1 of
mentions; of negated mentions (a hit needs attribute, value and negation to match); per attribute;
`negation_accuracy` (negation flag right, over mentions found) and `span_exact` (the same characters,
over mentions found).

**The labelled set** (`entity_eval.jsonl` beside this module; `load_eval_set`): written for the
project, not taken from the corpus. One JSON object per line, of two kinds::

    {"kind": "scenario", "id": "s01", "attributes": ["School", ...],
     "friends": {"0": [{"School": ..., ...}, ...], "1": [...]}}          # both parties' lists
    {"kind": "utterance", "id": "s01-01", "scenario": "s01", "speaker": "0", "split": "dev",
     "text": "hi! do you have anyone who went to salisbury?",
     "mentions": [{"value": "Salisbury State University", "attribute": "School",
                   "negated": false, "text": "salisbury", "start": 35, "end": 44}]}

14 scenarios over all seven attributes (some values outside the project's lists, as in the corpus:
"Salisbury State University", "Alton Steel", "Sigma Designs") and 250 utterances written the way
people wrote in the task: partial names, acronyms, nicknames, inflections, typos, lower case,
negations, lists with counts, questions, filler, no entity at all, and words that look like values
("I'll mark that down" with a friend named Mark). Gold conventions: every span that names a value
of either list is a mention (a value said twice in one message counts once); a mention is negated
when it lies in the scope of a denial ("nobody at Google in the evening" denies both); spans cover
the words naming the value ("morning" in "morning person"). `speaker` is the party whose list the
message fits best. `split` divides the utterances of each scenario at random into `dev` (129, may
be looked at while improving the linker) and `test` (121, held out: only its figures are reported).
Each utterance becomes a one-message `Dialogue` with its scenario and gold annotations (source
`duologue.entity-eval`); `write_eval_set` writes them as a `.jsonl` file that
`duologue annotate entities FILE --evaluate` reads.
"""

from __future__ import annotations

import json
from collections import OrderedDict
from importlib import resources
from pathlib import Path
from typing import Any, Iterable, Literal, Sequence

from duologue.core.annotator import Annotator, Evaluation, LabelScore, label_scores
from duologue.core.schema import Annotation, Dialogue, Message, Party, Scenario, Source
from duologue.data.io import write_dialogues
from duologue.tasks.mutualfriends import rules
from duologue.tasks.mutualfriends.linking import EntityLinker, Lexicon, Mention
from duologue.tasks.mutualfriends.task import attribute_names

KnowledgeBase = Literal["union", "speaker", "listener"]
KNOWLEDGE_BASES: tuple[str, ...] = ("union", "speaker", "listener")
EVAL_SET_FILE = "entity_eval.jsonl"
EVAL_SOURCE = "duologue.entity-eval"
"""`Annotation.source` of the labelled set's gold annotations."""
ALL_MENTIONS = "all mentions"
NEGATED_MENTIONS = "negated mentions"
_LINKER_CACHE_SIZE = 512

GoldMention = tuple[str, str, bool]
"""(attribute, value, negated)."""


class EntityAnnotator(Annotator):
    """Links each MutualFriends message to the knowledge-base values it names."""

    name = "entities"
    task = "mutualfriends"
    layer = "entity"
    source = "duologue.entities-v1"

    def __init__(self, kb: KnowledgeBase = "union") -> None:
        if kb not in KNOWLEDGE_BASES:
            raise ValueError(f"kb must be one of {', '.join(KNOWLEDGE_BASES)}, got {kb!r}")
        self.kb = kb
        self._linkers: OrderedDict[tuple, EntityLinker] = OrderedDict()

    # ------------------------------------------------------------------ linking

    def linker(self, dialogue: Dialogue, party: str | None) -> EntityLinker:
        """The linker for messages `party` writes in `dialogue`, under this annotator's `kb`."""
        lists = {p: list(view.get("friends") or []) for p, view in dialogue.scenario.private.items() if isinstance(view, dict)}
        friends_anywhere = [f for friends in lists.values() for f in friends if isinstance(f, dict)]
        attributes = tuple(attribute_names(dialogue.scenario.public, friends_anywhere))
        if self.kb == "union":
            chosen = friends_anywhere
        else:
            others = [p for p in lists if p != party]
            owner = party if self.kb == "speaker" else (others[0] if others else None)
            chosen = [f for f in lists.get(owner, []) if isinstance(f, dict)] if owner is not None else []
        values: dict[str, list[str]] = {}
        for friend in chosen:
            for attribute, value in friend.items():
                values.setdefault(str(attribute), []).append(str(value))
        key = (self.kb, attributes, tuple((a, tuple(sorted(set(vs)))) for a, vs in sorted(values.items())))
        linker = self._linkers.get(key)
        if linker is None:
            linker = self._build(values, list(attributes))
            self._linkers[key] = linker
            if len(self._linkers) > _LINKER_CACHE_SIZE:
                self._linkers.popitem(last=False)
        else:
            self._linkers.move_to_end(key)
        return linker

    def _build(self, values: dict[str, list[str]], attributes: list[str]) -> EntityLinker:
        if self.kb == "union" and values:
            return EntityLinker(values, attributes or list(values), base=Lexicon())  # closed: only the scenario's values
        return EntityLinker(values, attributes or None)  # the rule agent's view: own list over the project's lexicon

    def annotate(self, dialogue: Dialogue) -> list[Annotation]:
        annotations: list[Annotation] = []
        linkers: dict[str | None, EntityLinker] = {}
        for index, event in enumerate(dialogue.events):
            if isinstance(event, Message):
                if event.party not in linkers:
                    linkers[event.party] = self.linker(dialogue, event.party)
                parse = linkers[event.party].link(event.text)
                annotations.extend(self._annotation(index, mention) for mention in parse.mentions)
        return annotations

    def _annotation(self, event: int, mention: Mention) -> Annotation:
        value: dict[str, Any] = {
            "attribute": mention.attribute,
            "text": mention.text,
            "start": mention.char_start,
            "end": mention.char_end,
            "negated": mention.negated,
        }
        if mention.alternatives:
            value["alternatives"] = [list(entity) for entity in mention.alternatives]
        return Annotation(event=event, layer=self.layer, labels=[mention.value], value=value, source=self.source)

    # ------------------------------------------------------------------ evaluating

    def evaluate(self, dialogues: Sequence[Dialogue]) -> Evaluation | None:
        gold_dialogues = [d for d in dialogues if self.gold(d)]
        if not gold_dialogues:
            return None
        return self.score([(d, self.annotate(d)) for d in gold_dialogues])

    def score(self, labelled: Sequence[tuple[Dialogue, Sequence[Annotation]]]) -> Evaluation:
        """Scores predicted annotations against the gold ones of their dialogues (`evaluate` without
        re-annotating: a benchmark resamples dialogues with their predictions for intervals)."""
        pairs: list[tuple[frozenset[str], frozenset[str]]] = []
        found = negation_right = span_right = messages = gold_count = gold_negated = 0
        for dialogue, annotated in labelled:
            gold = _by_event(self.gold(dialogue))
            predicted = _by_event(annotated)
            for index, event in enumerate(dialogue.events):
                if not isinstance(event, Message):
                    continue
                messages += 1
                gold_here, predicted_here = gold.get(index, {}), predicted.get(index, {})
                gold_count += len(gold_here)
                gold_negated += sum(1 for negated, _ in gold_here.values() if negated)
                pairs.extend(_mention_pairs(gold_here, predicted_here))
                for key in gold_here.keys() & predicted_here.keys():
                    found += 1
                    negation_right += gold_here[key][0] == predicted_here[key][0]
                    span_right += gold_here[key][1] is not None and gold_here[key][1] == predicted_here[key][1]
        per_label, _ = label_scores(pairs)
        empty = LabelScore(precision=0.0, recall=0.0, f1=0.0, support=0)
        mentions = per_label.get(ALL_MENTIONS, empty)
        negations = per_label.get(NEGATED_MENTIONS, empty)
        metrics = {
            "mention_precision": mentions.precision,
            "mention_recall": mentions.recall,
            "mention_f1": mentions.f1,
            "negation_precision": negations.precision,
            "negation_recall": negations.recall,
            "negation_f1": negations.f1,
            "negation_accuracy": negation_right / found if found else 0.0,
            "span_exact": span_right / found if found else 0.0,
        }
        ordered = {k: per_label[k] for k in (ALL_MENTIONS, NEGATED_MENTIONS) if k in per_label}
        ordered |= {k: v for k, v in per_label.items() if k not in ordered}
        notes = [
            f"{messages} message(s) in {len(labelled)} dialogue(s); {gold_count} gold mention(s), {gold_negated} negated; "
            f"knowledge base: {self.kb}. A mention counts when attribute and value match (sets per message); "
            "negated mentions also need the negation to match; negation_accuracy and span_exact are over the mentions found."
        ]
        return Evaluation(annotator=self.name, items=messages, metrics=metrics, per_label=ordered, notes=notes)

    def gold(self, dialogue: Dialogue) -> list[Annotation]:
        """The dialogue's gold entity annotations: this layer, any source but this annotator's."""
        return [a for a in dialogue.annotations if a.layer == self.layer and a.source != self.source and a.event is not None]


def _by_event(annotations: Iterable[Annotation]) -> dict[int, dict[tuple[str, str], tuple[bool, tuple[int, int] | None]]]:
    """Event -> (attribute, value) -> (negated, character span); a value said twice is negated if either says so."""
    found: dict[int, dict[tuple[str, str], tuple[bool, tuple[int, int] | None]]] = {}
    for annotation in annotations:
        if annotation.event is None:
            continue  # a mention belongs to an event
        mentions = found.setdefault(annotation.event, {})
        data = annotation.value if isinstance(annotation.value, dict) else {}
        attribute = str(data.get("attribute", ""))
        span = (data["start"], data["end"]) if isinstance(data.get("start"), int) and isinstance(data.get("end"), int) else None
        for label in annotation.labels:
            key = (attribute, label)
            negated = bool(data.get("negated", False))
            if key in mentions:
                negated = negated or mentions[key][0]
                span = mentions[key][1]
            mentions[key] = (negated, span)
    return found


def _mention_pairs(gold: dict, predicted: dict) -> Iterable[tuple[frozenset[str], frozenset[str]]]:
    """One (gold labels, predicted labels) pair per (attribute, value) either side has, for `label_scores`:
    `all mentions` and the attribute for the mention itself, `negated mentions` when it is negated."""
    for key in gold.keys() | predicted.keys():
        attribute = key[0]

        def labels(side: dict, key: tuple = key, attribute: str = attribute) -> frozenset[str]:
            if key not in side:
                return frozenset()
            return frozenset({ALL_MENTIONS, attribute} | ({NEGATED_MENTIONS} if side[key][0] else set()))

        yield labels(gold), labels(predicted)


# --------------------------------------------------------------------------- the labelled set


def eval_set_path() -> Path:
    """Where the labelled set ships (inside the package, so the benchmark runs on a fresh clone)."""
    return Path(str(resources.files("duologue.tasks.mutualfriends").joinpath(EVAL_SET_FILE)))


def load_eval_set(path: Path | str | None = None, split: str | None = None) -> list[Dialogue]:
    """The labelled utterances as one-message dialogues carrying their scenario and gold `entity` annotations.

    `split`: "dev" or "test" for one half, None for all. Raises ValueError naming the line of any
    item that does not fit its scenario (unknown scenario or attribute, a value in neither list,
    a span that is not the text it claims).
    """
    lines = Path(path or eval_set_path()).read_text(encoding="utf-8").splitlines()
    scenarios: dict[str, dict[str, Any]] = {}
    dialogues: list[Dialogue] = []
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        record = json.loads(line)
        if record.get("kind") == "scenario":
            scenarios[record["id"]] = record
            continue
        if record.get("kind") != "utterance":
            raise ValueError(f"line {number}: kind must be 'scenario' or 'utterance', got {record.get('kind')!r}")
        if record["scenario"] not in scenarios:
            raise ValueError(f"line {number}: scenario {record['scenario']!r} is not defined above it")
        if split is None or record.get("split") == split:
            dialogues.append(_eval_dialogue(record, scenarios[record["scenario"]], number))
    return dialogues


def _eval_dialogue(item: dict[str, Any], scenario: dict[str, Any], number: int) -> Dialogue:
    attributes = scenario["attributes"]
    friends = scenario["friends"]
    in_play = {(a, str(f[a])) for party in friends.values() for f in party for a in f}
    text = item["text"]
    annotations: list[Annotation] = []
    for mention in item["mentions"]:
        if (mention["attribute"], mention["value"]) not in in_play:
            raise ValueError(f"line {number}: {mention['attribute']} {mention['value']!r} is in neither list of scenario {scenario['id']}")
        if text[mention["start"] : mention["end"]] != mention["text"]:
            raise ValueError(f"line {number}: characters {mention['start']}-{mention['end']} are not {mention['text']!r}")
        value = {k: mention[k] for k in ("attribute", "text", "start", "end", "negated")}
        annotations.append(Annotation(event=0, layer="entity", labels=[mention["value"]], value=value, source=EVAL_SOURCE))
    if not annotations:
        annotations.append(Annotation(event=0, layer="entity", labels=[], value=None, source=EVAL_SOURCE))
    public = {
        "attributes": [
            {"name": a, "value_type": rules.VALUE_TYPES.get(a, a.lower()), "unique": False, "multivalued": False, "entity": True}
            for a in attributes
        ]
    }
    return Dialogue(
        id=f"mf-entity-eval-{item['id']}",
        task="mutualfriends",
        split=item.get("split"),
        scenario=Scenario(id=scenario["id"], public=public, private={p: {"friends": fs} for p, fs in friends.items()}),
        parties=[Party(id=p, kind="human") for p in friends],
        events=[Message(party=item["speaker"], text=text)],
        annotations=annotations,
        source=Source(file=EVAL_SET_FILE, index=number - 1),
        meta={"entity_eval_item": item["id"]},
    )


def write_eval_set(out: Path | str, split: str | None = None) -> Path:
    """The labelled set as duologue dialogues (`.jsonl` or `.parquet`), for `duologue annotate entities OUT --evaluate`."""
    return write_dialogues(load_eval_set(split=split), out)
