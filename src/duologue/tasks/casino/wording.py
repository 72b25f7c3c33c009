"""What the CaSiNo rule agent says: its phrase tables and the helpers that fill them in.

Each move has several phrasings, drawn with the agent's own RNG. `RuleWording`, mixed into
`CasinoRuleAgent`, names the agent's issues by priority, reveals a priority (with its reason when
asked to) and words a split's counts; the agent itself decides what to say and when.
"""

from __future__ import annotations

import random

GREETINGS = (
    "Hi there!",
    "Hello!",
    "Hey, nice to meet you!",
    "Hi neighbor!",
    "Hello, how is your trip going so far?",
    "Hey! Excited for the camping trip?",
    "Hi! Hope you're doing well.",
    "Good to meet you, fellow camper!",
)
GREETING_REPLIES = ("Hi!", "Hello to you too!", "Hey, doing great, thanks!", "Hi, nice to meet you!", "Hello! All good here.")
ASKS = (
    "What do you need most for your trip?",
    "Which of the items matters most to you?",
    "What are you hoping to get the most of?",
    "How about you, what's your top priority?",
    "What are you most in need of?",
    "What would help you the most?",
    "What is most important for you?",
)
ASK_AGAIN = (
    "Sorry, I'm still not sure what you need most. Is it food, water or firewood?",
    "Which one matters most to you: food, water or firewood?",
    "Could you tell me what your top priority is?",
)
REVEAL = {
    "High": (
        "{Issue} is my top priority.",
        "I really need {issue} the most.",
        "What I need most is {issue}.",
        "{Issue} matters most to me.",
        "My biggest need is {issue}.",
        "For me, {issue} is the most important.",
    ),
    "Medium": (
        "{Issue} is somewhere in the middle for me.",
        "I could use some {issue} too.",
        "{Issue} would be my second choice.",
        "After that, {issue} is next for me.",
    ),
    "Low": (
        "I don't need much {issue}.",
        "{Issue} is my lowest priority.",
        "{Issue} matters least to me.",
        "I could do without {issue}.",
        "{Issue} isn't very important to me.",
    ),
}
EMPATHY = (
    "That makes sense.",
    "Oh, I totally understand.",
    "Fair enough!",
    "Sorry to hear that, sounds rough.",
    "Got it, thanks for telling me.",
    "I hear you.",
)
PROPOSE = (
    "How about I take {mine} and you get {theirs}?",
    "What if you had {theirs} and I kept {mine}?",
    "Would you be okay with {theirs} for you, and {mine} for me?",
    "I could do {mine} for me and {theirs} for you.",
    "Here's an idea: you get {theirs}, I get {mine}.",
    "Maybe I get {mine}, and you take {theirs}?",
    "Let's say you take {theirs} and I take {mine}. Does that work?",
    "I'd suggest {mine} for me, {theirs} for you.",
)
PROPOSE_OPENERS = ("", "", "So, ", "Then maybe this works for both of us. ", "I think we can both get what we need. ")
COUNTER = (
    "Hmm, that doesn't quite work for me.",
    "I'm afraid that leaves me a bit short.",
    "That's a little lopsided for me.",
    "I can't really do that one.",
    "Sorry, I need a bit more than that.",
)
REJECTED_DEAL = (
    "Sorry, I can't accept that one.",
    "I had to turn that one down, it leaves me too little.",
    "That deal doesn't work for me, sorry.",
    "I'd rather not take that split.",
)
NEED_REMINDER = ("I really need {issue}.", "{Issue} is the one I can't give up.", "Remember, {issue} matters most to me.")

COUNT_WORDS = {
    3: ("all 3 {x}", "all the {x}", "3 {x}", "all of the {x}", "all three {x}"),
    2: ("2 {x}", "two {x}", "2 packages of {x}"),
    1: ("1 {x}", "one {x}", "a single {x}", "one package of {x}"),
}


class RuleWording:
    """The rule agent's words; mixed into `CasinoRuleAgent`, whose state it reads."""

    rng: random.Random
    priorities: dict[str, str]
    reasons: dict[str, str]
    revealed: list[str]

    def _issue_at(self, level: str) -> str | None:
        return next((issue for issue, lvl in self.priorities.items() if lvl == level), None)

    def _fill(self, template: str, issue: str) -> str:
        word = issue.lower()
        return template.replace("{Issue}", word.capitalize()).replace("{issue}", word)

    def _reveal(self, level: str, *, with_reason: bool) -> str:
        issue = self._issue_at(level)
        if issue is None:
            return ""
        self.revealed.append(level)
        text = self._fill(self.rng.choice(REVEAL[level]), issue)
        reason = self.reasons.get(issue, "").strip()
        if with_reason and reason:
            reason = reason[0].upper() + reason[1:]
            text += " " + (reason if reason[-1] in ".!?" else reason + ".")
        return text

    def _items(self, share: dict[str, int]) -> str:
        parts = [self.rng.choice(COUNT_WORDS[n]).format(x=issue.lower()) for issue, n in share.items() if n > 0]
        if not parts:
            return "nothing"
        if len(parts) == 1:
            return parts[0]
        return ", ".join(parts[:-1]) + " and " + parts[-1]

