"""An LLM as a third-party rater: it reads a transcript and rates the bot on DUO's items, 1-5.

DUO (Numaya et al., SIGDIAL 2025) has each open chat rated by the user and by three third-party
raters who read the transcript, on preference, consistency, stylistic similarity, and empathy (ED)
or engagingness (WoW). An automatic judge is only worth using if it agrees with such raters about
as well as they agree with each other, so this module both rates and measures that agreement:

* `JudgeItem` / `DUO_ITEMS` / `duo_items`: the questions, worded by us after the corpus's
  questionnaire, each with what 1 and 5 mean and the DUO settings it belongs to;
* `Judge`: rates one `Dialogue` of any task through an OpenAI-compatible `ChatClient`, with a
  JSON-schema constrained answer, either all items in one request (`mode="all"`, the default) or
  one request per item (`mode="per_item"`; the transcript is a shared prompt prefix, which a
  llama.cpp slot re-uses). `all` is the default because it is what the small local model handles
  better: on 16 rated DUO dialogues (`benchmarks/bench_llm_judge.py`) SmolLM2-135M answered every
  per-item question of every dialogue with the same score (2), so nothing could be correlated,
  while one request for all items gave varied scores, three times faster (6 s vs 18 s per
  dialogue on a loaded 2-core CPU), with no unusable reply in either mode. A reply that is not a usable answer is sent back with the problem and
  asked again (`attempts` in all); an item still without an answer is recorded as missing, never
  filled in. Endpoint failures (`LLMError`: unreachable, refused) are not answers and propagate;
* `judge_dialogues` / `iter_judged`: copies of dialogues with the judge's `Rating`s added
  (`rater_kind="model"`, `rater_id=judge.judge_id`, `target` the rated party), and what it said
  and could not answer in `meta["judges"][judge_id]`;
* `judge_agreement`: for one criterion, Krippendorff's alpha (interval) of the third-party raters
  alone and with the judge added, alpha of the judge against the raters' mean, and Spearman's rho
  of the judge against that mean and against the user's own rating, each with a bootstrap interval
  (through `duologue.analysis.agreement` and `duologue.analysis.correlation`).

Prompts are text files in `duologue/evaluation/prompts/judge_*.txt` (`string.Template`):
`judge_system.txt` (context, transcript, what is rated), `judge_item.txt` (one item),
`judge_all.txt` (every item at once) and `judge_repair.txt` (after an unusable answer).
"""

from __future__ import annotations

import json
import math
import time
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources
from string import Template
from typing import TYPE_CHECKING, Any, Callable, Iterable, Iterator, Literal, Protocol, Sequence

from duologue.core.schema import (
    LIKERT_5,
    Accept,
    AcceptDeal,
    Dialogue,
    Message,
    Offer,
    Quit,
    Rating,
    Reject,
    RejectDeal,
    Select,
    SubmitDeal,
    SystemNote,
    WalkAway,
)
from duologue.llm.replies import NotJSON, json_in_reply
from duologue.llm.settings import LLMError

if TYPE_CHECKING:  # the agreement code needs the `ml` extra (krippendorff, scipy, pandas); rating does not
    from duologue.analysis.agreement import Agreement, Level
    from duologue.analysis.correlation import Correlation

PROMPTS = resources.files("duologue.evaluation") / "prompts"
SCORE_LOW, SCORE_HIGH = 1, 5
JudgeMode = Literal["per_item", "all"]
MODES: tuple[str, ...] = ("per_item", "all")
REASON_KEY = "reason"
PLACEHOLDERS = frozenset(["context", "speakers", "transcript", "target", "question", "low_label", "high_label", "reason_shape", "questions", "shape", "error"])


# --------------------------------------------------------------------------- items


@dataclass(frozen=True)
class JudgeItem:
    """One question the judge answers on a 1-5 scale.

    `name` is the criterion the ratings carry (DUO's `objective_evaluation` key), so the judge's
    ratings line up with the corpus's own. `settings` limits the item to DUO settings (`ed`,
    `wow`); None asks it of every dialogue.
    """

    name: str
    question: str
    low_label: str
    high_label: str
    settings: tuple[str, ...] | None = None

    def applies_to(self, dialogue: Dialogue) -> bool:
        if self.settings is None:
            return True
        return setting_of(dialogue) in self.settings


