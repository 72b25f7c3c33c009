"""Who a CaSiNo message gives items to: the words and phrases that mark the speaker ("I'll take",
"for me", "could I have") or the partner ("you can have", "I'll give you", "is all yours") as the
receiver of the items named after (or before) them. Used by `understanding_offers`."""

from __future__ import annotations

from duologue.tasks.casino.understanding_words import NUMBER_WORDS

_ME, _YOU = "me", "you"
_OTHERS = {"they", "them", "he", "she", "him", "her", "kids", "children", "family", "someone", "anyone", "everyone"}
_SUBJECT_ME = {"i", "we", "me", "us", "myself", "ourselves"}
_SUBJECT_YOU = {"you", "u", "yourself", "ya"}
_AUX = {"can", "could", "would", "will", "ll", "d", "should", "may", "might", "must", "to", "just", "then", "also", "do", "get", "go", "shall", "m", "am", "are", "re",
        "actually", "really", "definitely", "still", "only", "probably", "certainly", "truly", "totally", "absolutely", "kinda", "gladly",
        "happily", "thus", "therefore", "now", "be", "love", "was", "is", "ideally", "personally", "at", "least", "willing", "able", "going", "gonna", "trying", "were",
        "guys", "folks", "all", "looking", "hoping", "planning", "happy", "glad", "ready", "maybe", "perhaps", "possibly", "please"}
_TAKE_VERBS = {"get", "take", "keep", "have", "grab", "receive", "gets", "takes", "keeps", "having", "getting", "taking",
               "keeping", "walk", "end", "want", "need", "like", "prefer", "wants", "needs", "claim", "had", "kept", "got", "gettin", "takin", "accept", "settle", "took", "receiving", "snag", "wanting", "choose", "pick", "use", "needing", "require", "required", "requires", "obtain", "acquire"}
