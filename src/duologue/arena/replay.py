"""Bots against people's own words: replay a corpus dialogue with an agent in one seat.

Self-play only tells how bots do against bots, and bots read each other perfectly. Replay seats an
agent in one party of a real corpus dialogue, on that dialogue's real scenario, opposite a *script*
of the real person who sat in the other party. The task comes from the corpus (the registered task
whose spec names that corpus format and whose family matches the dialogue), or is given.

The script's rules (`PersonScript`), the same for every task:

1. It says the person's messages in their order, one per turn.
2. It makes the person's own real moves in their order (a submitted deal, a price offer, any move
   of the person's that is not an answer or a departure), where the task still allows them: the
   kind must be legal now and the move must fit `Task.action_schema` (`moves.validate`); a move
   that no longer applies is dropped and the script goes on.
3. The person's answers are not replayed: when a proposal of the agent is pending, the script
   accepts it if accepting gives the person at least the score they really got in the corpus
   (the accept is appended to a copy of the dialogue so far and scored with `Task.judge`; the real
   score is `Task.judge` of the corpus dialogue), and rejects it otherwise. An accept is a legal
   move with no fields that the task judges an agreement, or one of `Task.closing_moves` (where a
   proposal is made in private, as a secret final choice, the choice that complements it); where
   the task has no reject, the script goes on with its own moves (its real choice).
4. When the script runs out, it says a neutral line (`NEUTRAL_LINES`, at most `NEUTRAL_TURNS`
   times); then it leaves (quit / walk away) if the task allows, else it keeps to neutral lines
   until the task's turn limit ends the episode.
5. The person's real departure (a walk-away, a quit) is not replayed either: the script only leaves
   once its script is spent, as in rule 4.

The report (`ReplayReport`): agreement, the agent's score against the score of the person who
really sat in its seat (and their paired difference), the Pareto share of deals (any episode
metric whose name holds `pareto`), walk-aways, and `stuck` (the script ran out and there was no
deal), each a mean with a 95% bootstrap interval (an episode without a deal that the task leaves unscored
counts 0 for both); the people's own agreement and Pareto share on
the same dialogues are given beside them. For a task that declares values, the deals' distance to
the Pareto frontier and the seat's surplus over its walk-away, the agent's and the person's.
"""

from __future__ import annotations

import random
from typing import Any, Callable, Iterable, Iterator

from pydantic import Field, ValidationError

from duologue import tasks
from duologue.agents import make_agent
from duologue.arena.report import Estimate, bootstrap_mean
from duologue.arena.selfplay import episode_seed
from duologue.core import actions, moves
from duologue.core.agent import Agent
from duologue.core.episode import play_episode
from duologue.core.schema import Dialogue, Message, Model
from duologue.core.task import Observation, Task

SCRIPT = "script"
"""The agent name the person's script plays under."""
NEUTRAL_LINES: tuple[str, ...] = ("Okay.", "Hmm, let me think about it.", "What would you suggest?", "I see.")
NEUTRAL_TURNS = 3
"""Neutral lines the script says once spent, before it leaves (when the task lets it leave)."""
LEAVE_KINDS: tuple[str, ...] = ("walk-away", "quit")
"""Move kinds that end an episode without a deal; the script makes them only once spent."""
ANSWER_WORDS: tuple[str, ...] = ("accept", "reject")
"""A move kind holding one of these words answers a proposal; the script decides answers itself."""


class ReplayError(ValueError):
    """A replay that cannot run as asked (no task for the corpus, an unknown seat). Meant for users."""


def _fieldless(task: Task, party: str, kind: str) -> bool:
    properties = task.move_schema(party, kind).get("properties", {})
    return set(properties) <= {"kind"}