DUO_ITEMS: tuple[JudgeItem, ...] = (
    JudgeItem(
        "preference",
        "All things considered, how good is the bot as a partner to chat with in this conversation?",
        "a very poor chat partner",
        "an excellent chat partner",
    ),
    JudgeItem(
        "consistency",
        "Does the bot stay consistent from beginning to end, never contradicting itself or what it said earlier?",
        "it contradicts itself often",
        "it is fully consistent",
    ),
    JudgeItem(
        "stylistic_similarity",
        "How alike are the bot's and the user's ways of writing: choice of words, tone, politeness, and length of messages?",
        "their styles are completely different",
        "their styles are very much alike",
    ),
    JudgeItem(
        "empathy",
        "How well does the bot notice what the user feels and answer it with understanding and care?",
        "no understanding of the user's feelings at all",
        "deep understanding and care",
        settings=("ed",),
    ),
    JudgeItem(
        "engagingness",
        "How engaging is the bot: does it keep the conversation interesting, so that one would like to go on talking?",
        "dull, one would stop at once",
        "very engaging, one would gladly go on",
        settings=("wow",),
    ),
)
"""The judge's items: the open-chat corpus's rating items in our own words. Preference, consistency
and stylistic similarity are asked in both settings; empathy only in ED, engagingness only in WoW,
as in the corpus."""


def duo_items(setting: str | None = None, criteria: Iterable[str] | None = None) -> list[JudgeItem]:
    """DUO's items, for one setting (`ed`, `wow`) or all, optionally only the named criteria.

    Raises ValueError naming an unknown criterion (with the known ones).
    """
    items = [item for item in DUO_ITEMS if setting is None or item.settings is None or setting in item.settings]
    if criteria is None:
        return items
    wanted = list(dict.fromkeys(criteria))
    known = {item.name: item for item in DUO_ITEMS}
    unknown = [name for name in wanted if name not in known]
    if unknown:
        raise ValueError(f"unknown criterion {', '.join(repr(u) for u in unknown)}; the judge's items are {', '.join(known)}")
    return [item for item in items if item.name in wanted]


# --------------------------------------------------------------------------- reading a dialogue


def setting_of(dialogue: Dialogue) -> str | None:
    """The DUO setting (`ed` / `wow`) of an open-chat dialogue: public scenario first, then any private view."""
    setting = dialogue.scenario.public.get("setting")
    if setting is None:
        for view in dialogue.scenario.private.values():
            if "setting" in view:
                setting = view["setting"]
                break
    return setting if isinstance(setting, str) else None


def rated_party(dialogue: Dialogue) -> str | None:
    """The party a judge rates: the system side of a human-bot chat (role `system`, else the only
    bot), or None (the dialogue as a whole) when no one party is the bot."""
    systems = [p.id for p in dialogue.parties if p.role == "system"]
    if len(systems) == 1:
        return systems[0]
    bots = [p.id for p in dialogue.parties if p.kind == "bot"]
    return bots[0] if len(bots) == 1 else None


def speaker_labels(dialogue: Dialogue) -> dict[str, str]:
    """How each party is named in the transcript: `user` / `bot` in open chat, a role when the
    roles tell the parties apart (`buyer`, `seller`), else `party <id>`."""
    labels: dict[str, str] = {}
    roles = [p.role for p in dialogue.parties]
    for party in dialogue.parties:
        if party.role == "user":
            labels[party.id] = "user"
        elif party.role == "system":
            labels[party.id] = "bot"
        elif party.role and roles.count(party.role) == 1:
            labels[party.id] = party.role
        else:
            labels[party.id] = f"party {party.id}"
    return labels


