"""A rule-based MutualFriends agent that reads and writes natural language.

It follows the design of CoCoA's rule bot (He et al. 2017) and adds what people do that the
original lacked:

* **Weights.** A weight per entity (attribute, value) and a bonus per friend; a friend's score is
  its bonus plus the weights of its values, and the softmax of the scores is the agent's belief
  about which of its friends is the mutual one. Partner mentions raise entity weights (more for
  "3 of mine", "most", "all"); negations ("none of mine work at Molycorp", "nobody likes hiking",
  a bare "no" to its question) cut them so far that those friends drop out; "all my friends like
  indoors" drops every friend with another value; a description of one friend ("one went to rice
  and likes indoors") raises the friends that fit all of it.
* **Selecting.** It copies the partner's selection when it holds that friend (a record in both
  lists is the mutual friend), selects a friend the partner fully describes, or that the partner
  confirms, and otherwise selects its heaviest friend once the belief in it is high (or only one
  is left). After a wrong selection (the task's feedback) that friend is removed.
* **Talking.** Each message answers what the partner asked (counts, or the matching friends in
  full when there are one or two, or "none of mine ..."), then adds one move of its own: what all
  its remaining friends share ("all my friends left are indoor people"), its heaviest entity with
  a question about another ("I have a lot of friends at Yale. anyone who likes hiking?",
  "do you have someone working at Google in the morning?"), or, once few friends are left, a full
  description of its best candidate. Every move has several phrasings, chosen with the agent's rng.

Understanding lives in `linking.py`; this module only decides and writes. The agent reads the
world only through its observations: its friends, the public attributes, the transcript and the
task's feedback on its own wrong selections.
"""

from __future__ import annotations

import math
import random
import re
from collections import Counter
from functools import lru_cache
from typing import Any

from duologue.core import actions
from duologue.core.agent import Agent
from duologue.core.schema import Message, Select
from duologue.core.task import Observation, Task
from duologue.tasks.mutualfriends import rules
from duologue.tasks.mutualfriends.linking import Entity, EntityLinker, Mention, Parse, curated_aliases, default_lexicon, normal_words
from duologue.tasks.mutualfriends.task import attribute_names, wrong_selection_note

Pattern = dict[str, set[str]]
"""Attribute -> acceptable values: what a question or a description says about one friend."""

KILL = -12.0
"""Score change that rules a friend out (a negation); scores at or below `DEAD` count as ruled out."""
DEAD = -6.0
SELECT_BELIEF = 0.8
"""Select the heaviest friend once the belief in it reaches this."""
DESCRIBE_BELIEF = 0.4
"""Describe the heaviest friend in full once the belief in it reaches this (or few friends are left)."""
DESCRIBE_LEFT = 3
GUESS_AFTER = 8
"""After this many messages of its own, the agent selects its best guess rather than talk on."""
CORRECTION = re.compile(r"\b(?:i meant|i mean|meant to say|sorry,? (?:i|that|my)|actually|correction|typo|scratch that|my bad|wait,? no|oops)\b")
"""Words with which people correct what they just said (`sorry, I meant Rice, not Yale`)."""
GENERIC_NAME_WORDS = frozenset(
    """
    university college institute school academy center laboratories laboratory labs inc inc. corporation corp company co
    group holdings technologies technology systems international services bank partners industries associates
    of the and at in for &
    """.split()
)
"""Words that never end a short form of a school or company: `Young University` or `Laboratories` alone name nothing."""
PLACE_HEADS = frozenset({"New York", "Indiana"})
"""Heads of school names that, alone, name a place rather than the school."""
VALUE_LIST_SIZE = {"Time Preference": 3, "Location Preference": 2}
"""How many values an attribute has; other attributes are treated as open lists."""
OPEN_LIST_SIZE = 15

# --------------------------------------------------------------------------- phrasing