class PersonScript(Agent):
    """The real person of one corpus dialogue, replayed by the rules in the module docstring."""

    name = SCRIPT

    def __init__(self, source: Dialogue, party: str):
        self.source = source
        self.script_party = party
        self.real_score: float | None = None
        self.items: list[Any] = []
        for event in source.events:
            if event.party != party:
                continue
            if isinstance(event, Message):
                self.items.append(event.text)
                continue
            try:
                move = actions.action_of_event(event)
            except ValidationError:
                continue  # a corpus move no move can make (an offer without a price): nothing to replay
            if move is None or move.kind in LEAVE_KINDS or any(word in move.kind for word in ANSWER_WORDS):
                continue
            self.items.append(move)

    def reset(self, task: Task, party: str, rng: random.Random) -> None:
        super().reset(task, party, rng)
        self.real_score = task.judge(self.source).scores.get(party)
        self.position = 0
        self.neutral = 0
        self.dropped = 0
        self.exhausted = False

    # ------------------------------------------------------------------ answers

    def _answer(self, observation: Observation) -> actions.Action | None:
        """Accept or reject a pending proposal, when one is pending (some fieldless kind would agree)."""
        accept = None
        fieldless = [actions.BY_KIND[k](kind=k) for k in observation.legal if k not in LEAVE_KINDS and _fieldless(self.task, self.party, k)]
        for move in [*fieldless, *self.task.closing_moves(self.party)]:
            outcome = self.task.outcome_if(self.party, move)  # the whole transcript: the observation hides a private choice
            if outcome.agreed:
                accept = (move, outcome.scores.get(self.party))
                break
        if accept is None:
            return None
        move, score = accept
        if score is not None and (self.real_score is None or score >= self.real_score - 1e-9):
            return move
        reject = next((k for k in observation.legal if "reject" in k and _fieldless(self.task, self.party, k)), None)
        if reject is not None:
            return actions.BY_KIND[reject](kind=reject)
        return None

    # ------------------------------------------------------------------ the script

    def _fits(self, move: actions.Action, observation: Observation) -> bool:
        if move.kind not in observation.legal:
            return False
        return moves.validate(self.task.action_schema(self.party), move.model_dump(mode="json")) is None

    def act(self, observation: Observation) -> actions.Action:
        answer = self._answer(observation)
        if answer is not None:
            return answer
        while self.position < len(self.items):
            item = self.items[self.position]
            try:
                move = actions.Say(text=item) if isinstance(item, str) else item
            except ValidationError:
                move = None  # a corpus message no one could send (blank): dropped like a move that no longer applies
            if move is None or not self._fits(move, observation):
                self.position += 1
                self.dropped += 1
                continue
            self.position += 1
            return move
        if self.position >= len(self.items):
            self.exhausted = True
        return self._spent(observation)

    def _spent(self, observation: Observation) -> actions.Action:
        legal = observation.legal
        leave = next((k for k in LEAVE_KINDS if k in legal), None)
        if "say" in legal and (self.neutral < NEUTRAL_TURNS or leave is None):
            line = NEUTRAL_LINES[self.neutral % len(NEUTRAL_LINES)]
            self.neutral += 1
            return actions.Say(text=line)
        if leave is not None:
            return actions.BY_KIND[leave](kind=leave)
        return self.task.sample_action(self.party, self.rng)


# ---------------------------------------------------------------------------- running


def task_for(dialogue: Dialogue, corpus: str, task_id: str | None = None) -> str:
    """The task that replays a corpus dialogue: `task_id`, else the one registered for the corpus and family."""
    if task_id is not None:
        return task_id
    found = []
    for known in tasks.task_ids():
        try:
            spec = tasks.spec(known)
        except (ImportError, AttributeError):
            continue  # a registered task that does not load here cannot be the corpus's
        if spec.corpus == corpus and spec.family == dialogue.task:
            found.append(known)
    if len(found) == 1:
        return found[0]
    if not found:
        raise ReplayError(f"no registered task plays {corpus!r} dialogues of family {dialogue.task!r}; name one with --task")
    raise ReplayError(f"several tasks play {corpus!r} dialogues ({', '.join(found)}); choose one with --task")


