"""Reading what a CaSiNo message says about its speaker's needs (`understanding.read(...).needs` and
`.prefers`): cue phrases per clause, comparisons, rankings, asks, trades and gifts."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from duologue.tasks.casino.rules import ISSUES
from duologue.tasks.casino.understanding_words import FILLER, IMPLICIT_WORDS, NUMBER_WORDS, issue_of_word

if TYPE_CHECKING:
    from duologue.tasks.casino.understanding import Reading

# ---------------------------------------------------------------------------- needs

_CUES: list[tuple[str, float]] = [
    (r"(useless|no use|of no use|pointless|worthless|not useful|not much use)", -3),
    (r"(kinda|kind of|really|sort of|totally)? ?(my|our) (thing|jam|bag|game|deal|focus|go to)", 3),
    (r"(need|want|make sure)( \w+){0,3} (have |get )?enough", 2.5),
    (r"(not|never) (bring|brought|have|pack|packed|carry|carrying|get|got|find|found) (enough|any|much)", 3),
    (r"(can not|could not|not) (give up|part with|spare|share|budge on|do without|go without)( any| on)?", 3),
    (r"(much|great|big|real|serious|dire) need (for|of)|dead set on|(can not|could not|not) (be|live|survive|go|do|manage) without", 3),
    (r"(wiggle room|flexible|flexibility|negotiate|bend|compromise)( a little| a bit)?( on| with)?", -2),
    (r"willing to (give up|part with|spare|give away|let go of|trade away)(?! (only|just|a maximum of|at most|no more than))", -3),
    (r"you can (have|take|keep) as (much|many)", -3),
    # low: longest phrases first so "not need much" wins over "need"
    (r"(do|does|did) not (really |actually |even )?(need|want|require|use|care about)( that| as)?( much| many| a lot| any| more)?", -3),
    (r"(do|does) not (really |actually )?(need|want|require)", -3),
    (r"(only |just )?(need|needs|want|require) (only |just )?(a little|a bit|a few|a small amount|very little)(?! (extra|more|additional))", -2),
    (r"not (really |that |very |as |so |too )?(important|needed|necessary|essential|crucial|a priority|a big deal|a concern|an issue|a problem|a need|much of a need)", -3),
    (r"(is|are) not (really |that |very |a )?(big )?(deal|concern|priority|issue)", -3),
    (r"(?<!at )(least|lowest|last|bottom)( priority| important| concern| on my list)?", -3),
    (r"(low|lower|lowest) (priority|on (my|the) list)", -3),
    (r"(least|less) (important|needed|necessary|of a priority)", -3),
    (r"(can|could|would|will) (easily |happily |definitely |probably |totally )?(spare|give up|part with|do without|go without|live without|skip|share|let go)", -3),
    (r"no need (for|of)", -3),
    (r"(?<!to )(?<!if i )(?<!if we )(have|got|brought|packed|carry|carrying|own|bought) (plenty|enough|lots|a lot|tons|loads|more than enough|extra|some|our own|my own)", -3),
    (r"(plenty|enough|more than enough|tons|loads) of", -2),
    (r"already (have|got|brought|packed|stocked|bought)", -3),
    (r"(do|does) not (matter|care)|not (worried|concerned|bothered) about|not much|not many|not a lot|barely|hardly", -2),
    (r"(i am|we are|we re|i m|am|are) (good|fine|set|ok|okay|covered) (on|with|for)", -3),
    (r"you can (have|take|keep) (all|the|it|them|most)", -2),
    (r"(less|fewer)", -1.5),
    # high
    (r"(top|highest|main|biggest|first|number one|primary|most important) (priority|need|concern|choice|thing|item)", 3),
    (r"(my|our) (top|highest|main|biggest|first|number one|primary)( priority| need| concern| pick| choice)?", 3),
    (r"as (much|many)( \w+){0,2} as (possible|i can|we can|you can spare)", 3),
    (r"(need|needed|want|wanted|value|valued)( the)? \w+ (the )?most", 3),
    (r"most important|matters most|the most|need most|most of all|above all|more than anything|really really|top of (my|the) list|priority number one|number one|first priority|first choice", 3),
    (r"(really|badly|desperately|definitely|seriously|absolutely|truly|especially|urgently|dearly) (need|needs|want|require|could use|would like|hoping|hope)", 3),
    (r"(need|want|require)s? (it |them |that |some |this )?(badly|desperately|the most|more|a lot|so much)", 3),
    (r"(can not|could not|not) (live|survive|go|do|manage) without", 3),
    (r"(badly|desperately|urgently)", 3),
    (r"(crucial|critical|essential|vital|necessary|important|priority|a must|must have|necessity)", 2),
    (r"(need|use|go through|drink|eat|burn) (a lot|lots|plenty|tons|loads|extra|more)", 3),
    (r"(running|ran|run) (low|out|short)|short on|out of|lost (all|most|our|my)|low on", 3),
    (r"(worried|concerned|nervous|anxious) about|afraid of running", 2),
    (r"(second|middle|medium|moderate|next|somewhat|a little|a bit|kind of|sort of|then)", 1),
    (r"(need|needs|needed|want|wants|wanted|require|could use|would like|would love|hoping for|looking for|love|prefer|like)", 1.5),
    (r"(more|extra|additional)", 1),
    (r"(mostly|mainly|primarily|most|especially|really) interested in", 3),
    (r"interested in", 1.5),
    (r"(greatly|really|truly|very much|so much) appreciate", 2),
    (r"(dependent|reliant) on|\w+ dependent", 2),
    (r"(over|around|by|at) (a |the |our |my )?(fire|fires|campfire|campfires|bonfire)", 1.5),
    (r"would (be|come in) (great|nice|awesome|wonderful|helpful|handy|appreciated|perfect|ideal|a big help|a great help|very helpful|really helpful)", 1.5),
    (r"(build|make|start|light|have)( a| some)?( \w+)? (fire|fires|campfire|campfires|bonfire)", 1.5),
]
_CUE_PATTERNS = [(re.compile(r"\b" + pattern + r"\b"), weight) for pattern, weight in _CUES]
ORDINALS: dict[str, float] = {"first": 3.0, "top": 3.0, "second": 1.0, "middle": 1.0, "next": 1.0, "third": -3.0, "last": -3.0, "least": -3.0, "bottom": -3.0}
"""Ranks in short clauses ("water first", "food last") read as priority levels."""
_NEGATORS = re.compile(r"\b(not|no(?! (i|we)\b)|never|hardly|without)\b")
_ABOUT_PARTNER = re.compile(r"^(?:.* )?(you|your|u)\b")
_SPLITTERS = {",", "but", "and", "while", "whereas", "though", "although", "however", "so", "because", "since", "&", "plus", "also", ":", "if"}
_JOINERS = {"and", "but", "so", "if", "because", "that", "then", "when", "as", "since", "what", "than", "do", "can", "could", "would",
            "should", "will", "may", "might", "how", "about", "where", "which", "who", "did", "does", "am", "think", "guess", "hope"}
"""Words after which `I` continues a clause; after any other word it starts a new one ("I don't need firewood i prefer food")."""


def _clauses(sentence: list[str]) -> list[list[str]]:
    out: list[list[str]] = [[]]
    for t in sentence:
        if t in {"i", "we"} and len(out[-1]) >= 3 and out[-1][-1] not in _JOINERS:
            out.append([])
        if t in _SPLITTERS:
            if out[-1]:
                out.append([])
            if t in {"also"}:
                out[-1].append(t)
        elif t not in {".", "!", "?", ";"}:
            out[-1].append(t)
    return [c for c in out if c]


def _cue_score(clause_text: str) -> float | None:
    """The strongest cue in a clause (negation flips a positive cue), or None if no cue."""
    taken: list[tuple[int, int]] = []
    best: float | None = None
    for pattern, weight in _CUE_PATTERNS:
        for match in pattern.finditer(clause_text):
            if any(match.start() < end and start < match.end() for start, end in taken):
                continue
            taken.append((match.start(), match.end()))
            value = weight
            if weight > 0:
                before = clause_text[max(0, match.start() - 18): match.start()]
                if _NEGATORS.search(before):
                    value = -min(weight, 2.5)
            if best is None or abs(value) > abs(best) or (abs(value) == abs(best) and value < 0):
                best = value
    return best


_COMPARE = [
    # (pattern, which group is preferred)
    (re.compile(r"\b(\w+) (is |are )?(more|much more|way more|a lot more) (important|needed|necessary|of a priority|valuable)? ?(to me |for me |for us |to us )?than (the )?(\w+)"), (1, 7)),
    (re.compile(r"\b(need|want|value|prefer|like) (the )?(\w+) (much |a lot |way )?more than (the )?(\w+)"), (3, 6)),
    (re.compile(r"\bmore (\w+) than (the )?(\w+)"), (1, 3)),
    (re.compile(r"\b(prefer|rather have|rather take|rather get|choose) (the )?(\w+) (over|to|than|instead of) (the )?(\w+)"), (3, 6)),
    (re.compile(r"\b(\w+) (over|before|instead of|rather than) (the )?(\w+)"), (1, 4)),
    (re.compile(r"\b(\w+) (is |are )?(less|not as) (important|needed|necessary|of a priority)? ?(to me |for me |for us |to us )?(than|as) (the )?(\w+)"), (8, 1)),
    (re.compile(r"\b(need|want) (the )?(\w+) less than (the )?(\w+)"), (5, 3)),
    (re.compile(r"\bless (\w+) than (the )?(\w+)"), (3, 1)),
]
_RANKING_WORDS = re.compile(r"\b(then|followed|priorit\w*|order|rank\w*|first|second|third|last|after|>)\b|>")


_ASK_ME = re.compile(
    r"\b((could|can|may|might) (i|we) (get|have|take|ask for)|(think|if|wonder|wondering|whether) (i|we) (could|can|might) (get|have|take)|ask for|asking for|hoping for|(throw|toss|add|put) in|(throw|toss|add)( \w+){0,3} in)"
    r"(?:(?! either)(?! or) \w+){0,5}? (?P<item>food|water|firewood|wood)\b"
)
_FOR_ME_ITS = re.compile(r"\bfor (me|us),? (it s|its|it is|that s|thats|that is|it would be|it d be)( definitely| probably| really)? (the )?(?P<item>\w+)")
_ASK_FOR = re.compile(r"\b(do|would|could|can|will) you (happen to )?(have|spare|give me|part with|share)( any| some| extra| a little| a bit of| one| 1)? (?P<item>\w+)")
_GIVE_AWAY = re.compile(r"\b(?P<neg>(not|never) (\w+ )?)?(give|offer|send|hand)( you| u| y all)(?P<rest>( \w+){1,5})")
_PARTNER_NEED = re.compile(r"\b(you|u) (\w+ ){0,2}(need|needs|want|wants|use|like|prefer|require)\b")
_FOR_PARTNER = re.compile(r"\b(priority|important|crucial|needed|necessary|essential)( \w+)? (for|to) (you|u)\b")
_UNNEEDED_STATE = re.compile(r"\bnot (really |usually |often )?(get|feel|become)\b")
_SURE = re.compile(r"\b(for sure|definitely|absolutely|please)\b")
_TRADE = re.compile(r"\b(trade|swap|exchange|give) (you )?(\w+ )?(of )?(the )?(?P<given>\w+) (for|in exchange for|in return for) (\w+ )?(of )?(the |your )?(?P<wanted>\w+)")


def _read_sentence_needs(sentence: list[str], reading: Reading) -> None:
    text = " ".join(sentence)
    for match in _FOR_ME_ITS.finditer(text):
        issue = issue_of_word(match.group("item"))
        if issue:
            reading.needs[issue] = reading.needs.get(issue, 0.0) + 3.0  # "for us its the firewood"
    for match in _ASK_ME.finditer(text):
        issue = issue_of_word(match.group("item"))
        if issue:
            reading.needs[issue] = reading.needs.get(issue, 0.0) + 1.5  # "could I get a little extra food"
    for match in _ASK_FOR.finditer(text):
        issue = issue_of_word(match.group("item"))
        if issue:
            reading.needs[issue] = reading.needs.get(issue, 0.0) + 1.5  # "would you have any firewood?"
    for match in _TRADE.finditer(text):
        given, wanted = (issue_of_word(w) or issue_of_word(w.rstrip("s")) for w in (match.group("given"), match.group("wanted")))
        if given and wanted and given != wanted:
            reading.prefers.append((wanted, given))  # "i can trade you 3 waters for 3 woods"
            reading.needs[wanted] = reading.needs.get(wanted, 0.0) + 1.5
            reading.needs[given] = reading.needs.get(given, 0.0) - 1.5
    _read_giving(text, reading)
    if "?" in sentence and _ABOUT_PARTNER.search(text) and not re.search(r"\b(i|we|my|our|me|us)\b", text):
        return  # a question about the partner ("do you need water?") says nothing about the speaker
    pairs = _comparisons(text)
    if pairs:
        reading.prefers.extend(pairs)
        for more, less in pairs:
            reading.needs[more] = reading.needs.get(more, 0.0) + 1.0
            reading.needs[less] = reading.needs.get(less, 0.0) - 1.0
        return
    ranking = _ranking(sentence, text)
    if ranking:
        for k, issue in enumerate(ranking):
            reading.needs[issue] = reading.needs.get(issue, 0.0) + (2.0, 0.5, -2.0)[k]
        reading.prefers.extend((ranking[a], ranking[b]) for a in range(3) for b in range(a + 1, 3))
        return
    carried: list[str] = []
    last_issues: list[str] = []
    uncued: list[str] = []  # the issues of the clause just before, when it had no cue
    uncued_text = ""
    unplaced: float | None = None  # a strong cue of the clause just before that named no item
    listed: float | None = None  # the cue of the clause just before that named items
    for clause in _clauses(sentence):
        clause_text = " ".join(clause)
        if _about_partner(clause_text):
            carried = []
            continue
        issues = [i for t in clause if (i := issue_of_word(t))]
        issues = list(dict.fromkeys(issues))
        score = _cue_score(clause_text)
        if len(clause) <= 5 and len(issues) == 1:
            ordinal = next((ORDINALS[t] for t in clause if t in ORDINALS), None)
            if ordinal is not None and (score is None or abs(score) < 3):
                score = ordinal  # "water first, firewood second and food last"
            elif score is None and len(clause) <= 4 and _SURE.search(clause_text):
                score = 2.0  # "Firewood for sure!"
        if score is None and len(clause) <= 2 and len(issues) == 1 and unplaced is not None:
            score = unplaced  # "what I need most, food, ..."
        if score is None and issues and listed is not None and all(issue_of_word(t) or t in FILLER for t in clause):
            score = listed  # "I'm looking for food, water and firewood"
        listed = score if issues and score is not None else None
        unplaced = None
        if not issues:
            if score is not None and re.search(r"\b(it|that|them|those|this|these)\b", clause_text) and last_issues:
                issues = last_issues
            elif score is not None and uncued and clause[0] in {"i", "we"} and f"{uncued_text} {clause_text}" in text:
                issues = uncued  # "water is the one thing I can't do without", "it's the firewood we really need"
            elif score is not None and carried:
                issues = carried
            else:
                implicit = list(dict.fromkeys(IMPLICIT_WORDS[t] for t in clause if t in IMPLICIT_WORDS))
                if len(implicit) == 1:
                    # "it gets cold at night" wants firewood; "I don't get cold easily" does not
                    weight = -1.0 if (score is not None and score < 0) or _UNNEEDED_STATE.search(clause_text) else 1.0
                    reading.needs[implicit[0]] = reading.needs.get(implicit[0], 0.0) + weight
                elif score is not None and abs(score) >= 3:
                    unplaced = score
                uncued = []
                continue
        if score is None:
            # "food and water are important": a bare list of items takes the cue that follows
            carried = carried + issues if len(clause) <= 3 and not any(t in NUMBER_WORDS for t in clause) else []
            last_issues = uncued = issues
            uncued_text = clause_text
            continue
        for issue in list(dict.fromkeys(carried + issues)):
            reading.needs[issue] = reading.needs.get(issue, 0.0) + score
        carried, uncued = [], []
        last_issues = issues


def _read_implied_first(joined: str, reading: Reading) -> None:
    """"Firewood is my second preference and water is my third": the item left unnamed comes first."""
    if not re.search(r"\bsecond\b", joined) or not re.search(r"\b(third|last|least)\b", joined):
        return
    named = set(reading.mentions)
    if len(named) == 2:
        (first,) = (i for i in ISSUES if i not in named)
        reading.needs[first] = reading.needs.get(first, 0.0) + 3.0


def _about_partner(clause_text: str) -> bool:
    """Whether a clause is about the partner's needs ("you seem to need water", "if you need food",
    "it sounds like you could use some firewood", "water is a high priority for you")."""
    if re.match(r"^(you|your|u|do you|would you|can you|could you|are you|will you|if you)\b", clause_text):
        return not re.search(r"\byou can (have|take|keep)\b", clause_text)
    if _FOR_PARTNER.search(clause_text):
        return True
    return bool(_PARTNER_NEED.search(clause_text)) and not re.search(r"\b(i|we|me|us|my|our)\b", clause_text)


def _read_giving(text: str, reading: Reading) -> None:
    """What the speaker offers to give away is less needed ("I'd rather give you more firewood");
    what they refuse to give is kept ("I can't give you any water")."""
    for match in _GIVE_AWAY.finditer(text):
        words = match.group("rest").split()
        if "for" in words:
            words = words[: words.index("for")]  # "give you 2 water for 3 food": the trade is read elsewhere
        issue = next((i for w in words if (i := issue_of_word(w))), None)
        if issue:
            reading.needs[issue] = reading.needs.get(issue, 0.0) + (1.5 if match.group("neg") else -1.5)


def _comparisons(text: str) -> list[tuple[str, str]]:
    pairs: list[tuple[str, str]] = []
    for pattern, (more_group, less_group) in _COMPARE:
        for match in pattern.finditer(text):
            more = issue_of_word(match.group(more_group) or "")
            less = issue_of_word(match.group(less_group) or "")
            if more and less and more != less and (more, less) not in pairs:
                pairs.append((more, less))
        if pairs:
            break
    return pairs


def _ranking(sentence: list[str], text: str) -> list[str] | None:
    """A full ranking when a sentence lists all three items in order ("water, then food, then firewood")."""
    order = list(dict.fromkeys(i for t in sentence if (i := issue_of_word(t))))
    if len(order) != 3 or not _RANKING_WORDS.search(text):
        return None
    if re.search(r"\b(least|lowest|last|bottom|not|don|low)\b", text):
        # "firewood is least, water first": let the clause cues decide, unless "last" closes a list
        if not re.search(r"\b(and|then) (lastly|last|finally)\b|\blast(ly)? (is |would be )?(\w+)\s*[.!]?$", text):
            return None
    return order