_GIVE_VERBS = {"give", "gives", "send", "leave", "let", "offer", "hand", "allow", "spare", "giving", "leaving", "offering", "sending", "gave", "leaves", "provide", "providing", "given", "lend"}
_ME_PHRASES: dict[tuple[str, ...], int] = {
    ("insist", "on"): 2, ("hoping", "for"): 2, ("hoping", "to", "get"): 3, ("hoping", "to", "take"): 3, ("hoping", "to", "have"): 3,
    ("happy", "with"): 2, ("fine", "with"): 2, ("ok", "with"): 2, ("okay", "with"): 2, ("good", "with"): 2, ("preference", "is"): 2,
    ("ask", "for"): 2, ("asking", "for"): 2, ("dead", "set", "on"): 3, ("set", "on"): 2, ("gives", "me"): 2, ("that", "leaves", "me"): 3, ("leaves", "me"): 2,
    ("can", "i", "have"): 3, ("can", "i", "get"): 3, ("can", "i", "take"): 3, ("could", "i", "have"): 3, ("could", "i", "get"): 3,
    ("could", "i", "take"): 3, ("may", "i", "have"): 3, ("i", "propose"): 2, ("survive", "with", "less", "than"): 4, ("do", "with", "less", "than"): 4,
    ("with", "less", "than"): 3, ("able", "to", "have"): 3, ("able", "to", "get"): 3, ("able", "to", "take"): 3, ("make", "do", "with"): 3,
    ("i", "do", ":"): 3, ("my", "offer", "is"): 3, ("wish", "for"): 2, ("take", "less", "than"): 3, ("looking", "for"): 2, ("accept", "less", "than"): 3, ("manage", "with"): 2, ("consider",): 1, ("me", "up", "with"): 3, ("my", "deal", "of"): 3, ("stick", "with"): 2, ("make", "it"): 2, ("thinking",): 1, ("for", "me", "to", "have"): 4, ("for", "me", "to", "get"): 4, ("for", "me", "to", "take"): 4, ("for", "me", "to", "receive"): 4, ("my", "offer", ":"): 3, ("my", "proposal", "is"): 3, ("my", "proposal", ":"): 3, ("agree", "on", "getting"): 3, ("agree", "on", "taking"): 3, ("agree", "to", "getting"): 3, ("agree", "to", "taking"): 3, ("could", "go"): 2, ("my", "taking"): 2, ("my", "getting"): 2, ("requesting",): 1, ("request",): 1, ("i", "can", "do", "with"): 4, ("i", "could", "do", "with"): 4, ("in", "exchange", "for"): 3, ("in", "return", "for"): 3, ("get", "away", "with"): 3, ("get", "by", "with"): 3, ("make", "due", "with"): 3, ("possible", "to", "get"): 3, ("possible", "to", "have"): 3, ("possible", "to", "take"): 3,
    ("work", "with"): 2, ("agree", "with"): 2, ("willing", "to", "do"): 3,
}
"""Phrases after which the items named go to the speaker ("I insist on 2 firewood", "hoping for two water")."""
_YOU_PHRASES: dict[tuple[str, ...], int] = {
    ("what", "you", "want", "is"): 4, ("what", "you", "need", "is"): 4, ("so", "you", "want"): 3, ("you", "would", "like"): 3,
    ("for", "you", "to", "get"): 4, ("for", "you", "to", "have"): 4, ("for", "you", "to", "take"): 4, ("welcome", "to"): 2, ("would", "you", "like"): 3,
}
"""Phrases after which the items named go to the partner ("so what you want is 2 more firewood")."""
_GIFT_VERBS = {"give", "send", "offer", "provide", "hand", "spare", "giving", "sending", "offering", "providing", "lend"}
"""Giving verbs whose subject is the speaker and whose object, when no person is named, is the partner."""
_GIVE_UP: dict[tuple[str, ...], int] = {("let", "go", "of"): 3, ("letting", "go", "of"): 3, ("give", "up"): 2, ("giving", "up"): 2, ("part", "with"): 2, ("parting", "with"): 2, ("forgo",): 1, ("forego",): 1, ("forgoing",): 1, ("foregoing",): 1}
"""Phrases after which the items named go to the partner (negated, they are read as a keeping first)."""
_KEEP_VERBS = ("give", "part", "spare", "share", "let", "offer", "trade", "budge")
"""Giving verbs that, negated, keep the item with the speaker ("I won't part with any firewood")."""
_TRADE_VERBS = {"trade", "swap", "exchange", "forfeit", "relinquish", "surrender"}
_POSTFIX = {"for", "to"}
_WISH_VERBS = {"want", "need", "like", "prefer", "wants", "needs", "use", "thinking", "needing", "require", "required", "requires"}
_WORTH = {"important", "valuable", "essential", "necessary", "crucial", "useful", "helpful", "vital", "needed", "priority", "precious"}
"""Words after which "to me" / "for you" says what an item is worth: "the firewood is most important
to me" gives no count (a counted "having two firewood is important for me" still does)."""
_KEEP = "keep"
"""A negated giving: the items named stay with the speaker, all of them when no count is given."""
_IMPERATIVE_OPENERS = {"fine", "ok", "okay", "then", "just", "please", ",", ".", "!", "so", "sure", "alright", "go", "ahead", "and"}
STALE_AFTER = 2
"""Words (besides counts, items, fillers and list joiners) after which a recipient no longer governs an
item: "I get ... <2 words> ... 2 food"."""
_LIST_WORDS = {",", "and", "&", "+", "-", ":", "then", "also", "plus", "with", "just", "only", "no", "maybe", "ok", "okay", "so", "please"}
"""Words that may stand in a bare list of counted items ("No food, just 2 water, 3 firewood")."""
_REST = {"rest", "remainder", "everything", "others", "leftover", "leftovers"}
_ENDS = {".", "!", "?", ";", "\n"}
_GAP_BREAKERS = {"there", "because", "since", "due", "which", "who", "if", "though", "while", "whereas", "when", "i", "we", "you", "u", "split", "splitting", "divide"}
"""Words that end the reach of a recipient: what follows them is another statement (a new subject
that named no recipient, a reason, a condition, an alternative)."""