def first_mover(dialogue: Dialogue) -> str | None:
    return next((e.party for e in dialogue.events if e.party is not None), None)


def replay_one(
    source: Dialogue, task_id: str, agent_spec: str, seat: str, *, seed: int = 0, number: int = 0, agent: Agent | None = None, max_turns: int | None = None
) -> Dialogue:
    """Play the agent in `seat` against the script of the other party of `source`.

    agent: a ready agent to seat (its spec is still `agent_spec`), e.g. one whose replies are cached.
    max_turns: the task's turn limit (default: the task's own)."""
    first = first_mover(source)
    options: dict[str, Any] = {"max_turns": max_turns} if max_turns is not None else {}
    task = tasks.make(task_id, first=first, **options) if first is not None else tasks.make(task_id, **options)
    strangers = sorted({e.party for e in source.events if e.party is not None} - set(task.party_ids))
    if strangers:  # a --task of another corpus
        raise ReplayError(f"dialogue {source.id} cannot be played as {task_id}: its parties {strangers} are not {task_id}'s ({', '.join(task.party_ids)})")
    if seat not in task.party_ids:
        raise ReplayError(f"seat {seat!r} is not a party of {task_id} (parties: {', '.join(task.party_ids)})")
    other = task.other(seat)
    script = PersonScript(source, other)
    agents = {seat: agent if agent is not None else make_agent(agent_spec, task), other: script}
    played = play_episode(task, agents, seed=episode_seed(seed, number), scenario=source)
    human = task.judge(source)
    played.meta.update(
        {
            "agents": {p: (agent_spec if p == seat else SCRIPT) for p in task.party_ids},
            "replay": {
                "source": source.id,
                "seat": seat,
                "script_exhausted": script.exhausted,
                "script_dropped": script.dropped,
                "human_score": human.scores.get(seat),
                "human_agreed": human.agreed,
            },
        }
    )
    return played


class ReplayRow(Model):
    """The figures of one replayed episode (None where a figure does not apply)."""

    source: str
    seat: str
    agreement: float
    agent_score: float | None
    human_score: float | None
    pareto: float | None
    walk_away: float
    stuck: float
    human_agreement: float | None
    human_pareto: float | None
    frontier_distance: float | None = None
    surplus: float | None = None
    human_frontier_distance: float | None = None
    human_surplus: float | None = None


def pareto_share(task: Task, dialogue: Dialogue) -> float | None:
    """The episode's Pareto figure: its first episode metric whose name holds `pareto` (None where none applies)."""
    figures = task.episode_metrics(dialogue)
    return next((v for k, v in figures.items() if "pareto" in k and v is not None), None)


def replay_row(played: Dialogue, source: Dialogue, task: Task) -> ReplayRow:
    info = played.meta["replay"]
    seat = info["seat"]  # type: ignore[index]
    outcome = played.outcome or task.judge(played)
    human = task.judge(source)

    def pareto(dialogue: Dialogue) -> float | None:
        return pareto_share(task, dialogue)

    agreed = bool(outcome.agreed)
    ended_by = played.events[-1].kind if played.events else ""
    return ReplayRow(
        source=source.id,
        seat=seat,
        agreement=float(agreed),
        agent_score=score_of(outcome, seat),
        human_score=score_of(human, seat),
        pareto=pareto(played) if agreed else None,
        walk_away=float(actions.KIND_OF_EVENT.get(ended_by, ended_by) in LEAVE_KINDS),
        stuck=float(bool(info["script_exhausted"]) and not agreed),  # type: ignore[index]
        human_agreement=None if human.agreed is None else float(human.agreed),
        human_pareto=pareto(source.model_copy(update={"outcome": human})) if human.agreed else None,
        **_value_figures(task, played, outcome, "", seat),
        **_value_figures(task, source, human, "human_", seat),
    )