VERBS: dict[str, list[tuple[str, str]]] = {
    # (plural subject, singular subject); {v} is the value as written
    "Name": [("are named {v}", "is named {v}"), ("are called {v}", "is called {v}")],
    "School": [("went to {v}", "went to {v}"), ("studied at {v}", "studied at {v}"), ("graduated from {v}", "graduated from {v}"), ("are from {v}", "is from {v}")],
    "Major": [("studied {v}", "studied {v}"), ("majored in {v}", "majored in {v}"), ("are {v} majors", "is a {v} major")],
    "Company": [("work at {v}", "works at {v}"), ("work for {v}", "works for {v}"), ("are employed at {v}", "is employed at {v}")],
    "Hobby": [("like {v}", "likes {v}"), ("are into {v}", "is into {v}"), ("enjoy {v}", "enjoys {v}")],
    "Time Preference": [("prefer the {v}", "prefers the {v}"), ("like {v}s", "likes {v}s"), ("are {v} people", "is a {v} person")],
    "Location Preference": [("prefer {v}s", "prefers {v}s"), ("like being {v}s", "likes being {v}s"), ("are {v} people", "is an {v} person")],
}
GREETINGS = ["Hi!", "Hey!", "Hello!", "Hi there.", "Hey there!"]
ACKS = ["Ok.", "Okay.", "Got it.", "I see.", "Hmm.", "Alright."]
NONE_OF_MINE = ["None of my friends {p}.", "Nobody on my list {s}.", "I don't have anyone who {s}.", "No one of mine {s}."]
NONE_LEFT = ["None of my remaining friends {p}.", "Nobody I have left {s}.", "None of the friends I have left {p}."]
NO_MATCH = ["No, nobody like that.", "No, I don't have anyone like that.", "Nope, no one matches that.", "No, not that combination."]
NO_FRIEND = ["No, I don't have that one.", "No, not on my list.", "Nope, I don't have them."]
YES_COUNT = ["Yes, {n} of my friends {p}.", "Yes, I have {n} who {p}.", "Yep, {n} of mine {p}."]
YES_FEW = ["Yes, {n}.", "Yes, I have {n}.", "Yep, {n} of them."]
MANY = ["I have a lot of friends who {p}.", "Most of my friends {p}.", "Many of mine {p}.", "A lot of my friends {p}."]
SOME = ["{n} of my friends {p}.", "I have {n} friends who {p}.", "{n} of mine {p}."]
ONE = ["One of my friends {s}.", "I have one friend who {s}.", "Just one of mine {s}."]
ALL = ["All my friends {p}.", "All of my friends {p}."]
ALL_LEFT = ["All of my friends left {p}.", "All the ones I have left {p}.", "All my remaining friends {p}."]
ASK_ONE = ["Anyone who {s}?", "Do you have anyone who {s}?", "Any of yours {p}?", "Any friends of yours who {p}?", "Is there someone who {s}?"]
ASK_TWO = ["Do you have someone who {s1} and {s2}?", "Anyone who {s1} and {s2}?", "Any friend who {s1} and {s2}?"]
DESCRIBE = ["Do you have {d}?", "Is {d} on your list?", "How about {d}?", "Do you know {d}?"]
TELL_ATTRIBUTE = ["Mine {p}.", "My friends {p}.", "Mostly they {p}."]
THE_ONE = ["I selected {d}.", "It's {d}, I picked them.", "I chose {d}."]


def _numeral(n: int, rng: random.Random) -> str:
    words = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve"]
    return words[n] if n < len(words) and rng.random() < 0.5 else str(n)


def _capitalise(text: str) -> str:
    return text[:1].upper() + text[1:]


def _join(parts: list[str], conjunction: str = "and") -> str:
    if len(parts) <= 1:
        return "".join(parts)
    return ", ".join(parts[:-1]) + f" {conjunction} " + parts[-1]


def _join_values(values: list[str], conjunction: str = "or") -> str:
    """Values of one attribute in one phrase; no commas, so a listener keeps them in one clause."""
    return f" {conjunction} ".join(values)


def fits(friend: dict[str, Any], pattern: Pattern) -> bool:
    """Whether a friend has, for every attribute of the pattern, one of its values."""
    return all(friend.get(attribute) in values for attribute, values in pattern.items())


