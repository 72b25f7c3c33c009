"""The CraigslistBargain modular agent's own wording and the patterns its line checks use.

`TEMPLATES` are the agent's fallback words per role and act (used when no retrieved corpus line
fits); the patterns below tell a retrieved line that would misfit its context (a line only the
other side says, a concession that is none, a goodbye while bargaining). See `modular.py`.
"""

from __future__ import annotations

import re
from typing import Iterable

from duologue.tasks.craigslist.reading import AVAILABILITY, SOCIAL

TEMPLATES: dict[str, dict[str, tuple[str, ...]]] = {
    "buyer": {
        "intro": ("Hi there!", "Hello, how are you?", "Hey, I saw your listing.", "Hi! I'm interested in your listing.", "Hello! Is this still for sale?"),
        "inquiry": ("What condition is it in?", "How long have you had it?", "Is it still for sale?", "Why are you selling it?",
                    "Are there any problems with it?", "Can I come see it?", "Is anything wrong with it?"),
        "inform": ("I would use it every day.", "It's for my own use.", "I've been looking for one for a while.", "I would pick it up myself.",
                   "Just for me, I'd take good care of it."),
        "unknown": ("I see.", "That's good to know.", "Thanks for the info.", "Sounds nice.", "Alright, thank you.", "I was hoping for something like this."),
        "disagree": ("No, that's too much for me.", "I'm not sure I can do that.", "No, sorry.", "That's not going to work for me.", "I don't think I can go that high."),
        "vague-price": ("Could you come down a bit?", "That seems a little too high.", "Is that your lowest?", "Can you go lower?", "What's the lowest you would take?"),
        "init-price": ("Would you take {price}?", "I can offer {price}.", "How about {price}?", "I was thinking {price}.", "Could you do {price}?"),
        "counter-price": ("How about {price}?", "Could you do {price}?", "I could go up to {price}.", "Would you take {price}?",
                          "I can't do {partner_price}, but {price} works for me.", "{partner_price} is too much, how about {price}?"),
        "insist": ("I'm sticking with {price}.", "{price} is really all I can pay.", "Sorry, {price} is my final price.", "I can only do {price}."),
        "agree": ("Okay, deal.", "Deal!", "That works for me.", "Great, I can do that.", "Ok."),
    },
    "seller": {
        "intro": ("Hi there!", "Hello!", "Hey, thanks for your interest.", "Hi, how are you?", "Hello, it's still available."),
        "inquiry": ("Are you interested?", "Do you have any questions?", "When could you pick it up?", "Would you be paying cash?",
                    "Is this for you?", "What are you looking for?"),
        "inform": ("Happy to tell you more, what would you like to know?", "It's as described in the listing.", "Everything in the listing is accurate."),
        "unknown": ("I see.", "Sounds good to me.", "Thanks for letting me know.", "It's a great deal.", "You won't regret it.", "Alright."),
        "disagree": ("No, that's too low.", "No, I can't do that.", "Sorry, that doesn't work for me.", "I don't think so.", "No, it's worth more than that."),
        "vague-price": ("That's too low.", "Could you go higher?", "What's the highest you can go?", "That seems too low for me."),
        "init-price": ("I'm asking {price}.", "The price is {price}.", "I'd like to get {price} for it.", "I could let it go for {price}."),
        "counter-price": ("How about {price}?", "I could do {price}.", "Would {price} work?", "Meet me at {price}?", "Best I can do is {price}.",
                          "I can't do {partner_price}, but I could do {price}.", "{partner_price} is too low, how about {price}?"),
        "insist": ("I'm firm at {price}.", "{price} is my lowest.", "Sorry, {price} is my final price.", "I really need {price} for it."),
        "agree": ("Okay, deal.", "Deal!", "That works for me.", "Great, I can do that.", "Ok."),
    },
}
"""The agent's own wording per role and act, used when no retrieved candidate fits."""
ACKNOWLEDGE_UNSURE = ("No worries.", "Okay, no problem.", "Alright, thanks anyway.", "Okay, fair enough.")
"""Small talk after the partner said they do not know (`Sounds nice.` would not fit there)."""
PARTNER_UNSURE = re.compile(r"\b(?:not sure|doesn'?t say|rather not guess|don'?t know|no idea)\b", re.I)
OPEN_ANSWERS = ("Sure, what would you like to know?", "Happy to answer any questions.")
"""The rule agent's replies to a question it cannot place: they fit only an invitation to ask."""
INVITES_QUESTIONS = re.compile(r"\b(?:can|could|may) i ask\b|\bquestions?\b|\btell me (?:more|about)\b|\bmore (?:info|information|details)\b", re.I)
ASKS_WHAT_TO_KNOW = re.compile(r"\bwhat (?:would|do) you (?:like|want) to know\b|\b(?:any|have) (?:other |more )?questions\b", re.I)
"""The partner invites a question: a buyer asks one (an `inform` would answer nothing)."""
FAREWELLS = ("Okay, take care.", "No problem, good luck!", "Alright, thanks anyway.")
"""What is said to a partner who is leaving."""
NOT_MINE = {
    "buyer": re.compile(r"\bare you (?:still )?interested\b|\binterested in (?:my|buying)\b|\bmy (?:item|listing|asking)\b", re.I),
    "seller": re.compile(r"\bi(?:'m| am)(?: very)? interested in (?:your|the|this)\b|\bi(?:'d| would)? (?:like|want) to (?:buy|purchase)\b|\byour (?:item|listing|ad)\b", re.I),
}
"""Words only the other side says (a buyer does not ask `are you interested in the bike?`)."""
NEVER = re.compile(r"(?!)")
CONTINUES = re.compile(r"^\W*by\b", re.I)
"""A fragment that continues someone else's sentence (`By at least {price}`)."""
CONCEDES = re.compile(r"\bi(?:'ll|'d|'m| will| can| could| would| am)? (?:\w+ )?(?:come (?:down|up)|go (?:lower|down|higher|up)|drop|lower (?:it|the price|my price)|raise|budge|move (?:down|up))\b", re.I)
"""Words that say my price is a concession (`I can come down`): true only when it moves from my last price."""
CONTRASTS = re.compile(r"^\W*but\b", re.I)
LISTED = re.compile(r"\blist(?:ed|ing)\b|\basking price\b", re.I)
SETTLES = re.compile(r"\bsounds (?:good|fair|great|fine)\b|\bthat works\b|\bit is\W*$", re.I)
STARTS_AGREEING = re.compile(r"^\W*(?:ok(?:ay)?|alright|sure|yes|yeah|yep|fine|deal|agreed|great)\b", re.I)


def other_questions(text: str) -> bool:
    """Whether a message asks something besides whether the item is available and how I am."""
    sentences = [s for s in re.split(r"(?<=[.!?])\s+", text) if s.strip().endswith("?")]
    return any(not AVAILABILITY.search(s) and not SOCIAL.search(s) for s in sentences)


def slots(template: str) -> Iterable[str]:
    return re.findall(r"\{(\w+)\}", template)