def _by_first_word(phrases: dict[tuple[str, ...], int]) -> dict[str, list[tuple[tuple[str, ...], int]]]:
    """`phrases` grouped by their first word, each group in the table's order: a token can only
    start the phrases that begin with it, so `_recipient_marker` tries those alone."""
    grouped: dict[str, list[tuple[tuple[str, ...], int]]] = {}
    for phrase, length in phrases.items():
        grouped.setdefault(phrase[0], []).append((phrase, length))
    return grouped


_ME_STARTS, _YOU_STARTS, _GIVE_UP_STARTS = _by_first_word(_ME_PHRASES), _by_first_word(_YOU_PHRASES), _by_first_word(_GIVE_UP)


def _recipient_marker(tokens: list[str], i: int) -> tuple[str | None, int, bool]:
    """(recipient, tokens consumed, postfix?) if a recipient marker starts at token i."""
    t = tokens[i]
    nxt = tokens[i + 1] if i + 1 < len(tokens) else ""
    negated = "not" in tokens[max(0, i - 5) : i] and not any(w in _ENDS for w in tokens[max(0, i - 5) : i])
    if t == "consider" and nxt in {"taking", "having", "getting", "receiving"} and any(w in _SUBJECT_YOU for w in tokens[max(0, i - 3) : i]):
        return _YOU, 2, False  # "would you consider taking one extra firewood, 2 food and one water?"
    for phrase, length in _ME_STARTS.get(t, ()):
        if tuple(tokens[i : i + length]) == phrase and (not negated or "less" in phrase):  # "I can't do with less than 2 water"
            if phrase[-1] == "with" and i + length < len(tokens) and tokens[i + length] in {"you", "your", "that", "this", "it", "u"}:
                break  # "okay with your group taking all 3 food" is about the partner's share
            if phrase[0] not in {"i", "can", "could", "may", "in", "me", "consider", "for"} and phrase != ("make", "it") and any(w in _SUBJECT_YOU for w in tokens[max(0, i - 3) : i]):
                if phrase[-1] == "with" and phrase[0] in {"happy", "fine", "ok", "okay", "good"} and tokens[i + length : i + length + 1] in (["1"], ["2"], ["3"], ["one"], ["two"], ["three"]):
                    return _YOU, length, False  # "will you be okay with 1 firewood?" offers the partner that share
                break  # "are you hoping for 2 water?" asks about the partner's wish
            return _ME, length, False
    for phrase, length in _YOU_STARTS.get(t, ()):
        if tuple(tokens[i : i + length]) == phrase and not negated:  # "it doesn't seem fair for you to get all the firewood"
            return _YOU, length, False
    if t in {"your", "my", "our"} and nxt in {"group", "family", "side", "camp", "team", "crew", "kids"} and i + 2 < len(tokens) and tokens[i + 2] in _TAKE_VERBS:
        return (_YOU if t == "your" else _ME), 3, False  # "your group taking all 3 food", "my group taking 2 water"
    if t in {"receiving", "getting", "taking", "having"} and i >= 1 and tokens[i - 1] in {"with", "about"}:
        # "how would you be with receiving two waters", "I'm fine with getting 2 food", "how about having ..."
        return (_YOU if any(w in _SUBJECT_YOU for w in tokens[max(0, i - 5) : i]) else _ME), 1, False
    if t in {"receiving", "getting", "taking", "having"} and i >= 1 and tokens[i - 1] in _SUBJECT_ME | _SUBJECT_YOU:
        return (_ME if tokens[i - 1] in _SUBJECT_ME else _YOU), 1, False  # "I could agree to you taking 2 food"
    if t in {"me", "you", "u"} and (i == 0 or tokens[i - 1] in {".", ",", "!", "?", "and", ":"}):
        k = i + 1 if i + 1 < len(tokens) and tokens[i + 1] in {":", "-", ",", "="} else i  # "ME = 0 firewood, 3 water"
        if k + 1 < len(tokens) and tokens[k + 1] in {"0", "1", "2", "3", "one", "two", "three"}:
            return (_ME if t == "me" else _YOU), k - i + 1, False  # "Me 2 food 1 water. You, 1 food, 2 water"
    if t == "to" and nxt in {"get", "have", "take", "receive", "keep", "grab"}:
        # "it's only fair to have all of the firewood", "i am the one to get the 2 food": the infinitive's
        # taker is the nearest person named before it, the speaker when none is
        person = next((w for w in reversed(tokens[max(0, i - 4) : i]) if w in _SUBJECT_YOU | _SUBJECT_ME | _OTHERS), None)
        if person in _OTHERS or negated:
            return None, 0, False  # "it doesn't seem fair for you to get all the firewood"
        return (_YOU if person in _SUBJECT_YOU else _ME), 2, False
    if t in {"like", "love", "prefer"} and i >= 1 and tokens[i - 1] in {"would", "d"} and (i < 2 or tokens[i - 2] not in _SUBJECT_YOU):
        return _ME, 1, False  # "... and would like to have 3 firewoods"
    for phrase, length in _GIVE_UP_STARTS.get(t, ()):
        if tuple(tokens[i : i + length]) == phrase:
            # "I'm ok with letting go of two of the firewood"; "would you be willing to part with 1 water"
            # gives to the speaker: the giver is the nearest person named before the phrase
            giver = next((w for w in reversed(tokens[max(0, i - 5) : i]) if w in _SUBJECT_ME | _SUBJECT_YOU), None)
            return (_ME if giver in _SUBJECT_YOU else _YOU), length, False
    if t in {"making", "totaling", "totalling"} and nxt in {"0", "1", "2", "3", "one", "two", "three", "all"}:
        return _ME, 1, False  # "so let me get the remaining firewood then. making 2 foods, 2 firewood and 1 water"
    if t == "unable" and nxt == "to" and tokens[i + 2 : i + 3] and tokens[i + 2] in _KEEP_VERBS:
        return _KEEP, 3, False  # "i am unable to give fire wood" keeps it
    if t in {"not", "never"} and nxt in _KEEP_VERBS:
        # "I can't give you any of the water", "I won't part with any firewood": the speaker keeps it
        j = i + 2
        while j < len(tokens) and tokens[j] in {"with", "up", "you", "u", "away", "go", "of", "on", "in"} and j - i <= 4:
            j += 1
        return _KEEP, j - i, False
    if t == "let" and nxt == "me" and i + 2 < len(tokens) and tokens[i + 2] in {"know", "see", "think", "check", "ask", "explain", "tell"}:
        return None, 0, False  # "let me know" gives nothing
    if t in _TRADE_VERBS and nxt not in _SUBJECT_ME and (i == 0 or tokens[i - 1] not in _SUBJECT_YOU):
        return _YOU, 2 if nxt in _SUBJECT_YOU else 1, False  # "I'd like to trade 3 firewood for 3 waters": what follows is given
    if t in _SUBJECT_YOU and nxt in NUMBER_WORDS and nxt not in {"a", "an", "all", "every", "both"} and i > 0 and tokens[i - 1] in {"and", ","}:
        return _YOU, 1, False  # "2 water for me and you 1 water"
    # give/send/leave/let + me|you : the object receives
    if t in _GIVE_VERBS:
        if nxt in _SUBJECT_ME:
            return _ME, 2, False
        if nxt in _SUBJECT_YOU:
            return _YOU, 2, False
    opens = i == 0 or tokens[i - 1] in _ENDS  # '"for you, 1 wood, 2 food". "for me, 2 wood, ..."'
    if t in _POSTFIX and nxt in _SUBJECT_ME | _SUBJECT_YOU and (tokens[i + 2 : i + 3] == [":"] or (opens and tokens[i + 2 : i + 3] == [","])):
        return (_ME if nxt in _SUBJECT_ME else _YOU), 3, False  # "For me: 1 water, 2 firewood. For you: ..."
    # postfix: "2 water for me", "the rest to you"
    if t in _POSTFIX and nxt in (_SUBJECT_ME | _SUBJECT_YOU | {"yourself", "myself"}):
        return (_ME if nxt in _SUBJECT_ME else _YOU), 2, True
    if t == "from" and nxt in _SUBJECT_ME | _SUBJECT_YOU and tokens[i + 2 : i + 3] != ["to"]:
        return (_YOU if nxt in _SUBJECT_ME else _ME), 2, True  # "3 waters from me for your 3 food"
    if t in {"mine", "yours"}:
        return (_ME if t == "mine" else _YOU), 1, True
    if t == "with" and nxt in _SUBJECT_ME | _SUBJECT_YOU and any(w in {"share", "sharing"} for w in tokens[max(0, i - 8) : i]):
        return (_ME if nxt in _SUBJECT_ME else _YOU), 2, True  # "can you share 2 packs of food with me?"
    # subject + (aux)* + take-verb
    if (t in _SUBJECT_ME or t in _SUBJECT_YOU) and "not think" not in " ".join(tokens[max(0, i - 4) : i]):  # "I don't think I can do 1 firewood"
        j = i + 1
        while j < len(tokens) and tokens[j] in _AUX and j - i <= 5:
            if tokens[j] == "get" and j + 1 < len(tokens) and tokens[j + 1] not in {"to"}:
                break
            j += 1
        if t == "i" and j < len(tokens) and tokens[j] == "have" and set(tokens[i + 1 : j]) in ({"only"}, {"already"}, {"only", "already"}) and tokens[i - 1 : i] != ["if"]:
            return None, 0, False  # "I only have 1 jug of water" says what the speaker owns
        if t == "i" and j + 1 < len(tokens) and tokens[j - 1] == "do" and tokens[j] == "with" and tokens[j + 1] in NUMBER_WORDS:
            return _ME, j - i + 1, False  # "I could perhaps do with 2 firewood"
        if t == "i" and j < len(tokens) and tokens[j - 1] in {"do", "be"} and tokens[j] in {"0", "1", "2", "3", "one", "two", "three", "all"}:
            return _ME, j - i, False  # "I can do 1 food, 3 water and 2 firewood", "so I'll be 2 firewood, 1 water, 2 food?"
        if j + 1 < len(tokens) and tokens[j] in {"get", "got"} and tokens[j + 1] in _SUBJECT_YOU:
            return _YOU, j - i + 2, False  # "I can get you one package of water"
        if j < len(tokens) and tokens[j] in _TAKE_VERBS:
            if t in _SUBJECT_YOU and tokens[j] in _WISH_VERBS:
                if i >= 1 and tokens[i - 1] == "if" and j + 1 < len(tokens) and tokens[j + 1] in {"1", "2", "3", "one", "two", "three", "all"}:
                    return _YOU, j - i + 1, False  # "if you want 2 waters I'd take all the food": granted on a condition
                return None, 0, False  # "are you sure you need 2 food?" asks, it does not give
            if any(tokens[k] in {"not", "never"} for k in range(i + 1, j)):
                return None, 0, False  # "I don't need 3 water" proposes nothing
            if tokens[j] in _WISH_VERBS and tokens[j + 1 : j + 2] == ["to"] and j + 2 < len(tokens) and tokens[j + 2] in {"keep", "have", "get", "take", "receive"}:
                j += 2  # "I would like to keep the food": the taking, not the wish, says how much
            if tokens[j + 1 : j + 3] in (["away", "with"], ["by", "with"]):
                j += 2  # "I can get away with 1": what follows is the share
            return (_ME if t in _SUBJECT_ME else _YOU), j - i + 1, False
        if j < len(tokens) and tokens[j] in _GIVE_VERBS:
            nxt_object = tokens[j + 1] if j + 1 < len(tokens) else ""
            if tokens[j] in _GIFT_VERBS and nxt_object not in _SUBJECT_ME | _SUBJECT_YOU | {"up", "it", "them", "that", "this"}:
                # "I will provide 1 wood and 1 food", "I can spare 1 water", "could you spare one food?"
                return (_YOU if t in _SUBJECT_ME else _ME), j - i + 1, False
            # "i give you 2 food": the giver's object receives; handled when the give verb is reached
            return None, 0, False
    if t in {"take", "have", "keep", "grab"} and (i == 0 or tokens[i - 1] in _IMPERATIVE_OPENERS):
        return _YOU, 1, False  # "fine, take all the water"
    if t in {"my", "your"} and nxt in {"share", "side", "end", "part"}:
        return (_ME if t == "my" else _YOU), 2, False
    return None, 0, False