class Speaker:
    """Writes the agent's moves, varying words and value forms with the agent's rng."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def value(self, attribute: str, value: str) -> str:
        """The value as a person might write it: sometimes a short, unambiguous form, sometimes lower case."""
        if attribute in VALUE_LIST_SIZE or attribute == "Hobby":
            return value.lower()
        value = value.replace(",", "")  # "University of California, Los Angeles": a comma would split the name for a reader
        short = _short_forms(attribute, value) if attribute in ("School", "Company") else []
        if short and self.rng.random() < 0.3:
            return self.rng.choice(short)
        return value  # a name as the list writes it

    def verb(self, attribute: str, value: str, plural: bool) -> str:
        plural_form, singular_form = self.rng.choice(VERBS.get(attribute, [("have {v}", "has {v}")]))
        return (plural_form if plural else singular_form).format(v=self.value(attribute, value))

    def values(self, attribute: str, values: list[str], plural: bool) -> str:
        plural_form, singular_form = self.rng.choice(VERBS.get(attribute, [("have {v}", "has {v}")]))
        written = _join_values([self.value(attribute, v) for v in values])
        return (plural_form if plural else singular_form).format(v=written)

    def friend(self, friend: dict[str, Any], attributes: list[str]) -> str:
        """One friend as a noun phrase: "Tyler, who went to Rice, works at Molycorp and likes hiking"."""
        clauses = [self.verb(a, str(friend[a]), plural=False) for a in attributes if a != "Name" and a in friend]
        if "Name" in attributes and "Name" in friend:
            head = str(friend["Name"])
            return f"{head}, who {_join(clauses)}" if clauses else head
        return f"someone who {_join(clauses)}"

    def pick(self, templates: list[str], **fields: str) -> str:
        return self.rng.choice(templates).format(**fields)


@lru_cache(maxsize=4096)
def _short_forms(attribute: str, value: str) -> list[str]:
    """Shorter ways to write a value that the project's lexicon maps to this value alone: the head of the
    name as the list writes it, when only generic words follow (`Brigham Young` University, `Abbott`
    Laboratories, `McKinsey` & Company; never `Young University` or `Laboratories`), and a school's
    hand-written initials (`BYU`)."""
    lexicon = default_lexicon()

    def unique(phrase: tuple[str, ...]) -> bool:
        entries = lexicon.phrases.get(phrase, [])
        return len(entries) == 1 and (entries[0].attribute, entries[0].value) == (attribute, value) and not entries[0].needs_capital

    written = value.split()
    found = []
    for j in range(1, len(written)):
        head, rest = written[:j], written[j:]
        if head[-1].lower().strip(",.") in GENERIC_NAME_WORDS or head[0].lower() in GENERIC_NAME_WORDS:
            continue
        if "of" in (word.lower() for word in rest) or " ".join(head) in PLACE_HEADS:
            continue  # `Massachusetts` Institute of Technology, `New York` University: a place, not the school
        if all(word.lower().strip(",.") in GENERIC_NAME_WORDS or word == "&" for word in rest):
            text = " ".join(head).rstrip(",")
            if len(text) >= 3 and unique(normal_words(text)):
                found.append(text)
    if attribute == "School":  # UNC, MIT, UCLA: how people write schools; company tickers are not
        for alias in curated_aliases(attribute, value):
            phrase = normal_words(alias)
            if len(phrase) == 1 and 3 <= len(phrase[0]) <= 4 and unique(phrase):
                # initials are capitals (`BYU`); a clipped word is a name (`Penn` from Pennsylvania)
                clipped = any(word.lower().startswith(phrase[0]) for word in written)
                found.append(phrase[0].capitalize() if clipped else phrase[0].upper())
    return list(dict.fromkeys(found))


# --------------------------------------------------------------------------- the agent


class MutualFriendsRuleAgent(Agent):
    """Finds the mutual friend by weighing entities, asking, answering and selecting when confident."""

    name = "rule"

    def reset(self, task: Task, party: str, rng: random.Random) -> None:
        super().reset(task, party, rng)
        self.speaker = Speaker(rng)
        self.started = False

    # ------------------------------------------------------------------ state

    def _start(self, observation: Observation) -> None:
        self.friends: list[dict[str, Any]] = [dict(f) for f in observation.private.get("friends", [])]
        self.attributes: list[str] = [a for a in attribute_names(observation.public, self.friends)]
        self.linker = EntityLinker.for_friends(self.friends, self.attributes)
        self.weights: dict[Entity, float] = {}
        self.bonus: list[float] = [0.0] * len(self.friends)
        self.wrong: set[int] = set()
        self.seen_events = 0
        self.seen_feedback = 0
        self.sent = 0
        self.last_question: Pattern | None = None
        self.last_described: int | None = None
        self.told: set[str] = set()
        self.asked: list[Pattern] = []
        self.pending_questions: list[Pattern] = []
        self.pending_attributes: list[str] = []
        self.pending_absent: list[Entity] = []
        self.changed: dict[Entity, float] = {}
        """Each entity weight the message being read changed, with its weight before (to undo on a correction)."""
        self.last_changed: dict[Entity, float] = {}
        self.partner_has: set[Entity] = set()
        """Entities the partner said (or showed) its friends have."""
        self.certain: int | None = None
        """A friend known to be the mutual one (the partner holds it too)."""
        self.my_selection: int | None = None
        self.started = True

    def score(self, index: int) -> float:
        friend = self.friends[index]
        return self.bonus[index] + sum(self.weights.get((a, str(friend.get(a))), 0.0) for a in self.attributes)

    def alive(self) -> list[int]:
        """Friends not ruled out; if evidence (or a person's slip) rules out all, the softer ones come back."""
        candidates = [i for i in range(len(self.friends)) if i not in self.wrong]
        living = [i for i in candidates if self.score(i) > DEAD]
        if living or not candidates:
            return living
        best = max(self.score(i) for i in candidates)
        return [i for i in candidates if self.score(i) >= best - 1.0]

    def belief(self) -> dict[int, float]:
        """Probability that each remaining friend is the mutual one (softmax of the scores)."""
        living = self.alive()
        if not living:
            return {}
        scores = {i: self.score(i) for i in living}
        top = max(scores.values())
        exps = {i: math.exp(s - top) for i, s in scores.items()}
        total = sum(exps.values())
        return {i: e / total for i, e in exps.items()}

    def index_of(self, item: dict[str, Any]) -> int | None:
        for i, friend in enumerate(self.friends):
            if rules.same_friend(friend, item):
                return i
        return None

    # ------------------------------------------------------------------ reading

    def _read(self, observation: Observation) -> None:
        for event in observation.transcript[self.seen_events :]:
            if isinstance(event, Select):
                if event.party == self.party:
                    self.my_selection = self.index_of(event.item)
                else:
                    self._partner_selected(event.item)
            elif isinstance(event, Message) and event.party != self.party:
                self._understand(self.linker.link(event.text))
        self.seen_events = len(observation.transcript)
        notes = observation.feedback[self.seen_feedback :]
        for note in notes:
            for i, friend in enumerate(self.friends):
                if note == wrong_selection_note(friend):
                    self.wrong.add(i)
                    if self.certain == i:
                        self.certain = None
        self.seen_feedback = len(observation.feedback)
        if self.my_selection is not None and self.my_selection not in self.wrong and self.certain is None:
            # no wrong-selection note came back: my selection is the mutual friend
            self.certain = self.my_selection

    def _partner_selected(self, item: dict[str, Any]) -> None:
        index = self.index_of(item)
        if index is not None:
            self.certain = index  # a record in both lists is the mutual friend
            return
        for attribute in self.attributes:  # the partner believes in a friend with these values
            if attribute in item:
                self._raise((attribute, str(item[attribute])), 0.5)

    def _raise(self, entity: Entity, amount: float) -> None:
        self.changed.setdefault(entity, self.weights.get(entity, 0.0))
        self.weights[entity] = self.weights.get(entity, 0.0) + amount

    def _cut_entity(self, entity: Entity, amount: float = KILL) -> None:
        self.changed.setdefault(entity, self.weights.get(entity, 0.0))
        self.weights[entity] = min(self.weights.get(entity, 0.0), 0.0) + amount

    def _retract(self, parse: Parse) -> set[Entity]:
        """A self-correction (`sorry, I meant Rice, not Yale`): undo what the previous message said about the
        values it takes back, the ones it negates or replaces with another value of the same attribute."""
        if not self.last_changed or not CORRECTION.search(parse.text.lower()):
            return set()
        restated = {e for m in parse.positives for e in self._mine(m)}
        negated = {e for m in parse.negatives for e in self._mine(m)}
        taken_back = {e for e in self.last_changed if e in negated or (e[0] in {r[0] for r in restated} and e not in restated)}
        for entity in taken_back:
            self.weights[entity] = self.last_changed[entity]
            self.partner_has.discard(entity)
            self.pending_absent = [e for e in self.pending_absent if e != entity]
        return taken_back

    def _count_weight(self, count: int) -> float:
        """What `k of mine have it` says: the mutual friend is one of the partner's N, so it has the value
        with odds k : (N - k). `only one of mine is outdoorsy` is evidence against outdoor when N > 2."""
        n = max(len(self.friends), count + 1)
        return math.log((count + 0.5) / (n - count + 0.5))

    def _shift_pattern(self, pattern: Pattern, amount: float = KILL) -> None:
        """Add `amount` to the score of every friend that fits the pattern (negative rules them out)."""
        for i, friend in enumerate(self.friends):
            if fits(friend, pattern):
                self.bonus[i] += amount

    def _mine(self, mention: Mention) -> list[Entity]:
        """The entities a mention may name that this agent's scenario has (ambiguous words give several)."""
        return [e for e in (mention.entity, *mention.alternatives) if e[0] in self.attributes]

    def _understand(self, parse: Parse) -> None:
        self.changed = {}
        taken_back = self._retract(parse)
        self._weigh(parse, taken_back)
        self.last_changed = self.changed

    def _weigh(self, parse: Parse, taken_back: set[Entity]) -> None:
        # a bare yes / no answers the agent's own last question
        if parse.reply and self.last_question is not None:
            if parse.reply == "no":
                if len(self.last_question) == 1:
                    ((attribute, values),) = self.last_question.items()
                    for value in values:
                        self._cut_entity((attribute, value))
                else:
                    self._shift_pattern(self.last_question)
            else:
                matching = [i for i in self.alive() if fits(self.friends[i], self.last_question)]
                if set(self.last_question) >= set(self.attributes) and len(matching) == 1:
                    self.certain = matching[0]
                self._shift_pattern(self.last_question, 1.5)
        self.last_question = None

        by_clause: dict[int, list[Mention]] = {}
        for mention in parse.mentions:
            by_clause.setdefault(mention.clause, []).append(mention)
        for clause in by_clause.values():
            negated = [m for m in clause if m.negated and self._mine(m) and not set(self._mine(m)) & taken_back]
            if not negated:
                continue
            positive = [m for m in clause if not m.negated and self._mine(m)]
            attributes = {m.attribute for m in negated}
            if positive:  # "my brandon isn't an evening person": that combination is absent
                for m in negated:
                    pattern: Pattern = {p.attribute: {e[1] for e in self._mine(p)} for p in positive}
                    pattern.setdefault(m.attribute, set()).update(e[1] for e in self._mine(m))
                    self._shift_pattern(pattern, KILL / 2)
            elif len(attributes) > 1:  # "nobody at Google in the morning": the conjunction is absent
                pattern = {}
                for m in negated:
                    pattern.setdefault(m.attribute, set()).update(e[1] for e in self._mine(m))
                self._shift_pattern(pattern)
            else:  # "none of mine like hiking or kayaking": each is absent
                for m in negated:
                    entities = self._mine(m)
                    for entity in entities:
                        self._cut_entity(entity, KILL if len(entities) == 1 else KILL / 4)

        for attribute, listed in parse.exhaustive.items():
            if attribute in self.attributes:
                for i, friend in enumerate(self.friends):
                    if str(friend.get(attribute)) not in listed:
                        self.bonus[i] += KILL

        for mention in parse.positives:
            entities = self._mine(mention)
            if not entities:
                continue
            if mention.count is not None and not mention.question:
                amount = self._count_weight(mention.count)
            elif mention.count is not None:
                amount = 0.7
            elif mention.quantity in ("all", "many"):
                amount = 1.5
            else:
                amount = 0.7 if mention.question else 1.0
            for entity in entities:
                self._raise(entity, amount / len(entities))
            if len(entities) == 1:
                self.partner_has.add(entities[0])
            held = [e for e in entities if any(self._has(i, e) for i in self.alive())]
            if not mention.question and not held and len(entities) == 1 and mention.attribute not in parse.exhaustive:
                self.pending_absent.append(entities[0])

        for group in parse.groups():
            pattern = {}
            for mention in group:
                for attribute, value in self._mine(mention):
                    pattern.setdefault(attribute, set()).add(value)
            if not pattern:
                continue
            if any(m.question for m in group):
                self.pending_questions.append(pattern)
            if len(pattern) >= 2:
                matching = [i for i in range(len(self.friends)) if i not in self.wrong and fits(self.friends[i], pattern)]
                if set(pattern) >= set(self.attributes) and len(matching) == 1:
                    self.certain = matching[0]  # the partner holds a friend identical to one of mine
                for i in matching:
                    self.bonus[i] += 1.0 * (len(pattern) - 1)
        for attribute in parse.asked_attributes:
            if attribute in self.attributes:
                self.pending_attributes.append(attribute)

    def _has(self, index: int, entity: Entity) -> bool:
        return str(self.friends[index].get(entity[0])) == entity[1]

    # ------------------------------------------------------------------ deciding

    def act(self, observation: Observation) -> actions.Action:
        if not self.started:
            self._start(observation)
        self._read(observation)
        selection = self._choose_selection()
        if selection is not None:
            self.my_selection = selection
            self.pending_questions.clear()
            return actions.Select(item=dict(self.friends[selection]))
        text = re.sub(r"\b([Aa]) (?=[aeiouAEIOU])", r"\1n ", self._compose())  # "an afternoon person"
        self.sent += 1
        return actions.Say(text=text)

    def _choose_selection(self) -> int | None:
        if self.certain is not None:
            return None if self.my_selection == self.certain else self.certain
        belief = self.belief()
        if not belief:
            return None
        best = max(belief, key=lambda i: (belief[i], -i))
        if self.my_selection == best:
            return None
        if len(belief) == 1 or belief[best] >= SELECT_BELIEF:
            return best
        if self.sent >= GUESS_AFTER and self.sent % 2 == 0:
            return best
        return None

    # ------------------------------------------------------------------ writing

    def _compose(self) -> str:
        speaker = self.speaker
        parts: list[str] = []
        if self.sent == 0 and self.rng.random() < 0.5:
            parts.append(self.rng.choice(GREETINGS))
        if self.certain is not None:
            parts.append(speaker.pick(THE_ONE, d=speaker.friend(self.friends[self.certain], self.attributes)))
            self.pending_questions.clear()
            return " ".join(parts)
        self.described_in_answer: set[int] = set()
        answered = self._answers()
        if not answered and self.sent > 0 and self.rng.random() < 0.3:
            parts.append(self.rng.choice(ACKS))
        parts.extend(answered)
        parts.extend(self._own_move())
        return " ".join(parts) or self.rng.choice(ACKS)

    def _answers(self) -> list[str]:
        """Sentences answering the partner's questions and statements since the agent last spoke."""
        speaker = self.speaker
        said: list[str] = []
        living = self.alive()
        for pattern in self.pending_questions[-2:]:
            matching = [i for i in living if fits(self.friends[i], pattern)]
            if not matching:
                absent = [(a, v) for a, vs in pattern.items() for v in vs if not any(self._has(i, (a, v)) for i in living)]
                if absent and len(pattern) < len(self.attributes):
                    for entity in absent[:2]:
                        said.append(self._none_of_mine(entity))
                else:
                    said.append(self.rng.choice(NO_FRIEND if set(pattern) >= set(self.attributes) else NO_MATCH))
                    if absent:
                        said.append(self._none_of_mine(absent[0]))
            elif len(matching) <= 2:
                said.append(speaker.pick(YES_FEW, n=_numeral(len(matching), self.rng)))
                for k, i in enumerate(matching):
                    self.described_in_answer.add(i)
                    lead = "One" if k == 0 and len(matching) > 1 else ("The other" if k else "My friend")
                    said.append(f"{lead} {self._description_clause(i)}.")
            else:
                attribute = next(iter(pattern))
                value = next(iter(pattern[attribute]))
                said.append(speaker.pick(YES_COUNT, n=_numeral(len(matching), self.rng), p=speaker.verb(attribute, value, True)))
        negated = {(a, v) for pattern in self.pending_questions[-2:] for a, vs in pattern.items() for v in vs}
        for entity in list(dict.fromkeys(e for e in self.pending_absent if e not in negated))[:2]:
            if not any(self._has(i, entity) for i in living):
                said.append(self._none_of_mine(entity))
        for attribute in self.pending_attributes[:1]:
            counts = Counter(str(self.friends[i][attribute]) for i in living)
            values = [v for v, _ in counts.most_common(3)]
            said.append(speaker.pick(TELL_ATTRIBUTE, p=speaker.values(attribute, values, True)))
        self.pending_questions.clear()
        self.pending_absent.clear()
        self.pending_attributes.clear()
        negations = [x for x in said if x.startswith(("None", "Nobody", "No one", "I don't have anyone"))]
        extra = set(negations[2:])
        return [x for x in said if x not in extra][:4]

    def _none_of_mine(self, entity: Entity) -> str:
        """ "None of my friends ..." when no friend has it; "none of my remaining friends ..." when only ruled-out ones do."""
        templates = NONE_LEFT if any(self._has(i, entity) for i in range(len(self.friends))) else NONE_OF_MINE
        return self.speaker.pick(templates, p=self.speaker.verb(*entity, True), s=self.speaker.verb(*entity, False))

    def _description_clause(self, index: int) -> str:
        """ "is Tyler, who went to Rice and likes hiking" without the leading "someone who"."""
        friend = self.friends[index]
        clauses = [self.speaker.verb(a, str(friend[a]), plural=False) for a in self.attributes if a != "Name"]
        if "Name" in self.attributes:
            return f"is {friend['Name']}, who {_join(clauses)}" if clauses else f"is {friend['Name']}"
        return _join(clauses)

    def _own_move(self) -> list[str]:
        speaker = self.speaker
        belief = self.belief()
        living = sorted(belief, key=lambda i: (-belief[i], i))
        if not living:
            return []
        best = living[0]
        described_before = self.last_described == best or best in self.described_in_answer
        if (len(living) <= DESCRIBE_LEFT or belief[best] >= DESCRIBE_BELIEF or self.sent >= 2) and not described_before:
            self.last_described = best
            self.last_question = {a: {str(self.friends[best][a])} for a in self.attributes}
            return [speaker.pick(DESCRIBE, d=speaker.friend(self.friends[best], self.attributes))]
        said: list[str] = []
        shared = self._shared_attribute(living)
        if shared is not None:
            attribute, values = shared
            self.told.add(attribute)
            templates = ALL if len(living) + len(self.wrong) >= len(self.friends) and not self._ruled_out() else ALL_LEFT
            said.append(speaker.pick(templates, p=speaker.values(attribute, values, True)))
        question = self._question(living, belief, exclude={shared[0]} if shared else set())
        if question is not None:
            self.asked.append(question)
            self.last_question = question
            items = list(question.items())
            if len(items) == 1:
                attribute, asked = items[0]
                value = next(iter(asked))
                if shared is None:
                    said.append(self._inform_heaviest(living, exclude=attribute))
                said.append(speaker.pick(ASK_ONE, p=speaker.verb(attribute, value, True), s=speaker.verb(attribute, value, False)))
            else:
                (a1, v1), (a2, v2) = [(a, next(iter(v))) for a, v in items[:2]]
                said.append(speaker.pick(ASK_TWO, s1=speaker.verb(a1, v1, False), s2=speaker.verb(a2, v2, False)))
        elif not said and not described_before:
            self.last_described = best
            self.last_question = {a: {str(self.friends[best][a])} for a in self.attributes}
            said.append(speaker.pick(DESCRIBE, d=speaker.friend(self.friends[best], self.attributes)))
        elif not said:
            nxt = living[1] if len(living) > 1 else best
            self.last_described = nxt
            self.last_question = {a: {str(self.friends[nxt][a])} for a in self.attributes}
            said.append(speaker.pick(DESCRIBE, d=speaker.friend(self.friends[nxt], self.attributes)))
        return [s for s in said if s]

    def _ruled_out(self) -> bool:
        return any(self.score(i) <= DEAD for i in range(len(self.friends)))

    def _shared_attribute(self, living: list[int]) -> tuple[str, list[str]] | None:
        """The attribute whose values among the remaining friends rule out most of the partner's list
        (told as "all my friends ..."), if telling it is worth a sentence."""
        best: tuple[float, str, list[str]] | None = None
        for attribute in self.attributes:
            if attribute in self.told:
                continue
            counts = Counter(str(self.friends[i][attribute]) for i in living)
            size = VALUE_LIST_SIZE.get(attribute, OPEN_LIST_SIZE)
            if len(counts) >= size or len(counts) > 3:
                continue
            share = len(counts) / size
            if best is None or share < best[0]:
                best = (share, attribute, [v for v, _ in counts.most_common()])
        return (best[1], best[2]) if best else None

    def _inform_heaviest(self, living: list[int], exclude: str) -> str:
        counts = Counter((a, str(self.friends[i][a])) for i in living for a in self.attributes if a != exclude and a != "Name")
        if not counts:
            return ""
        (attribute, value), n = max(counts.items(), key=lambda kv: (kv[1], kv[0]))
        if n >= max(3, len(living) // 2):
            return self.speaker.pick(MANY, p=self.speaker.verb(attribute, value, True))
        if n == 1:
            return self.speaker.pick(ONE, s=self.speaker.verb(attribute, value, False))
        return _capitalise(self.speaker.pick(SOME, n=_numeral(n, self.rng), p=self.speaker.verb(attribute, value, True)))

    def _question(self, living: list[int], belief: dict[int, float], exclude: set[str]) -> Pattern | None:
        """The entity (or pair) to ask about: the one whose expected "no" rules out most belief.

        A "no" rules out the mass m of friends with the entity, and comes with probability about
        (1 - m) times the chance that none of the partner's other friends has it, which is high for
        open lists (schools, hobbies) and low for morning/afternoon/evening or indoor/outdoor.
        """
        options: list[tuple[float, Pattern]] = []
        for attribute in self.attributes:
            if attribute in exclude or attribute in self.told:
                continue
            size = VALUE_LIST_SIZE.get(attribute, OPEN_LIST_SIZE)
            absent_elsewhere = (1 - 1 / size) ** 7
            mass: dict[str, float] = {}
            for i in living:
                value = str(self.friends[i][attribute])
                mass[value] = mass.get(value, 0.0) + belief[i]
            for value, m in mass.items():
                pattern = {attribute: {value}}
                if pattern in self.asked or (attribute, value) in self.partner_has or m >= 0.999:
                    continue
                options.append((m * (1 - m) * absent_elsewhere, pattern))
        if not options:
            return None
        options.sort(key=lambda o: (-o[0], sorted((a, sorted(v)) for a, v in o[1].items())))
        gain, pattern = options[0]
        if gain < 0.05 and len(options) > 1 and self.rng.random() < 0.5:
            second = next((p for _, p in options[1:] if not set(p) & set(pattern)), None)
            if second is not None:
                combined = {**pattern, **second}
                if any(fits(self.friends[i], combined) for i in living) and combined not in self.asked:
                    return combined
        return pattern