def _value_figures(task: Task, dialogue: Dialogue, outcome: Any, prefix: str, seat: str) -> dict[str, float | None]:
    """For a task with declared values: the deal's distance to the Pareto frontier and the seat's
    surplus over its walk-away (`duologue.core.values`); nothing otherwise."""
    try:
        figures = task.value_figures(dialogue, outcome)
    except (KeyError, TypeError, ValueError):
        return {}  # a corpus deal the values cannot read
    if not figures:
        return {}
    return {f"{prefix}frontier_distance": figures.get("frontier_distance"), f"{prefix}surplus": figures.get(f"surplus_{seat}")}


def score_of(outcome, party: str) -> float | None:
    """The party's score; an episode without a deal that the task leaves unscored counts 0."""
    score = outcome.scores.get(party)
    if score is None and outcome.agreed is False:
        return 0.0
    return score


class ReplayReport(Model):
    """One replay run: means with 95% bootstrap intervals, and counts."""

    task: str
    agent: str
    dialogues: int
    episodes: int
    agreement: float | None = None
    agent_score: float | None = None
    human_score: float | None = None
    score_difference: float | None = None
    pareto: float | None = None
    walk_away: float | None = None
    stuck: float | None = None
    human_agreement: float | None = None
    human_pareto: float | None = None
    frontier_distance: float | None = None
    surplus: float | None = None
    human_frontier_distance: float | None = None
    human_surplus: float | None = None
    intervals: dict[str, tuple[float, float]] = Field(default_factory=dict)
    counts: dict[str, int] = Field(default_factory=dict)


FIGURES = (
    "agreement", "agent_score", "human_score", "score_difference", "pareto", "walk_away", "stuck", "human_agreement", "human_pareto",
    "frontier_distance", "surplus", "human_frontier_distance", "human_surplus",
)


def summarize(rows: list[ReplayRow], *, task_id: str, agent: str, seed: int = 0) -> ReplayReport:
    """Means, intervals and counts over replayed episodes."""
    columns: dict[str, list[float]] = {name: [] for name in FIGURES}
    for row in rows:
        for name in FIGURES:
            value = (
                row.agent_score - row.human_score
                if name == "score_difference" and row.agent_score is not None and row.human_score is not None
                else getattr(row, name, None)
            )
            if value is not None:
                columns[name].append(float(value))
    report = ReplayReport(task=task_id, agent=agent, dialogues=len({r.source for r in rows}), episodes=len(rows))
    for name, values in columns.items():
        report.counts[name] = len(values)
        if values:
            estimate: Estimate = bootstrap_mean(values, seed=seed)
            setattr(report, name, estimate.mean)
            report.intervals[name] = (estimate.low, estimate.high)
    return report


def seats_of(task_id: str, seat: str) -> list[str]:
    """`both` -> every party of the task; a party id -> that party alone."""
    parties = list(tasks.make(task_id).party_ids)
    if seat == "both":
        return parties
    if seat not in parties:
        raise ReplayError(f"--seat {seat!r}: use both or a party of {task_id} ({', '.join(parties)})")
    return [seat]


def run_replay(
    dialogues: Iterable[Dialogue],
    *,
    corpus: str,
    agent: str,
    task_id: str | None = None,
    seat: str = "both",
    seed: int = 0,
    on_episode: Callable[[Dialogue], None] | None = None,
) -> Iterator[tuple[Dialogue, ReplayRow]]:
    """Replay each dialogue with the agent in each asked seat; yields (played dialogue, its figures)."""
    number = 0
    for source in dialogues:
        found = task_for(source, corpus, task_id)
        task = tasks.make(found)
        for party in seats_of(found, seat):
            played = replay_one(source, found, agent, party, seed=seed, number=number)
            number += 1
            if on_episode is not None:
                on_episode(played)
            yield played, replay_row(played, source, task)
