"""Reading the split a CaSiNo message proposes (`understanding.read(...).proposal`): who gets how many
of each item, as the speaker's own share per issue."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from duologue.tasks.casino.rules import ISSUES, PACKAGES_PER_ISSUE
from duologue.tasks.casino.understanding_clauses import _INTERJECTIONS, _elided_take, _opens_ask, _own_ask, _rest_word, _stale, _vague_sentence, elided, fragment, impersonal, swap_sides
from duologue.tasks.casino.understanding_context import Hints
from duologue.tasks.casino.understanding_markers import (
    _AUX,
    _ENDS,
    _GIFT_VERBS,
    _KEEP,
    _LIST_WORDS,
    _ME,
    _POSTFIX,
    _SUBJECT_ME,
    _SUBJECT_YOU,
    _TAKE_VERBS,
    _WISH_VERBS,
    _WORTH,
    _YOU,
    _recipient_marker,
)
from duologue.tasks.casino.understanding_shapes import for_your_need, helps_ask, implied_count, needs_none, of_list, premise_end, reasoned_list, you_do
from duologue.tasks.casino.understanding_words import FILLER, ITEM_HEADS, NUMBER_WORDS, _count_after, _count_before, issue_of_word

# ---------------------------------------------------------------------------- proposals

_THE = -1
"""A pending item named with `the` and no count: all of it, if a postfix marker (`is all yours`) gives it."""
_FIRE_WORDS = {"fire", "fires", "campfire", "campfires", "bonfire"}
_PACKAGES = {"package", "packages", "pack", "packs", "packet", "packets", "unit", "units", "bundle", "bundles", "bottle", "bottles", "item", "items", "one", "1", "2", "3"}
_PARTIAL = {"majority", "most", "some", "half", "part", "bit", "little", "portion", "share", "less", "fewer"}
"""Words before "the X" that make it a part, not all of it ("you get the majority of both the water and food")."""


def _right_after(tokens: list[str], anchor: int, i: int) -> bool:
    """Whether token i follows a recipient marker with only auxiliaries or a taking verb between ("let me
    have 2", "let me just get one")."""
    return anchor <= i and all(w in _AUX or w in _TAKE_VERBS for w in tokens[anchor:i])


def _stands_for_last(tokens: list[str], i: int) -> bool:
    """Whether token i is a counted word for the item named just before: "2 of them", "all 3 packages"."""
    t = tokens[i]
    nxt = tokens[i + 1] if i + 1 < len(tokens) else ""
    if "instead" in tokens[max(0, i - 5) : i]:
        return False  # "2 firewood instead of all of it"
    if t in {"them", "those", "it", "that"} and tokens[i - 1] == "of" and (tokens[i - 2] == "all" or _count_before(tokens, i, 0) is not None):
        return True  # "2 of them", "one package of it"
    counts = {"1", "2", "3", "one", "two", "three"}
    counted = tokens[i - 1] in counts or (tokens[i - 1] == "the" and tokens[i - 2] in {"all"})
    counted |= tokens[i - 1] in {"extra", "additional", "more"} and i >= 2 and tokens[i - 2] in counts  # "1 additional package"
    return t in {"packages", "package", "bundles", "packs", "units"} and counted and nxt != "of" and not issue_of_word(nxt)


Item = tuple[str, int | None]
"""An item and its count as the text names it (`_THE`: "the X" with no count)."""
Example = str | tuple[str, Hints]
"""A message a rule is written for, with the hints its dialogue gives when it needs them."""


@dataclass
class _Split:
    """Where reading one message's split stands, token by token (see `_proposal`)."""

    tokens: list[str]
    hints: Hints | None
    assigned: dict[str, dict[str, int]] = field(default_factory=lambda: {_ME: {}, _YOU: {}})
    orphans: list[Item] = field(default_factory=list)
    """Counted items no recipient took, for "you can have the rest"."""
    dropped: list[Item] = field(default_factory=list)
    pending: list[Item] = field(default_factory=list)
    """Items seen before any recipient in this clause."""
    pending_at: int = 0
    """Where the first pending item stands."""
    subject: str | None = None
    """The last person named as a subject in this sentence."""
    rest_for: str | None = None
    closed_by: str | None = None
    """Who the last postfix marker of this sentence gave its list to ("2 food to you")."""
    each_for: tuple[str, int] | None = None
    recipient: str | None = None
    borrowed: bool = False
    last_issue: str | None = None
    lean: dict[str, float] = field(default_factory=dict)
    carried: str | None = None
    """The recipient of the sentence before, for a list going on in fragments."""
    last_count: int | None = None
    sentence_start: int = 0
    anchor: int = 0
    i: int = 0
    found: bool = False
    premised: list[bool] = field(default_factory=list)
    """Whether each share was the partner's, read inside an "if you ..." clause."""
    if_until: int = -1
    """Where the current "if you ..." clause ends."""
    marked: bool = False
    """A recipient was named in this sentence."""
    wish: bool = False
    """The recipient came with "need"/"want": "I need the water" states a need, not a count."""
    either: bool = False
    """Inside "either the food or the water": no definite count."""
    vague: bool = False
    fired: list[str] = field(default_factory=list)
    """The rules that acted, in order (what the rule tests check)."""

    @property
    def t(self) -> str:
        return self.tokens[self.i]

    def assign(self, who: str, items: list[Item], *, postfix: bool = False) -> None:
        for issue, count in items:
            if count == _THE:
                count = PACKAGES_PER_ISSUE if postfix else None  # "the firewood is all yours"
            if count is None:
                continue
            self.assigned[who][issue] = count
            self.found = True
            self.premised.append(self.i < self.if_until and who == _YOU)

    def queue(self, item: Item) -> None:
        """An item no recipient has taken yet in this clause."""
        self.pending_at = self.i if not self.pending else self.pending_at
        self.pending.append(item)


def _other(who: str | None) -> str:
    return _ME if who == _YOU else _YOU


@dataclass(frozen=True)
class SplitRule:
    """One thing the split reader does at a token (or at a sentence's end, or to a count), and the
    messages it is written for: reading each of them, this rule acts."""

    name: str
    act: Callable[[_Split], bool]
    """Acts on the reading at its token; True when it consumed the token (the reader moves on)."""
    examples: tuple[Example, ...]


# ---------------------------------------------------------------------------- a sentence's end


def _own_or_helped_ask(r: _Split, end: int) -> bool:
    if (not r.marked and _own_ask(r.tokens, r.sentence_start, r.pending_at, end)) or helps_ask(r.tokens, r.sentence_start, r.pending_at, end):
        r.assign(_ME, r.pending)
        return True
    return False


def _ask_goes_on(r: _Split, end: int) -> bool:
    if not r.marked and r.assigned[_ME] and reasoned_list(r.tokens, r.sentence_start, end) is not None:
        r.assign(_ME, r.pending)
        return True
    return False


def _bare_swap(r: _Split, end: int) -> bool:
    if not r.marked and (sides := swap_sides(r.tokens, r.sentence_start, end, r.pending, r.lean)) is not None:
        r.assign(_ME, sides[0])
        r.assign(_YOU, sides[1])
        return True
    return False


def _fragment_goes_on(r: _Split, end: int) -> bool:
    if not r.marked and r.carried is not None and fragment(r.tokens, r.sentence_start, end):
        r.assign(r.carried, r.pending)
        return True
    return False


def _answers_how_much(r: _Split, end: int) -> bool:
    if not r.marked and r.hints is not None and r.hints.asked_amount and r.sentence_start == 0 and impersonal(r.tokens, 0, end):
        r.assign(_ME, r.pending)
        return True
    return False


@dataclass(frozen=True)
class EndRule:
    """Who takes the items a sentence named before any recipient, and the messages it is written for."""

    name: str
    act: Callable[[_Split, int], bool]
    examples: tuple[Example, ...]


SENTENCE_ENDS: tuple[EndRule, ...] = (
    EndRule("the speaker's own ask", _own_or_helped_ask, ("maybe 2 firewood, 2 water and a food?",)),
    EndRule("the ask goes on", _ask_goes_on, ("I would like 2 waters because it is hot. 2 foods because we hike.",)),
    EndRule("a bare swap", _bare_swap, (("3 packs of firewood for 3 food?", Hints(leaning=(("Food", 1.0),))),)),
    EndRule("a list in fragments", _fragment_goes_on, ("We will take 1 firewood. All the food. 2 waters.",)),
    EndRule("an answer to how much", _answers_how_much, (("all the water", Hints(asked_amount=True)),)),
)
"""The first that applies at a sentence's end decides; when none does, the items are dropped (a
later "you can have the rest" may still place them)."""


def _settle_sentence(r: _Split, end: int) -> None:
    if not r.pending:
        return
    for rule in SENTENCE_ENDS:
        if rule.act(r, end):
            r.fired.append(rule.name)
            return
    r.dropped.extend(r.pending)


def _sentence_end(r: _Split) -> bool:
    tokens, i, t = r.tokens, r.i, r.t
    opens = t in {"how", "what"} and tokens[i + 1 : i + 2] in (["about"], ["bout"]) and i > r.sentence_start and tokens[i - 1] not in _INTERJECTIONS and r.recipient is None
    if not (t in _ENDS or opens or (t == "-" and i + 1 < len(tokens) and _opens_ask(tokens, i + 1))):
        return False
    _settle_sentence(r, i)
    if r.marked:
        r.carried = r.recipient if r.recipient in (_ME, _YOU) else None
    elif not (r.pending and r.carried is not None and fragment(tokens, r.sentence_start, i)):
        r.carried = None
    if t != "?":
        r.orphans.extend(c for c in r.dropped if c[1] != _THE)
    nxt_start = i if opens else i + 1
    r.recipient, r.pending, r.dropped, r.sentence_start, r.either, r.marked, r.subject = None, [], [], nxt_start, False, False, None
    r.closed_by = None
    r.vague = _vague_sentence(tokens, nxt_start)
    r.i = i + 2 if opens else i + 1  # past "how about"
    return True


# ---------------------------------------------------------------------------- words that steer


def _skip_vague(r: _Split) -> bool:
    if r.vague:
        r.i += 1
    return r.vague


def _either(r: _Split) -> bool:
    if r.t == "either" or (r.t == "or" and r.either):
        r.either = True
        r.i += 1
        return True
    return False


def _trades_back(r: _Split) -> bool:
    """Whether a "for" after a recipient's items brings the items after it the other way."""
    tokens, i = r.tokens, r.i
    if not (r.t == "for" and r.recipient in (_ME, _YOU) and i + 1 < len(tokens) and tokens[i + 1] not in (_SUBJECT_ME | _SUBJECT_YOU)):
        return False
    ahead = tokens[i + 1 : i + 4]
    item_before = issue_of_word(tokens[i - 1]) or tokens[i - 1] in FILLER | {"woods"}
    traded = r.recipient == _YOU or (r.anchor < i and item_before)  # "settle for 1 firewood", "2 for food" trade nothing
    leads = tokens[i + 1] in NUMBER_WORDS or tokens[i + 1].isdigit() or tokens[i + 1] in {"your", "the"} or bool(issue_of_word(tokens[i + 1]))
    if tokens[i - 1] in _PACKAGES and issue_of_word(tokens[i + 1]):
        leads = False  # "1 extra package for food" names the item, it trades nothing
    return bool(traded and leads and any(issue_of_word(w) or w in NUMBER_WORDS or w == "your" for w in ahead))


def _for_in_return(r: _Split) -> bool:
    if _trades_back(r):
        r.recipient, r.anchor = _other(r.recipient), r.i + 1
        r.i += 1
        return True
    return False


def _then_goes_on(r: _Split) -> bool:
    if r.t == "then" and r.recipient is None and r.pending and r.closed_by is not None:
        r.assign(r.closed_by, r.pending)
        r.pending = []
        r.i += 1
        return True
    return False


def _person_after_items(r: _Split) -> bool:
    if r.t in {"me", "you"} and r.recipient is None and r.pending and r.i >= 1 and issue_of_word(r.tokens[r.i - 1]):
        r.assign(_ME if r.t == "me" else _YOU, r.pending)
        r.pending = []
        r.i += 1
        return True
    return False


def _if_you(r: _Split) -> bool:
    tokens, i = r.tokens, r.i
    if r.t == "if" and tokens[i + 1 : i + 2] in (["you"], ["u"]) and (i == 0 or tokens[i - 1] not in {"what", "as", "even"}):
        r.if_until = premise_end(tokens, i)
        r.fired.append("an if-you premise")
    return False


def _take_back(r: _Split) -> bool:
    if r.t == "back" and r.recipient is not None and r.tokens[r.i - 1] in {"take", "get", "give", "taking", "getting", "giving"}:
        r.recipient = None
        r.i += 1
        return True
    return False


def _subject(r: _Split) -> bool:
    if r.t in {"i", "we", "you", "u"}:
        r.subject = _ME if r.t in {"i", "we"} else _YOU
        r.fired.append("a subject")
    return False


def _elided_taking(r: _Split) -> bool:
    tokens, i = r.tokens, r.i
    if r.t in {"but", "and"} and r.subject is not None and (used := _elided_take(tokens, i + 1)):
        r.recipient, r.anchor = r.subject, i + 1 + used
        r.wish = tokens[i + used] in {"prefer", "need", "needing", "want", "wanting", "use"}
        r.i += 1 + used
        return True
    return False


def _gift_after_keeping(r: _Split) -> bool:
    tokens, i = r.tokens, r.i
    if r.t in _GIFT_VERBS and r.recipient == _ME and i + 1 < len(tokens) and tokens[i + 1] not in _SUBJECT_ME | _SUBJECT_YOU:
        r.recipient, r.anchor = _YOU, i + 1
        r.i += 1
        return True
    return False


def _in_exchange(r: _Split) -> bool:
    if r.recipient in (_ME, _YOU) and r.tokens[r.i : r.i + 3] in (["in", "exchange", "for"], ["in", "return", "for"]):
        r.recipient, r.anchor = _other(r.recipient), r.i + 3
        r.i += 3
        return True
    return False


def _prefix_marker(r: _Split, who: str, used: int, first_marker: bool) -> None:
    """A recipient named before its items: the items pending before it are settled first."""
    tokens, i = r.tokens, r.i
    clause = i  # where the marker's clause starts: "No 3 firewood, 1 water, and I can give you 3 food"
    while clause > r.pending_at + 1 and tokens[clause - 1] in _SUBJECT_ME | _AUX | {"and", ","}:
        clause -= 1
    continued = bool(r.assigned[_ME]) and reasoned_list(tokens, r.sentence_start, clause) is not None  # "... 2 foods because I have friends"
    if r.pending and first_marker and (_own_ask(tokens, r.sentence_start, r.pending_at, clause) or continued):
        r.assign(_ME, r.pending)  # "how about 2 foods and 2 waters and then I forfeit the firewood"
    elif r.pending and first_marker and who == _ME and you_do(tokens, r.sentence_start, r.pending_at):
        r.assign(_YOU, r.pending)  # "would you do 3 waters and 1 firewood and I get 3 food and 2 firewood?"
    else:
        r.dropped.extend(r.pending)
    r.recipient = who
    r.wish = tokens[i + used - 1] in _WISH_VERBS
    r.pending = []


def _marker(r: _Split) -> bool:
    tokens, i, t = r.tokens, r.i, r.t
    who, used, postfix = _recipient_marker(tokens, i)
    if who is None:
        return False
    first_marker, r.marked = not r.marked, True
    if postfix:
        # the marker gives the items just before it, and no later ones
        r.assign(who, r.pending, postfix=t in {"mine", "yours", "to"} and tokens[i - 1] not in _WORTH)  # "the water to you and the food to me"
        r.pending = []
        r.closed_by = who
        r.recipient = None  # "3 firewood for me, 3 water for you": each list has its own recipient
    else:
        _prefix_marker(r, who, used, first_marker)
    r.i += used
    r.anchor = r.i
    return True

# ---------------------------------------------------------------------------- items and their counts


def _named_issue(r: _Split) -> str | None:
    """The item token i names, directly or as a counted word for the item just named."""
    tokens, i, t = r.tokens, r.i, r.t
    issue = issue_of_word(t)
    postfixed = i + 1 < len(tokens) and _recipient_marker(tokens, i + 1)[2]  # "2 bundles for me"
    if issue is None and r.last_issue is not None and (r.recipient in (_ME, _YOU) or postfixed) and _stands_for_last(tokens, i):
        issue = r.last_issue  # "I need firewood the most but you can have 2 of them", "I would like all 3 packages"
        if t.startswith("bundle") and "Firewood" in {issue_of_word(w) for w in tokens[:i]}:
            issue = "Firewood"  # "Now for the firewood. ... our water from the creek. 2 bundles for me"
    if issue is None and t == "woods" and _count_before(tokens, i, r.sentence_start) is not None:
        issue = "Firewood"  # "3 waters 2 woods"
    if issue is not None and i + 1 < len(tokens) and tokens[i + 1] in ITEM_HEADS:
        issue = None  # "a water supply" is no package of water
    return issue


Count = int | None


def _article_is_no_count(r: _Split, count: Count) -> Count:
    tokens, i = r.tokens, r.i
    if count == 1 and tokens[i - 1] in {"a", "an"} and (r.recipient is None or i - r.anchor > 3) and not (i >= 2 and tokens[i - 2] in {"and", ","} and r.last_count is not None):
        return None
    return count


def _counted_after(r: _Split, count: Count) -> Count:
    return _count_after(r.tokens, r.i) if count is None else count


def _one_or_other(r: _Split, count: Count) -> Count:
    tokens, i = r.tokens, r.i
    if i + 2 < len(tokens) and tokens[i + 1] == "or" and issue_of_word(tokens[i + 2]):
        return None
    return count


def _the_whole(r: _Split, count: Count) -> Count:
    tokens, i = r.tokens, r.i
    if count is not None:
        return count
    k = i - 1 if i >= 2 and tokens[i - 1] in {"extra", "additional"} else i  # "I take the extra firewood" ("the remaining X" may be part)
    listed = k >= 2 and tokens[k - 2] in {"and", ","} and r.last_count is not None  # "I need 2 waters and the firewood"
    near = [w for w in tokens[r.anchor : k - 1] if w not in FILLER and w not in _LIST_WORDS and w not in _AUX and w not in NUMBER_WORDS and not issue_of_word(w)]
    if k >= 1 and tokens[k - 1] == "the" and r.recipient is not None and (not r.wish or listed) and len(near) <= 1 and not set(near) & _PARTIAL and (k < 3 or tokens[k - 2] != "of" or tokens[k - 3] == "all"):
        return PACKAGES_PER_ISSUE
    return count


def _each_of_both(r: _Split, count: Count) -> Count:
    tokens, i = r.tokens, r.i
    if count is None and r.last_count is not None and tokens[i - 1] in {"and", "&"} and {"each", "both"} & set(tokens[max(0, i - 6) : i]):
        return r.last_count
    return count


def _one_of_list(r: _Split, count: Count) -> Count:
    if count is None and r.last_count is not None and r.tokens[r.i - 1] in {",", "and", "&"} and of_list(r.tokens, r.i):
        return r.last_count
    return count


def _package_of_both(r: _Split, count: Count) -> Count:
    tokens, i = r.tokens, r.i
    if count is None and r.last_count is not None and tokens[i - 1] == "and" and i >= 4 and tokens[i - 3] == "of" and tokens[i - 4] in _PACKAGES and issue_of_word(tokens[i - 2]):
        return r.last_count
    return count


def _all_you_need(r: _Split, count: Count) -> Count:
    if count == PACKAGES_PER_ISSUE and for_your_need(r.tokens, r.i):
        return None
    return count


def _all_of_both(r: _Split, count: Count) -> Count:
    if count is None and r.last_count == PACKAGES_PER_ISSUE and r.i >= 1 and r.tokens[r.i - 1] in {"and", ",", "&"}:
        return PACKAGES_PER_ISSUE
    return count


def _a_fire(r: _Split, count: Count) -> Count:
    tokens, i, t = r.tokens, r.i, r.t
    if t in _FIRE_WORDS and (i == 0 or tokens[i - 1] not in {"0", "1", "2", "3", "one", "two", "three", "all"}) and tokens[max(0, i - 2) : i] != ["all", "the"]:
        return None
    return count


def _in_either(r: _Split, count: Count) -> Count:
    return None if r.either else count


@dataclass(frozen=True)
class CountRule:
    """One way the count of a named item is found (or unfound), and the messages it is written for:
    reading each of them, this rule changes the count it is given."""

    name: str
    apply: Callable[[_Split, Count], Count]
    examples: tuple[Example, ...]


COUNT_RULES: tuple[CountRule, ...] = (
    CountRule("an article is no count", _article_is_no_count, ("maybe a water and 2 food for me", "a water would help us")),
    CountRule("a count after the item", _counted_after, ("I get food 2 and you get water 3",)),
    CountRule("one or the other", _one_or_other, ("I would like 1 water or food",)),
    CountRule("the whole item", _the_whole, ("you can have the food",)),
    CountRule("one each of both", _each_of_both, ("I would like 1 each of the food and water", "two of both water and food for me")),
    CountRule("one of a list", _one_of_list, ("I will give you 1 of food, water and firewood",)),
    CountRule("a package of both", _package_of_both, ("I will give you 1 extra package of food and water",)),
    CountRule("all you need", _all_you_need, ("I can give you all the food you need",)),
    CountRule("all of both", _all_of_both, ("I need all the water and food",)),
    CountRule("a fire", _a_fire, ("I need to have a fire each night, can I get 2 food",)),
    CountRule("either item", _in_either, ("I'd take 2 of either the food or the water",)),
)
"""Applied in order to the count written before the item (`_count_before`): each may fill it in or
take it away."""


def _count_of(r: _Split) -> Count:
    count = _count_before(r.tokens, r.i, r.sentence_start)
    for rule in COUNT_RULES:
        changed = rule.apply(r, count)
        if changed != count:
            r.fired.append(rule.name)
        count = changed
    return count


def _keep_unless_counted(r: _Split, issue: str) -> None:
    """A negated giving: the item stays whole with the speaker unless a count says how much goes."""
    between = r.tokens[r.anchor : r.i]
    if not any(w in {"all", "0", "1", "2", "3", "one", "two", "three", "most", "extra", "more", "additional"} for w in between):
        r.assign(_ME, [(issue, PACKAGES_PER_ISSUE)])  # "I can't give you any of the water"
    r.last_issue, r.last_count = issue, None


def _item(r: _Split) -> bool:
    issue = _named_issue(r)
    if issue is None:
        return False
    if r.recipient is not None and _stale(r.tokens, r.anchor, r.i):
        r.recipient = None  # "i have a fast metabolism and get shaky if i skip a meal" is no proposal
    count = _count_of(r)
    if r.recipient == _KEEP:
        _keep_unless_counted(r, issue)
    elif count is None:
        r.last_issue, r.last_count = issue, None  # "Firewood would be, 2 for you, 1 for me"
        if r.recipient is None and r.i >= 1 and r.tokens[r.i - 1] == "the":
            r.queue((issue, _THE))  # "the firewood is all yours"
    else:
        r.last_issue, r.last_count = issue, count
        if r.recipient is not None:
            r.anchor = r.i
            r.assign(r.recipient, [(issue, count)])
        else:
            r.queue((issue, count))
    r.i += 1
    return True


# ---------------------------------------------------------------------------- counts standing alone


def _implied(r: _Split) -> bool:
    if r.recipient in (_ME, _YOU) and r.last_issue is not None and not (r.borrowed and r.wish) and _right_after(r.tokens, r.anchor, r.i) and (implied := implied_count(r.tokens, r.i)):
        r.assign(r.recipient, [(r.last_issue, implied[0])])
        r.i += implied[1]
        return True
    return False


def _bare_count(r: _Split) -> bool:
    tokens, i, t = r.tokens, r.i, r.t
    if not (t in {"0", "1", "2", "3", "one", "two", "three", "none"} and r.last_issue is not None and i >= 1 and tokens[i - 1] in {",", "and", "&", "then", ":", "with", "be", "is"}):
        return False
    nxt = tokens[i + 1] if i + 1 < len(tokens) else ""
    if issue_of_word(nxt) or (nxt in FILLER and nxt not in _POSTFIX) or nxt in {"of"}:
        return False
    who2, _, postfix2 = _recipient_marker(tokens, i + 1) if i + 1 < len(tokens) else (None, 0, False)
    if who2 is not None and postfix2:
        r.assign(who2, [(r.last_issue, NUMBER_WORDS[t])])
        r.i += 3
        return True
    return False


def _of_each(r: _Split) -> bool:
    tokens, i = r.tokens, r.i
    if r.t in {"each", "everything"} and i >= 2 and tokens[i - 1] == "of" and r.recipient in (_ME, _YOU) and (n := _count_before(tokens, i, r.sentence_start)) is not None:
        r.each_for, r.found = (r.recipient, n), True
        r.i += 1
        return True
    return False


def _the_rest(r: _Split) -> bool:
    tokens, i, t = r.tokens, r.i, r.t
    if not (_rest_word(tokens, i) or (t == "rest" and tokens[i - 1] in {"then", "and", ","})):
        return False
    j = i + 1
    while j < len(tokens) and tokens[j] in {"is", "are", "goes", "go", "can", "will", "be"}:
        j += 1
    who2, _, postfix2 = _recipient_marker(tokens, j) if j < len(tokens) else (None, 0, False)
    if who2 in (_ME, _YOU) and postfix2:
        r.rest_for, r.found = who2, True  # "... and the rest for you", "I get 3 firewood then rest is yours"
        r.fired.append("the rest")
    elif r.recipient in (_ME, _YOU) and _rest_word(tokens, i):
        r.rest_for, r.found = r.recipient, True  # "... and you get the rest / everything else / the others / what's left"
        r.fired.append("the rest")
    return False


STEPS: tuple[SplitRule, ...] = (
    SplitRule("a sentence's end", _sentence_end, ("I get 2 food.",)),
    SplitRule("a vague sentence", _skip_vague, ("one of us gets 2 foods",)),
    SplitRule("either", _either, ("I'd take 2 of either the food or the water",)),
    SplitRule("for in return", _for_in_return, ("I'll give you 3 firewood for 2 water", "I'll take 3 water for 2 food")),
    SplitRule("then goes on", _then_goes_on, ("2 foods to you, 3 waters, and then all the wood for me",)),
    SplitRule("a person after the items", _person_after_items, ("3 wood 2 food me, 1 food 3 water you",)),
    SplitRule("an if-you premise", _if_you, ("if you get all the water, you would be at an advantage",)),
    SplitRule("taken back", _take_back, ("you get 2 food and then take back 1 of the waters",)),
    SplitRule("a subject", _subject, ("I get 2 food",)),
    SplitRule("an elided taking", _elided_taking, ("I'm offering all the water, but wanting all the firewood",)),
    SplitRule("a gift after keeping", _gift_after_keeping, ("I'll keep all the firewood and send 2 food",)),
    SplitRule("in exchange", _in_exchange, ("I get all the water in exchange for all the firewood",)),
    SplitRule("a recipient", _marker, ("2 water for me", "you can have 2 food")),
    SplitRule("an item", _item, ("I get 2 food",)),
    SplitRule("a count implied", _implied, ("I need water. Can I have two and you take one?",)),
    SplitRule("a count standing alone", _bare_count, ("2 water for me and 1 for you",)),
    SplitRule("one of each", _of_each, ("I want 1 of each", "I need at least 1 pack of everything")),
    SplitRule("the rest", _the_rest, ("I get 3 firewood then rest is yours", "I want 2 food and you get the rest")),
)
"""What the reader does at each token: the first rule that consumes the token decides; a few
(`an if-you premise`, `a subject`, `the rest`) only take note and let the next rules look."""


def _read_split(tokens: list[str], hints: Hints | None = None) -> _Split:
    """Read the message token by token (see `STEPS`)."""
    if tokens and tokens[-1] not in _ENDS:
        tokens = [*tokens, "."]
    borrowed = hints is not None and hints.topic is not None and elided(tokens)
    r = _Split(tokens, hints, borrowed=borrowed, last_issue=hints.topic if hints and borrowed else None, lean=dict(hints.leaning) if hints else {})
    r.vague = _vague_sentence(tokens, 0)
    while r.i < len(tokens):
        for step in STEPS:
            if step.act(r):
                r.fired.append(step.name)
                break
        else:
            r.i += 1
    return r


def _share_of(r: _Split, issue: str) -> int | None:
    mine, yours = r.assigned[_ME].get(issue), r.assigned[_YOU].get(issue)
    if mine is not None:
        return mine
    if yours is not None:
        return PACKAGES_PER_ISSUE - yours
    if r.each_for is not None:
        who, n = r.each_for
        return n if who == _ME else PACKAGES_PER_ISSUE - n
    if r.rest_for is not None:
        return PACKAGES_PER_ISSUE if r.rest_for == _ME else 0
    return None


def _proposal(tokens: list[str], hints: Hints | None = None) -> dict[str, int | None] | None:
    """The speaker's share per issue from the split the text describes, or None if it describes none.
    `hints` (`understanding_context`) name the item under discussion, where the speaker leans and
    whether they were asked how much they need."""
    r = _read_split(tokens, hints)
    if not r.found or (r.premised and all(r.premised)):
        return None  # "If you get all the water, you would be at an advantage" proposes nothing
    for issue in needs_none(r.tokens):
        if issue not in r.assigned[_ME] and issue not in r.assigned[_YOU]:
            r.assigned[_ME][issue] = 0  # "2 food, 1 water is enough for me and I don't need any firewood"
    if r.rest_for is not None and r.each_for is None and not r.assigned[_ME] and not r.assigned[_YOU] and not r.orphans:
        return None  # "you can have the rest" alone says nothing about what the rest is
    if r.rest_for is not None:
        # "3 food, 1 firewood and 1 water is what I need. You can have the rest": the counted items
        # no recipient took belong to the other side of the rest
        r.assign(_other(r.rest_for), [c for c in r.orphans if c[0] not in r.assigned[_ME] and c[0] not in r.assigned[_YOU]])
    share = {issue: _share_of(r, issue) for issue in ISSUES}
    if all(v is None for v in share.values()):
        return None
    return share
