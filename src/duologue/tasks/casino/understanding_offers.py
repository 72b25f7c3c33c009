"""Reading the split a CaSiNo message proposes (`understanding.read(...).proposal`): who gets how many
of each item, as the speaker's own share per issue."""

from __future__ import annotations

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


def _proposal(tokens: list[str], hints: Hints | None = None) -> dict[str, int | None] | None:
    """The speaker's share per issue from the split the text describes, or None if it describes none.
    `hints` (`understanding_context`) name the item under discussion, where the speaker leans and
    whether they were asked how much they need."""
    if tokens and tokens[-1] not in _ENDS:
        tokens = [*tokens, "."]
    assigned: dict[str, dict[str, int]] = {_ME: {}, _YOU: {}}
    orphans: list[tuple[str, int | None]] = []  # counted items no recipient took, for "you can have the rest"
    dropped: list[tuple[str, int | None]] = []
    pending_at = 0  # where the first pending item stands
    subject: str | None = None  # the last person named as a subject in this sentence
    rest_for: str | None = None
    closed_by: str | None = None  # who the last postfix marker of this sentence gave its list to ("2 food to you")
    zeros = needs_none(tokens)
    each_for: tuple[str, int] | None = None
    recipient: str | None = None
    pending: list[tuple[str, int | None]] = []  # items seen before any recipient in this clause
    borrowed = hints is not None and hints.topic is not None and elided(tokens)
    last_issue: str | None = hints.topic if hints and borrowed else None  # "Please let me have 2." of the item just discussed
    lean = dict(hints.leaning) if hints else {}
    carried: str | None = None  # the recipient of the sentence before, for a list going on in fragments
    last_count: int | None = None
    sentence_start = 0
    anchor = 0
    i = 0
    found = False

    def assign(who: str, items: list[tuple[str, int | None]], *, postfix: bool = False) -> None:
        nonlocal found
        for issue, count in items:
            if count == _THE:
                count = PACKAGES_PER_ISSUE if postfix else None  # "the firewood is all yours"
            if count is None:
                continue
            assigned[who][issue] = count
            found = True
            premised.append(i < if_until and who == _YOU)

    premised: list[bool] = []  # whether each share was the partner's, read inside an "if you ..." clause
    if_until = -1  # where the current "if you ..." clause ends
    marked = False  # a recipient was named in this sentence
    wish = False  # the recipient came with "need"/"want": "I need the water" states a need, not a count
    either = False  # inside "either the food or the water": no definite count
    vague = _vague_sentence(tokens, 0)
    while i < len(tokens):
        t = tokens[i]
        opens = t in {"how", "what"} and tokens[i + 1 : i + 2] in (["about"], ["bout"]) and i > sentence_start and tokens[i - 1] not in _INTERJECTIONS and recipient is None
        if t in _ENDS or opens or (t == "-" and i + 1 < len(tokens) and _opens_ask(tokens, i + 1)):
            # "... getting closer to an agreement how about 1 firewood, 2 food, and one water?": a new ask starts
            if pending and ((not marked and _own_ask(tokens, sentence_start, pending_at, i)) or helps_ask(tokens, sentence_start, pending_at, i)):
                assign(_ME, pending)  # "maybe 2 firewood, 2 water and a food?": the speaker's own ask
            elif pending and not marked and assigned[_ME] and reasoned_list(tokens, sentence_start, i) is not None:
                assign(_ME, pending)  # "I would like 2 waters because ... 2 foods because ...": the ask goes on
            elif pending and not marked and (sides := swap_sides(tokens, sentence_start, i, pending, lean)) is not None:
                assign(_ME, sides[0])  # "I really need some food. 3 packs of firewood for 3 food?"
                assign(_YOU, sides[1])
            elif pending and not marked and carried is not None and fragment(tokens, sentence_start, i):
                assign(carried, pending)  # "We will take 1 firewood. All the food. 2 waters."
            elif pending and not marked and hints is not None and hints.asked_amount and sentence_start == 0 and impersonal(tokens, 0, i):
                assign(_ME, pending)  # "how many water you need?" - "all the water"
            else:
                dropped.extend(pending)
            if marked:
                carried = recipient if recipient in (_ME, _YOU) else None
            elif not (pending and carried is not None and fragment(tokens, sentence_start, i)):
                carried = None
            if t != "?":
                orphans.extend(c for c in dropped if c[1] != _THE)
            nxt_start = i if opens else i + 1
            recipient, pending, dropped, sentence_start, either, marked, subject = None, [], [], nxt_start, False, False, None
            closed_by = None
            vague = _vague_sentence(tokens, nxt_start)
            i = nxt_start if opens else i + 1
            if opens:
                i += 2  # past "how about"
            continue
        if vague:
            i += 1
            continue
        if t == "either" or (t == "or" and either):
            either = True
            i += 1
            continue
        if t == "for" and recipient in (_ME, _YOU) and i + 1 < len(tokens) and tokens[i + 1] not in (_SUBJECT_ME | _SUBJECT_YOU):
            ahead = tokens[i + 1 : i + 4]
            item_before = issue_of_word(tokens[i - 1]) or tokens[i - 1] in FILLER | {"woods"}
            traded = recipient == _YOU or (anchor < i and item_before)  # "settle for 1 firewood", "2 for food" trade nothing
            leads = tokens[i + 1] in NUMBER_WORDS or tokens[i + 1].isdigit() or tokens[i + 1] in {"your", "the"} or bool(issue_of_word(tokens[i + 1]))
            if tokens[i - 1] in _PACKAGES and issue_of_word(tokens[i + 1]):
                leads = False  # "1 extra package for food" names the item, it trades nothing
            if traded and leads and any(issue_of_word(w) or w in NUMBER_WORDS or w == "your" for w in ahead):
                # "I'll give you 3 firewood for 2 water", "I'll take 3 water for 2 food": what comes back goes the other way
                recipient, anchor = (_ME if recipient == _YOU else _YOU), i + 1
                i += 1
                continue
        if t == "then" and recipient is None and pending and closed_by is not None:
            assign(closed_by, pending)  # "2 foods to you, 3 waters, and then all the wood for me": the list before "then" goes on
            pending = []
            i += 1
            continue
        if t in {"me", "you"} and recipient is None and pending and i >= 1 and issue_of_word(tokens[i - 1]):
            assign(_ME if t == "me" else _YOU, pending)  # "3 wood 2 food me, 1 food 3 water you"
            pending = []
            i += 1
            continue
        if t == "if" and tokens[i + 1 : i + 2] in (["you"], ["u"]) and (i == 0 or tokens[i - 1] not in {"what", "as", "even"}):
            if_until = premise_end(tokens, i)  # "if you get all the water, you would be ..." (not "if you need 2 firewood")
        if t == "back" and recipient is not None and tokens[i - 1] in {"take", "get", "give", "taking", "getting", "giving"}:
            recipient = None  # "and then take back 1 of the waters" changes an earlier share, it settles none
            i += 1
            continue
        if t in {"i", "we", "you", "u"}:
            subject = _ME if t in {"i", "we"} else _YOU
        if t in {"but", "and"} and subject is not None and (used := _elided_take(tokens, i + 1)):
            recipient, anchor = subject, i + 1 + used  # "I'm offering all the water, but wanting all the firewood"
            wish = tokens[i + used] in {"prefer", "need", "needing", "want", "wanting", "use"}
            i += 1 + used
            continue
        if t in _GIFT_VERBS and recipient == _ME and i + 1 < len(tokens) and tokens[i + 1] not in _SUBJECT_ME | _SUBJECT_YOU:
            recipient, anchor = _YOU, i + 1  # "I'll keep all the firewood and send 2 food"
            i += 1
            continue
        if recipient in (_ME, _YOU) and tokens[i : i + 3] in (["in", "exchange", "for"], ["in", "return", "for"]):
            recipient, anchor = (_YOU if recipient == _ME else _ME), i + 3  # "get all the water in exchange for all the firewood"
            i += 3
            continue
        who, used, postfix = _recipient_marker(tokens, i)
        if who is not None:
            first_marker, marked = not marked, True
            if postfix:
                # "2 water for me": the marker gives the items just before it, and no later ones
                assign(who, pending, postfix=t in {"mine", "yours", "to"} and tokens[i - 1] not in _WORTH)  # "the water to you and the food to me"
                pending = []
                closed_by = who
                recipient = None  # "3 firewood for me, 3 water for you": each list has its own recipient
            else:
                clause = i  # where the marker's clause starts: "No 3 firewood, 1 water, and I can give you 3 food"
                while clause > pending_at + 1 and tokens[clause - 1] in _SUBJECT_ME | _AUX | {"and", ","}:
                    clause -= 1
                continued = bool(assigned[_ME]) and reasoned_list(tokens, sentence_start, clause) is not None  # "... 2 foods because I have friends"
                if pending and first_marker and (_own_ask(tokens, sentence_start, pending_at, clause) or continued):
                    assign(_ME, pending)  # "how about 2 foods and 2 waters and then I forfeit the firewood"
                elif pending and first_marker and who == _ME and you_do(tokens, sentence_start, pending_at):
                    assign(_YOU, pending)  # "would you do 3 waters and 1 firewood and I get 3 food and 2 firewood?"
                else:
                    dropped.extend(pending)
                recipient = who
                wish = tokens[i + used - 1] in _WISH_VERBS
                pending = []
            i += used
            anchor = i
            continue
        issue = issue_of_word(t)
        postfixed = i + 1 < len(tokens) and _recipient_marker(tokens, i + 1)[2]  # "2 bundles for me"
        if issue is None and last_issue is not None and (recipient in (_ME, _YOU) or postfixed) and _stands_for_last(tokens, i):
            issue = last_issue  # "I need firewood the most but you can have 2 of them", "I would like all 3 packages"
            if t.startswith("bundle") and "Firewood" in {issue_of_word(w) for w in tokens[:i]}:
                issue = "Firewood"  # "Now for the firewood. ... our water from the creek. 2 bundles for me"
        if issue is None and t == "woods" and _count_before(tokens, i, sentence_start) is not None:
            issue = "Firewood"  # "3 waters 2 woods"
        if issue is not None and i + 1 < len(tokens) and tokens[i + 1] in ITEM_HEADS:
            issue = None  # "a water supply" is no package of water
        if issue is not None:
            if recipient is not None and _stale(tokens, anchor, i):
                recipient = None  # "i have a fast metabolism and get shaky if i skip a meal" is no proposal
            count = _count_before(tokens, i, sentence_start)
            if count == 1 and tokens[i - 1] in {"a", "an"} and (recipient is None or i - anchor > 3) and not (i >= 2 and tokens[i - 2] in {"and", ","} and last_count is not None):
                count = None
            if count is None:
                count = _count_after(tokens, i)
            if i + 2 < len(tokens) and tokens[i + 1] == "or" and issue_of_word(tokens[i + 2]):
                count = None  # "one more water or food": either, not both
            k = i - 1 if i >= 2 and tokens[i - 1] in {"extra", "additional"} else i  # "I take the extra firewood" ("the remaining X" may be part)
            listed = k >= 2 and tokens[k - 2] in {"and", ","} and last_count is not None  # "I need 2 waters and the firewood"
            near = [w for w in tokens[anchor : k - 1] if w not in FILLER and w not in _LIST_WORDS and w not in _AUX and w not in NUMBER_WORDS and not issue_of_word(w)]
            if count is None and k >= 1 and tokens[k - 1] == "the" and recipient is not None and (not wish or listed) and len(near) <= 1 and not set(near) & _PARTIAL and (k < 3 or tokens[k - 2] != "of" or tokens[k - 3] == "all"):
                count = PACKAGES_PER_ISSUE  # "you can have the food": all of it
            if count is None and last_count is not None and tokens[i - 1] in {"and", "&"} and {"each", "both"} & set(tokens[max(0, i - 6) : i]):
                count = last_count  # "1 each of the food and water", "two of both water and food"
            if count is None and last_count is not None and tokens[i - 1] in {",", "and", "&"} and of_list(tokens, i):
                count = last_count  # "I will give you 1 of food, water and firewood"
            if count is None and last_count is not None and tokens[i - 1] == "and" and i >= 4 and tokens[i - 3] == "of" and tokens[i - 4] in _PACKAGES and issue_of_word(tokens[i - 2]):
                count = last_count  # "1 extra package of food and water"
            if count == PACKAGES_PER_ISSUE and for_your_need(tokens, i):
                count = None  # "I can give you all the food you need"
            if count is None and last_count == PACKAGES_PER_ISSUE and i >= 1 and tokens[i - 1] in {"and", ",", "&"}:
                count = PACKAGES_PER_ISSUE  # "all the water and food"
            if t in _FIRE_WORDS and (i == 0 or tokens[i - 1] not in {"0", "1", "2", "3", "one", "two", "three", "all"}) and tokens[max(0, i - 2) : i] != ["all", "the"]:
                count = None  # "have a fire each night", "keep the fire going" are no count of firewood
            if either:
                count = None
            if recipient == _KEEP:
                between = tokens[anchor:i]
                if not any(w in {"all", "0", "1", "2", "3", "one", "two", "three", "most", "extra", "more", "additional"} for w in between):
                    assign(_ME, [(issue, PACKAGES_PER_ISSUE)])  # "I can't give you any of the water"
                last_issue, last_count = issue, None
                i += 1
                continue
            if count is None:
                last_issue, last_count = issue, None  # "Firewood would be, 2 for you, 1 for me"
            if count is not None:
                last_issue, last_count = issue, count
                if recipient is not None:
                    anchor = i
                    assign(recipient, [(issue, count)])
                else:
                    pending_at = i if not pending else pending_at
                    pending.append((issue, count))
            elif recipient is None and i >= 1 and tokens[i - 1] == "the":
                pending_at = i if not pending else pending_at
                pending.append((issue, _THE))  # "the firewood is all yours"
            i += 1
            continue
        if recipient in (_ME, _YOU) and last_issue is not None and not (borrowed and wish) and _right_after(tokens, anchor, i) and (implied := implied_count(tokens, i)):
            assign(recipient, [(last_issue, implied[0])])  # "I need water. Can I have two and you take one?"
            i += implied[1]
            continue
        # a bare count standing for the last item: "2 water for me and 1 for you"
        if t in {"0", "1", "2", "3", "one", "two", "three", "none"} and last_issue is not None and i >= 1 and tokens[i - 1] in {",", "and", "&", "then", ":", "with", "be", "is"}:
            nxt = tokens[i + 1] if i + 1 < len(tokens) else ""
            if not issue_of_word(nxt) and (nxt not in FILLER or nxt in _POSTFIX) and nxt not in {"of"}:
                who2, _, postfix2 = _recipient_marker(tokens, i + 1) if i + 1 < len(tokens) else (None, 0, False)
                if who2 is not None and postfix2:
                    assign(who2, [(last_issue, NUMBER_WORDS[t])])
                    i += 3
                    continue
        if t in {"each", "everything"} and i >= 2 and tokens[i - 1] == "of" and recipient in (_ME, _YOU) and (n := _count_before(tokens, i, sentence_start)) is not None:
            each_for, found = (recipient, n), True  # "1 of each", "at least 1 pack of everything"
            i += 1
            continue
        if _rest_word(tokens, i) or (t == "rest" and tokens[i - 1] in {"then", "and", ","}):
            j = i + 1
            while j < len(tokens) and tokens[j] in {"is", "are", "goes", "go", "can", "will", "be"}:
                j += 1
            who2, _, postfix2 = _recipient_marker(tokens, j) if j < len(tokens) else (None, 0, False)
            if who2 in (_ME, _YOU) and postfix2:
                rest_for, found = who2, True  # "... and the rest for you", "I get 3 firewood then rest is yours"
            elif recipient in (_ME, _YOU) and _rest_word(tokens, i):
                rest_for, found = recipient, True  # "... and you get the rest / everything else / the others / what's left"
        i += 1
    if not found or (premised and all(premised)):
        return None  # "If you get all the water, you would be at an advantage" proposes nothing
    for issue in zeros:
        if issue not in assigned[_ME] and issue not in assigned[_YOU]:
            assigned[_ME][issue] = 0  # "2 food, 1 water is enough for me and I don't need any firewood"
    if rest_for is not None and each_for is None and not assigned[_ME] and not assigned[_YOU] and not orphans:
        return None  # "you can have the rest" alone says nothing about what the rest is
    if rest_for is not None:
        # "3 food, 1 firewood and 1 water is what I need. You can have the rest": the counted items
        # no recipient took belong to the other side of the rest
        other = _ME if rest_for == _YOU else _YOU
        assign(other, [c for c in orphans if c[0] not in assigned[_ME] and c[0] not in assigned[_YOU]])
    share: dict[str, int | None] = {}
    for issue in ISSUES:
        mine, yours = assigned[_ME].get(issue), assigned[_YOU].get(issue)
        if mine is not None:
            share[issue] = mine
        elif yours is not None:
            share[issue] = PACKAGES_PER_ISSUE - yours
        elif each_for is not None:
            who, n = each_for
            share[issue] = n if who == _ME else PACKAGES_PER_ISSUE - n
        elif rest_for is not None:
            share[issue] = PACKAGES_PER_ISSUE if rest_for == _ME else 0
        else:
            share[issue] = None
    if all(v is None for v in share.values()):
        return None
    return share
