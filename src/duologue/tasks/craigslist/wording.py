"""What the CraigslistBargain rule agent says: its questions, reasons and phrasings.

The agent (`agents.py`) decides what to do and the price; `RuleWording` turns the decision into
words, each move with several phrasings drawn with the agent's own RNG, and prices in the varied
forms people write (`$1,200`, `1200 bucks`, `1.2k`). Reasons are said only when the listing backs
them (`LISTING_REASONS`), and a question the listing is silent on is answered honestly
(`DEFLECTIONS`) instead of with another listing line.
"""

from __future__ import annotations

import random
import re

from duologue.tasks.craigslist.reading import Reading, answer_question

QUESTIONS: dict[str, list[str]] = {
    "housing": [
        "Are pets allowed?", "Is parking included?", "When would it be available?", "Are utilities included in the rent?",
        "Is there laundry in the building?", "How long is the lease?", "Is it a quiet neighborhood?",
    ],
    "furniture": [
        "Any scratches or stains?", "How old is it?", "Is it from a smoke free home?", "Could you help load it?",
        "Is it sturdy?", "Does it come apart for moving?", "Why are you getting rid of it?",
    ],
    "car": [
        "How many miles are on it?", "Any accidents?", "Is the title clean?", "When was the last service?",
        "Has it had any major repairs?", "Does it have any mechanical issues?", "Could I take it for a test drive?",
    ],
    "bike": [
        "What size is the frame?", "When was it last tuned up?", "Any rust on the chain?", "Are the tires in good shape?",
        "Has it been in any crashes?", "Do the brakes work well?",
    ],
    "phone": [
        "Is it unlocked?", "How is the battery?", "Any cracks on the screen?", "Does it come with a charger?",
        "Has it ever been dropped in water?", "Is it paid off?",
    ],
    "electronics": [
        "Does everything work?", "Does it come with all the cables?", "How old is it?", "Any issues I should know about?",
        "Is the original box included?", "Why are you selling it?",
    ],
}
AVAILABLE = re.compile(r"\bavail\w*|\bstill (?:for sale|have|selling)", re.I)
GENERIC_QUESTIONS = ["What condition is it in?", "Any problems with it?", "Why are you letting it go?"]
NOUNS = {"housing": "place", "furniture": "piece", "car": "car", "bike": "bike", "phone": "phone", "electronics": "item"}
STOP_WORDS = {"in", "with", "for", "and", "the", "a", "an", "of", "to", "at", "on", "near", "w", "or", "by"}
SELLER_REASONS = {
    "housing": ["I've had a lot of interest in the place.", "The rent is already fair for the area."],
    "other": ["I've had a lot of interest.", "That's already a good deal."],
}
BUYER_REASONS = {
    "housing": ["I could sign the lease this week.", "I'm a quiet, reliable tenant.", "I have to stay on budget.", "I'd be there for a long time."],
    "other": ["I can pick it up today.", "I'd pay cash.", "I have to stay on budget."],
}
LISTING_REASONS: tuple[tuple[str, str, str], ...] = (
    # (who, what the listing must say, the reason it then supports): no reason the listing does not back;
    # `item:` reasons are about an object, never said about a place to rent
    ("item:seller", r"\b(?:excellent|great|good|perfect|mint) (?:condition|shape)|\bwell (?:maintained|kept|taken care)|\blike new", "It's in really good condition."),
    ("item:seller", r"\bbarely used|\bnever used|\bunused|\blike new|\bbrand new|\brarely used|\bstill in (?:the )?(?:box|package)", "It's barely been used."),
    ("item:seller", r"\bvintage|\bantique|\bclassic|\brare\b|\b19[0-8]\d(?:s|\b)|\b[1-8]0s\b", "Pieces like this are hard to find now."),
    ("seller", r"\brenovated|\bremodel|\bupdated", "It was just renovated."),
    ("item:seller", r"\btuned|\bserviced|\bnew tires|\bnew battery|\bnew brakes", "It was recently serviced."),
    ("item:buyer", r"\bscratch|\bwear\b|\bworn|\bfair condition|\brust|\bneeds\b|\bnot working|\bas is\b|\bdent", "I'd need to fix a few things."),
)
DEFLECTIONS = {
    "deposit": "the deposit", "pets": "pets", "smoking": "smoking", "utilities": "the utilities", "laundry": "laundry",
    "parking": "parking", "lease": "the lease terms", "mileage": "the mileage", "owner": "previous owners",
    "title": "the title history", "unlocked": "the carrier lock", "battery": "the battery", "tires": "that part",
    "service": "servicing", "interior": "the interior", "color": "the color", "material": "the materials",
    "included": "what's included", "capacity": "how many it fits", "size": "the exact size", "why": "that",
    "usage": "how much it was used", "age": "its exact age", "condition": "that", "schools": "the schools", "noise": "noise",
}
"""How a seller names a topic its listing is silent on, to say so honestly instead of reciting another line."""