def _json_text(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def render_event(event: Any, label: str) -> str:
    """One transcript line. Moves other than messages are described in words (offers, deals, picks)."""
    if isinstance(event, Message):
        return f"{label}: {event.text}"
    if isinstance(event, Offer):
        return f"{label} [offers a price of {event.price:g}]" if event.price is not None else f"{label} [makes an offer]"
    if isinstance(event, SubmitDeal):
        return f"{label} [proposes a deal: {label} gets {_json_text(event.mine)}, the other gets {_json_text(event.theirs)}]"
    if isinstance(event, Select):
        return f"{label} [selects {', '.join(f'{k}: {_json_text(v)}' for k, v in event.item.items())}]"
    if isinstance(event, (Accept, AcceptDeal)):
        return f"{label} [accepts]"
    if isinstance(event, (Reject, RejectDeal)):
        return f"{label} [rejects]"
    if isinstance(event, (Quit, WalkAway)):
        return f"{label} [leaves without a deal]"
    if isinstance(event, SystemNote):
        return f"(system: {event.name})"
    return f"{label} [{event.kind}]"


def render_transcript(dialogue: Dialogue, max_chars: int = 8000) -> str:
    """The transcript as `speaker: text` lines. Past `max_chars`, middle lines are left out (and
    said to be), keeping the start and the end, which carry the most about how the chat went."""
    labels = speaker_labels(dialogue)
    lines = [render_event(e, labels.get(e.party, "system") if e.party is not None else "system") for e in dialogue.events]
    if not lines:
        return "(no messages)"
    text = "\n".join(lines)
    if len(text) <= max_chars:
        return text
    head: list[str] = []
    tail: list[str] = []
    used = 0
    budget = max_chars - 60
    low, high = 0, len(lines) - 1
    take_head = True
    while low <= high:
        line = lines[low] if take_head else lines[high]
        if used + len(line) + 1 > budget:
            break
        used += len(line) + 1
        if take_head:
            head.append(line)
            low += 1
        else:
            tail.append(line)
            high -= 1
        take_head = not take_head
    left_out = high - low + 1
    return "\n".join([*head, f"(... {left_out} line(s) left out ...)", *reversed(tail)])


def dialogue_context(dialogue: Dialogue) -> str:
    """One or two sentences on what the conversation is (the DUO setting, or the task)."""
    setting = setting_of(dialogue)
    if setting == "ed":
        return "In this conversation a user tells a chatbot (the bot) about something that happened to them, and the bot listens."
    if setting == "wow":
        topic = dialogue.scenario.public.get("topic")
        about = f" about {topic}" if isinstance(topic, str) and topic else ""
        return f"In this conversation a user and a chatbot (the bot) chat{about}."
    from duologue.arena.ratings import spec_of_dialogue

    found = spec_of_dialogue(dialogue)
    return found.judge_context if found is not None else ""


# --------------------------------------------------------------------------- prompts


@lru_cache(maxsize=16)
def load_prompt(name: str) -> Template:
    """A judge prompt template (`judge_<name>.txt`); an unknown `$placeholder` is an error naming the file."""
    path = PROMPTS / f"judge_{name}.txt"
    template = Template(path.read_text(encoding="utf-8"))
    unknown = sorted(set(template.get_identifiers()) - PLACEHOLDERS)
    if unknown:
        raise ValueError(f"{path}: unknown placeholder(s) {', '.join('$' + u for u in unknown)}; known: {', '.join(sorted(PLACEHOLDERS))}")
    return template


def _fill(name: str, **values: str) -> str:
    return load_prompt(name).substitute({key: "" for key in PLACEHOLDERS} | values).strip()


# --------------------------------------------------------------------------- answers


class UnusableAnswer(ValueError):
    """Why a reply is not an answer (sent back to the model before it tries again)."""


def parse_json_reply(text: str) -> Any:
    """The JSON value of a reply (see `json_in_reply`), or `UnusableAnswer` saying why not."""
    try:
        return json_in_reply(text, words_around=JUDGE_WORDS_AROUND)
    except NotJSON as error:
        raise UnusableAnswer(str(error)) from None


JUDGE_WORDS_AROUND = 40
"""Characters of words a judge's reply may put around its JSON ("Here are my ratings:"); more is
prose that may quote the format without answering it."""


def score_of(value: Any, where: str) -> int:
    """A 1-5 score from a JSON value: a whole number (4 or 4.0); anything else is `UnusableAnswer`."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise UnusableAnswer(f"{where} must be a whole number from {SCORE_LOW} to {SCORE_HIGH}, got {json.dumps(value)[:40]}")
    if isinstance(value, float) and not (math.isfinite(value) and value.is_integer()):
        raise UnusableAnswer(f"{where} must be a whole number from {SCORE_LOW} to {SCORE_HIGH}, got {value}")
    score = int(value)
    if not SCORE_LOW <= score <= SCORE_HIGH:
        raise UnusableAnswer(f"{where} {score} is outside {SCORE_LOW}-{SCORE_HIGH}")
    return score


def _reason_of(data: dict[str, Any]) -> str | None:
    reason = data.get(REASON_KEY)
    return reason.strip() if isinstance(reason, str) and reason.strip() else None


# --------------------------------------------------------------------------- the judge


@dataclass
class JudgeResult:
    """What a judge made of one dialogue: ratings it gave, items it could not answer, and the cost."""

    dialogue_id: str
    target: str | None
    ratings: list[Rating] = field(default_factory=list)
    missing: dict[str, str] = field(default_factory=dict)
    """Criterion -> why no usable answer came (after every attempt)."""
    reasons: dict[str, str] = field(default_factory=dict)
    """Criterion -> the model's own short reason (per-item mode; in `all` mode one shared reason under `all`)."""
    calls: int = 0
    unusable_replies: int = 0
    seconds: float = 0.0

    def score(self, criterion: str) -> int | float | None:
        return next((r.value for r in self.ratings if r.criterion == criterion), None)  # type: ignore[return-value]


class Rater(Protocol):
    """Anything that rates dialogues like a `Judge` (baselines in benchmarks do too)."""

    judge_id: str

    def rate(self, dialogue: Dialogue) -> JudgeResult: ...


class Judge:
    """Rates transcripts on 1-5 items through an OpenAI-compatible chat client.

    `client` is a `duologue.llm.client.ChatClient` (or anything with its `complete` method).
    """

    def __init__(
        self,
        client: Any,
        *,
        items: Sequence[JudgeItem] = DUO_ITEMS,
        judge_id: str | None = None,
        mode: JudgeMode = "all",
        attempts: int = 3,
        reason_chars: int = 200,
        max_tokens: int | None = None,
        temperature: float = 0.0,
        retry_temperature: float = 0.7,
        seed: int | None = 0,
        max_transcript_chars: int = 8000,
    ) -> None:
        """
        items: the questions (an item whose `settings` exclude a dialogue is not asked of it).
        judge_id: the ratings' `rater_id` (default `llm:<model>`).
        mode: `all` (one request for every item) or `per_item` (one request per item).
        attempts: requests per answer before an item is recorded as missing (at least 1).
        reason_chars: longest reason the schema allows; 0 asks for scores only (faster). A bound
            keeps a small model's constrained output from running on.
        temperature: 0 (greedy) so a rerun gives the same ratings; retries use `retry_temperature`.
        """
        if mode not in MODES:
            raise ValueError(f"unknown judge mode {mode!r}; use one of {', '.join(MODES)}")
        if attempts < 1:
            raise ValueError("attempts must be at least 1")
        if not items:
            raise ValueError("a judge needs at least one item")
        names = [item.name for item in items]
        if len(set(names)) != len(names) or REASON_KEY in names:
            raise ValueError(f"item names must be distinct and not {REASON_KEY!r}: {names}")
        self.client = client
        self.items = list(items)
        self.judge_id = judge_id or f"llm:{getattr(client, 'model', 'model')}"
        self.mode: JudgeMode = mode
        self.attempts = attempts
        self.reason_chars = reason_chars
        self.max_tokens = max_tokens
        self.temperature = temperature
        self.retry_temperature = retry_temperature
        self.seed = seed
        self.max_transcript_chars = max_transcript_chars

    # ------------------------------------------------------------------ schema and prompts

    def _reason_schema(self) -> dict[str, Any]:
        return {REASON_KEY: {"type": "string", "maxLength": self.reason_chars}} if self.reason_chars > 0 else {}

    def item_schema(self) -> dict[str, Any]:
        """`{"score": 1..5, "reason": "..."}`, the answer to one item."""
        properties = {"score": {"type": "integer", "minimum": SCORE_LOW, "maximum": SCORE_HIGH}, **self._reason_schema()}
        return {"type": "object", "properties": properties, "required": list(properties), "additionalProperties": False}

    def all_schema(self, items: Sequence[JudgeItem]) -> dict[str, Any]:
        """`{"<item>": 1..5, ..., "reason": "..."}`, the answer to every item at once."""
        properties: dict[str, Any] = {item.name: {"type": "integer", "minimum": SCORE_LOW, "maximum": SCORE_HIGH} for item in items}
        properties.update(self._reason_schema())
        return {"type": "object", "properties": properties, "required": list(properties), "additionalProperties": False}

    def _reason_shape(self) -> str:
        return f', "reason": "<why, in at most {self.reason_chars} characters>"' if self.reason_chars > 0 else ""

    def _all_shape(self, items: Sequence[JudgeItem]) -> str:
        return "{" + ", ".join(f'"{item.name}": <1-5>' for item in items) + self._reason_shape() + "}"

    def system_prompt(self, dialogue: Dialogue, target: str | None) -> str:
        labels = speaker_labels(dialogue)
        names = list(dict.fromkeys(labels.values()))
        speakers = " and ".join(f"the {n}" if not n.startswith("party ") else n for n in names) or "two parties"
        context = dialogue_context(dialogue)
        return _fill(
            "system",
            context=context,
            speakers=speakers,
            transcript=render_transcript(dialogue, self.max_transcript_chars),
            target=self.target_label(dialogue, target),
        )

    @staticmethod
    def target_label(dialogue: Dialogue, target: str | None) -> str:
        if target is None:
            return "the conversation as a whole"
        label = speaker_labels(dialogue).get(target, f"party {target}")
        return label if label.startswith("party ") else f"the {label}"

    def items_for(self, dialogue: Dialogue) -> list[JudgeItem]:
        return [item for item in self.items if item.applies_to(dialogue)]

    # ------------------------------------------------------------------ rating

    def rate(self, dialogue: Dialogue, *, party: str | None = None) -> JudgeResult:
        """Rate one dialogue on each item that applies to it: about `party` when given, else about
        `rated_party` (the bot, or the whole dialogue). Raises `LLMError` when the endpoint fails."""
        started = time.perf_counter()
        target = party if party is not None else rated_party(dialogue)
        result = JudgeResult(dialogue_id=dialogue.id, target=target)
        items = self.items_for(dialogue)
        if items:
            system = {"role": "system", "content": self.system_prompt(dialogue, target)}
            target_text = self.target_label(dialogue, target)
            if self.mode == "per_item":
                for item in items:
                    self._rate_item(system, item, target_text, result)
            else:
                self._rate_all(system, items, target_text, result)
        result.seconds = time.perf_counter() - started
        return result

    def _rating(self, item: JudgeItem, score: int, target: str | None) -> Rating:
        return Rating(rater_kind="model", rater_id=self.judge_id, target=target, criterion=item.name, value=score, scale=LIKERT_5)

    def _rate_item(self, system: dict[str, str], item: JudgeItem, target_text: str, result: JudgeResult) -> None:
        question = _fill("item", target=target_text, question=item.question, low_label=item.low_label, high_label=item.high_label, reason_shape=self._reason_shape())
        shape = '{"score": <1-5>' + self._reason_shape() + "}"

        def read(data: Any) -> dict[str, int]:
            if not isinstance(data, dict):
                raise UnusableAnswer(f"the answer must be a JSON object {shape}")
            if "score" not in data:
                raise UnusableAnswer(f'the answer has no "score"; answer {shape}')
            return {item.name: score_of(data["score"], "score")}

        scores, data, problem = self._ask([system, {"role": "user", "content": question}], self.item_schema(), read, shape, result)
        if scores is None:
            result.missing[item.name] = problem
            return
        result.ratings.append(self._rating(item, scores[item.name], result.target))
        reason = _reason_of(data)
        if reason:
            result.reasons[item.name] = reason

    def _rate_all(self, system: dict[str, str], items: list[JudgeItem], target_text: str, result: JudgeResult) -> None:
        questions = "\n".join(f"- {item.name}: {item.question} (1 = {item.low_label}; 5 = {item.high_label})" for item in items)
        shape = self._all_shape(items)
        prompt = _fill("all", target=target_text, questions=questions, shape=shape)

        def read(data: Any) -> dict[str, int]:
            if not isinstance(data, dict):
                raise UnusableAnswer(f"the answer must be a JSON object {shape}")
            absent = [item.name for item in items if item.name not in data]
            if absent:
                raise UnusableAnswer(f"the answer has no score for {', '.join(absent)}")
            return {item.name: score_of(data[item.name], item.name) for item in items}

        scores, data, problem = self._ask([system, {"role": "user", "content": prompt}], self.all_schema(items), read, shape, result)
        if scores is None:
            for item in items:
                result.missing[item.name] = problem
            return
        for item in items:
            result.ratings.append(self._rating(item, scores[item.name], result.target))
        reason = _reason_of(data)
        if reason:
            result.reasons["all"] = reason

    def _max_tokens(self, schema: dict[str, Any]) -> int:
        if self.max_tokens is not None:
            return self.max_tokens
        scores = len(schema["properties"]) - (1 if REASON_KEY in schema["properties"] else 0)
        # Room for the JSON around each score, and for a reason in a script that costs several tokens a character.
        return 16 + 10 * scores + 2 * max(self.reason_chars, 0)

    def _ask(
        self,
        messages: list[dict[str, str]],
        schema: dict[str, Any],
        read: Callable[[Any], dict[str, int]],
        shape: str,
        result: JudgeResult,
    ) -> tuple[dict[str, int] | None, dict[str, Any], str]:
        """Ask until a reply reads as an answer (`attempts` requests). Returns scores (None when none
        came), the parsed reply, and the last problem. An unusable reply goes back with what is wrong."""
        problem = ""
        for attempt in range(self.attempts):
            temperature = self.temperature if attempt == 0 else max(self.temperature, self.retry_temperature)
            seed = None if self.seed is None else self.seed + attempt
            result.calls += 1
            try:
                completion = self.client.complete(
                    messages, json_schema=schema, schema_name="rating", max_tokens=self._max_tokens(schema), temperature=temperature, seed=seed
                )
                text = completion.text
            except LLMError as error:
                from duologue.llm.client import LLMResponseError

                if not isinstance(error, LLMResponseError):  # unreachable, refused: not an answer at all
                    raise
                text, problem = "", f"the endpoint's reply was not a chat completion ({error})"
                result.unusable_replies += 1
                continue
            try:
                data = parse_json_reply(text)
                scores = read(data)
                return scores, data if isinstance(data, dict) else {}, ""
            except UnusableAnswer as unusable:
                problem = str(unusable)
                if getattr(completion, "finish_reason", None) == "length":
                    problem += " (the reply hit the token limit)"
                result.unusable_replies += 1
                repair = _fill("repair", error=problem, shape=shape)
                messages = [*messages[:2], {"role": "assistant", "content": text[:2000]}, {"role": "user", "content": repair}]
        return None, {}, f"no usable answer after {self.attempts} attempt(s): {problem}"


# --------------------------------------------------------------------------- many dialogues


def with_judgement(dialogue: Dialogue, result: JudgeResult, judge_id: str) -> Dialogue:
    """A copy of `dialogue` holding the judge's ratings (replacing that judge's earlier ones) and,
    in `meta["judges"][judge_id]`, its reasons and the items it could not answer."""
    judged = dialogue.model_copy(deep=True)
    criteria = {r.criterion for r in result.ratings} | set(result.missing)
    kept = [r for r in judged.ratings if not (r.rater_kind == "model" and r.rater_id == judge_id and r.criterion in criteria)]
    judged.ratings = [*kept, *result.ratings]
    judges = dict(judged.meta.get("judges") or {})
    judges[judge_id] = {"target": result.target, "reasons": dict(result.reasons), "missing": dict(result.missing), "calls": result.calls}
    judged.meta = {**judged.meta, "judges": judges}
    return judged


def iter_judged(dialogues: Iterable[Dialogue], judge: Rater, *, on_progress: Callable[[JudgeResult], None] | None = None) -> Iterator[Dialogue]:
    """Judged copies one at a time, so a caller keeps what was done if the endpoint fails midway."""
    for dialogue in dialogues:
        result = judge.rate(dialogue)
        if on_progress is not None:
            on_progress(result)
        yield with_judgement(dialogue, result, judge.judge_id)


def judge_dialogues(dialogues: Iterable[Dialogue], judge: Rater, *, on_progress: Callable[[JudgeResult], None] | None = None) -> list[Dialogue]:
    """Copies of `dialogues` with the judge's ratings added (see `with_judgement`)."""
    return list(iter_judged(dialogues, judge, on_progress=on_progress))


# --------------------------------------------------------------------------- agreement with people


@dataclass
class JudgeAgreement:
    """How well one judge agrees with DUO-style raters on one criterion.

    Every figure is computed on the same dialogues: those with third-party ratings of the criterion
    and a judge rating. A figure that is undefined there (a judge that always gives the same score
    correlates with nothing) is None, with the reason in `notes`.
    """

    criterion: str
    judge_id: str
    dialogues: int
    """Dialogues with both third-party ratings and the judge's rating of this criterion."""
    unanswered: int
    """Dialogues with third-party ratings that the judge left without a rating (missing answers)."""
    third_party_alpha: Agreement | None = None
    """Krippendorff's alpha of the third-party raters alone: the humans' own agreement, the yardstick."""
    with_judge_alpha: Agreement | None = None
    """Alpha of the third-party raters with the judge as one more rater."""
    judge_vs_mean_alpha: Agreement | None = None
    """Alpha of two raters: the judge and the third-party raters' mean."""
    spearman_vs_mean: Correlation | None = None
    """Spearman's rho, judge vs the third-party mean."""
    spearman_vs_user: Correlation | None = None
    """Spearman's rho, judge vs the user's own rating (a `party` rating of the same target)."""
    notes: list[str] = field(default_factory=list)

    @property
    def alpha_change(self) -> float | None:
        """`with_judge_alpha - third_party_alpha`: above 0, the judge agrees with the raters better than they agree among themselves."""
        if self.third_party_alpha is None or self.with_judge_alpha is None:
            return None
        return self.with_judge_alpha.value - self.third_party_alpha.value


def model_judges(dialogues: Iterable[Dialogue]) -> list[str]:
    """The `rater_id`s of every model rater in `dialogues`, in first-seen order."""
    found: list[str] = []
    for dialogue in dialogues:
        for rating in dialogue.ratings:
            if rating.rater_kind == "model" and rating.rater_id is not None and rating.rater_id not in found:
                found.append(rating.rater_id)
    return found


def _mean_or_nan(values: list[float]) -> float:
    return sum(values) / len(values) if values else float("nan")


def _pair_dialogue(source: Dialogue, ratings: list[tuple[str, float]], criterion: str) -> Dialogue:
    """A stand-in for `source` carrying only the given (rater, value) third-party ratings, for the agreement code."""
    from duologue.core.schema import Party

    return Dialogue(
        id=source.id,
        task=source.task,
        parties=[Party(id="rated", kind="bot")],
        ratings=[Rating(rater_kind="third_party", rater_id=rater, target="rated", criterion=criterion, value=value) for rater, value in ratings],
    )


def judge_agreement(
    dialogues: Iterable[Dialogue],
    criterion: str,
    *,
    judge_id: str | None = None,
    level: Level = "interval",
    bootstrap: int = 1000,
    seed: int = 0,
) -> JudgeAgreement:
    """The judge's agreement with the third-party raters and the user on one criterion (see `JudgeAgreement`).

    `judge_id` may be left out when the dialogues hold one model rater. Raises ValueError when it
    is ambiguous or absent.
    """
    from duologue.analysis.agreement import rating_agreement
    from duologue.analysis.correlation import correlate
    from duologue.analysis.frames import rating_number

    dialogues = list(dialogues)
    if judge_id is None:
        judges = model_judges(dialogues)
        if len(judges) != 1:
            raise ValueError(f"name the judge: the dialogues hold {len(judges)} model raters ({', '.join(judges) or 'none'})")
        judge_id = judges[0]
    judge_name = f"judge:{judge_id}"
    with_judge: list[Dialogue] = []
    alone: list[Dialogue] = []
    pairs: list[Dialogue] = []
    judge_scores: list[float] = []
    third_means: list[float] = []
    user_scores: list[float] = []
    unanswered = 0
    for dialogue in dialogues:
        third = [r for r in dialogue.ratings if r.rater_kind == "third_party" and r.criterion == criterion]
        if not third:
            continue
        own = [r for r in dialogue.ratings if r.rater_kind == "model" and r.rater_id == judge_id and r.criterion == criterion]
        if not own:
            unanswered += 1
            continue
        target = own[0].target
        third = [r for r in third if r.target == target] or third
        judge_value = rating_number(own[-1])
        raters = [("" if r.rater_id is None else r.rater_id, rating_number(r)) for r in third]
        mean = _mean_or_nan([value for _, value in raters])
        alone.append(_pair_dialogue(dialogue, raters, criterion))
        with_judge.append(_pair_dialogue(dialogue, [*raters, (judge_name, judge_value)], criterion))
        pairs.append(_pair_dialogue(dialogue, [("third-party mean", mean), (judge_name, judge_value)], criterion))
        judge_scores.append(judge_value)
        third_means.append(mean)
        users = [rating_number(r) for r in dialogue.ratings if r.rater_kind == "party" and r.criterion == criterion and (target is None or r.target in (None, target))]
        user_scores.append(_mean_or_nan(users))
    result = JudgeAgreement(criterion=criterion, judge_id=judge_id, dialogues=len(judge_scores), unanswered=unanswered)
    if not judge_scores:
        result.notes.append(f"no dialogue has both third-party ratings and a {judge_id} rating of {criterion!r}")
        return result

    def attempt(field_name: str, compute: Callable[[], Any]) -> None:
        try:
            setattr(result, field_name, compute())
        except ValueError as error:
            result.notes.append(f"{field_name}: {error}")

    attempt("third_party_alpha", lambda: rating_agreement(alone, criterion, level=level, bootstrap=bootstrap, seed=seed))
    attempt("with_judge_alpha", lambda: rating_agreement(with_judge, criterion, level=level, bootstrap=bootstrap, seed=seed))
    attempt("judge_vs_mean_alpha", lambda: rating_agreement(pairs, criterion, level=level, bootstrap=bootstrap, seed=seed))
    attempt("spearman_vs_mean", lambda: correlate(judge_scores, third_means, method="spearman", x_name=judge_id, y_name="third-party mean", bootstrap=bootstrap, seed=seed))
    attempt("spearman_vs_user", lambda: correlate(judge_scores, user_scores, method="spearman", x_name=judge_id, y_name="user", bootstrap=bootstrap, seed=seed))
    return result


def agreement_rows(results: Iterable[JudgeAgreement]) -> list[dict[str, Any]]:
    """Flat rows (one per criterion) for tables and JSON: each figure with its interval, None where undefined."""
    rows = []
    for result in results:
        row: dict[str, Any] = {"criterion": result.criterion, "judge": result.judge_id, "dialogues": result.dialogues, "unanswered": result.unanswered}
        for name in ("third_party_alpha", "with_judge_alpha", "judge_vs_mean_alpha"):
            figure = getattr(result, name)
            row[name] = None if figure is None else {"value": figure.value, "low": figure.low, "high": figure.high}
        row["alpha_change"] = result.alpha_change
        for name in ("spearman_vs_mean", "spearman_vs_user"):
            figure = getattr(result, name)
            row[name] = None if figure is None else {"value": figure.r, "low": figure.low, "high": figure.high, "p": figure.p, "n": figure.n}
        row["notes"] = list(result.notes)
        rows.append(row)
    return rows