class RuleWording:
    """The rule agent's words; mixed into `CraigslistRuleAgent`, whose state it reads."""

    rng: random.Random
    seller: bool
    listing: float
    title: str
    category: str
    description: list[str]
    listing_text: list[str]
    reasons: list[str]
    asked: list[str]
    told: list[str]
    stated: list[float | None]
    their_price: float | None
    my_price: float | None
    spoken: int

    def _final_word(self, price: float) -> bool:
        """Whether `price` is as far as I can ever go (then my words may say so, and hold me to it)."""
        raise NotImplementedError

    def _firm_without_number(self) -> str:
        """Holding a price already said twice: a reason, not the number a third time; a limit only when it is one."""
        reason = self._pick(self.reasons)
        if self.my_price is None or not self._final_word(self.my_price):
            return self._pick([f"I'd really rather not move much from that. {reason}", f"I'm trying to stay close to that. {reason}"])
        if self.seller:
            return self._pick([f"That really is as low as I can go. {reason}", f"I can't move on that, sorry. {reason}"])
        return self._pick([f"That really is all I can spend. {reason}", f"I can't go higher than that, sorry. {reason}"])

    def _pick(self, options: list[str]) -> str:
        return self.rng.choice(options)

    def money(self, price: float) -> str:
        """A price in one of the forms people write."""
        whole = abs(price - round(price)) < 1e-9
        value = int(round(price)) if whole else price
        forms = [f"${value:,}" if whole else f"${value:,.2f}", f"${value}" if whole else f"${value:.2f}"]
        if whole:
            forms += [f"{value} dollars", f"{value} bucks" if value < 5000 else f"${value:,}"]
            if value >= 1000 and value % 100 == 0:
                forms.append(f"{value / 1000:g}k")
        return self._pick(forms)

    def _short_title(self) -> str:
        """How the item is called in conversation: the head of the title, or a plain noun for long titles."""
        head = re.split(r"\s[-|/(]|--|[!,:;(|*]|\bw/", self.title)[0].strip()
        words = re.sub(r"[^\w\s'-]", " ", head).split()
        while words and words[-1].lower() in STOP_WORDS:
            words.pop()
        if 1 <= len(words) <= 5 and not any(w.isdigit() and len(w) < 3 for w in words[:1]):
            text = " ".join(words)
            return text.title() if text.isupper() else text
        return NOUNS.get(self.category, "item")

    def _opening_message(self) -> str:
        title = self._short_title()
        if self.seller:
            greeting = self._pick(["Hi there!", "Hello!", "Hey, thanks for reaching out.", "Hi, thanks for your interest."])
            line = self._description_line()
            about = self._pick([f"The {title} is still available.", f"Yes, the {title} is available.", f"Glad you're interested in the {title}."])
            return " ".join(part for part in (greeting, about, line) if part)
        greeting = self._pick(["Hi!", "Hello there.", "Hey,", "Hi, how are you?"])
        interest = self._pick([f"I'm interested in your {title}.", f"I saw your listing for the {title}.", f"Is the {title} still for sale?"])
        return f"{greeting} {interest} {self._question()}".strip()

    def _description_line(self) -> str:
        unused = [line for line in self.description if line not in self.told and len(line) < 160]
        if not unused:
            return ""
        line = self.rng.choice(unused)
        self.told.append(line)
        return line if line.endswith((".", "!", "?")) else line + "."

    def _question(self) -> str:
        bank = [q for q in QUESTIONS.get(self.category, []) + GENERIC_QUESTIONS if q not in self.asked]
        if not bank:
            return self._pick(["Tell me a bit more about it?", "Anything else I should know?"])
        question = self.rng.choice(bank)
        self.asked.append(question)
        return question

    def _answer(self, reading: Reading) -> str:
        """Answer from the listing line that speaks to the question, or say honestly that the listing does not say."""
        if self.seller:
            answer = answer_question(reading.text, self.listing_text)
            if answer.kind == "line" and answer.text:
                line = answer.text if answer.text.endswith((".", "!", "?")) else answer.text + "."
                lead = self._pick(["", "Good question.", "Sure.", "Let me see."])
                return f"{lead} {line}".strip()
            if answer.kind == "deflect" and answer.topic == "why":  # my own reason, which no listing needs to state
                return self._pick(["It just opened up." if self.category == "housing" else "I just don't need it anymore.", "I'm making some room, that's all."])
            if answer.kind == "deflect":
                about = DEFLECTIONS.get(answer.topic or "", "that")
                return self._pick([
                    f"The listing doesn't say anything about {about}, and I'd rather not guess.",
                    f"I'm not sure about {about}, sorry; I can check and let you know.",
                ])
            if answer.kind == "describe":
                line = self._description_line()
                if line:
                    return line
            if AVAILABLE.search(reading.text):
                return self._pick([f"Yes, the {self._short_title()} is still available.", "Yes, it's still available."])
            return self._pick(["Sure, what would you like to know?", "Happy to answer any questions."])
        return self._pick([
            "I could pick it up this week.", "I'd pay cash.", "I can come by whenever works for you.",
            "It's for my own use.", "I've been looking for one for a while.",
        ])

    def _price_text(self, price: float) -> str:
        money = self.money(price)
        if self.seller:
            return self._pick([
                f"I'm asking {money} for it.", f"I could let it go for {money}.", f"The price is {money}, it's a great deal.",
                f"I'd like to get {money} for it.", f"How does {money} sound?",
            ])
        return self._pick([
            f"Would you take {money}?", f"I can offer {money}.", f"How about {money}?", f"My budget is around {money}.",
            f"Could you do {money}?", f"I'd pay {money} for it.",
        ])

    def _counter_text(self, price: float, partner_silent: bool) -> str:
        money = self.money(price)
        theirs = self.their_price
        refuse = ""
        if theirs is not None and not partner_silent and self.rng.random() < 0.4 and self._final_word(theirs):
            # a price refused in words is refused for good: only one beyond everything I could ever take
            refuse = self._pick([f"I can't do {self.money(theirs)}.", f"{self.money(theirs)} is too low for me." if self.seller else f"{self.money(theirs)} is too much for me."])
        elif self.rng.random() < 0.5:
            refuse = self._pick(
                ["Hmm, that's a bit low.", "That's lower than I hoped.", "I think it's worth more than that."] if self.seller
                else ["That's a little steep for me.", "Hmm, that's more than I wanted to spend.", "That's a bit over my budget."]
            )
        reason = ""
        if self.rng.random() < 0.35:
            reason = self._pick(self.reasons)
        ask = self._pick(
            [f"How about {money}?", f"I could do {money}.", f"Would {money} work?", f"Meet me at {money}?", f"Best I can do is {money}."] if self.seller
            else [f"How about {money}?", f"Could you do {money}?", f"I could go up to {money}.", f"Would you take {money}?", f"Can we say {money}?"]
        )
        return " ".join(part for part in (refuse, reason, ask) if part)

    def _insist(self, price: float) -> str:
        money = self.money(price)
        if not self._final_word(price):
            return self._pick([f"I'd really like to stay at {money}.", f"I'm trying to stay around {money}.", f"{money} still seems fair to me."])
        return self._pick([
            f"Sorry, {money} is really the lowest I can go." if self.seller else f"Sorry, {money} is really the most I can pay.",
            f"I can't go any further than {money}.",
            f"{money} is my final price." if self.seller else f"{money} is my final offer.",
            f"I'm firm at {money}, sorry.",
        ])

    def _nudge(self) -> str:
        money = self.money(self.my_price) if self.my_price is not None else "a fair price"
        return self._pick([
            f"So what do you think about {money}?", f"Does {money} work for you?", f"Let me know if {money} works.",
            "What price did you have in mind?", f"I think {money} is fair.",
        ])
