"""The `Task` interface: one dialogue game with its rules, private views and scoring.

Habits from Gymnasium and PettingZoo's AEC API: `reset(seed=...)` gives every episode its own RNG;
`observe(party)` shows only what that party may see; `step(action)` checks the move against the
rules; `last()` says whether the episode is over (terminated by the rules, or truncated by a turn
or time limit). An illegal move raises `IllegalAction`, is counted, and changes nothing: the task
never replaces it with a legal one.

A task subclass implements the rules in a handful of methods (`generate_scenario`, `_legal_kinds`,
`_check`, `_apply`, and `score` or `judge`); everything else (turns, limits, the transcript,
conversion to a `Dialogue`) is here. What the action schema already knows comes by default:
`sample_action` draws a move from `action_schema` with the RNG it is given, and `judge` replays a
transcript's events through a fresh engine of the task and asks its `score` (so the game logic is
written once, in `_legal_kinds`/`_check`/`_apply`); a task overrides either where it needs to
(a corpus whose records break its own rules needs a `judge` of its own).
"""

from __future__ import annotations

import copy
import random
import secrets
from abc import ABC, abstractmethod
from typing import Any, Callable, ClassVar, Literal

from pydantic import Field

from duologue.core import actions, moves
from duologue.core.schema import CONTINUING_NOTES, Dialogue, Event, Model, Outcome, Party, Scenario, Source, SystemNote
from duologue.core.spec import TaskSpec
from duologue.core.values import Values, outcome_figures


class IllegalAction(ValueError):
    """A move the rules do not allow right now. The message is meant for the agent that made it."""

    def __init__(self, party: str, kind: str, reason: str):
        self.party = party
        self.kind = kind
        self.reason = reason
        super().__init__(f"illegal {kind} by {party}: {reason}")


class Observation(Model):
    """What one party sees: the public scenario, its own private view, and the transcript."""

    task: str
    party: str
    role: str | None = None
    public: dict[str, Any]
    private: dict[str, Any]
    transcript: list[Event]
    to_move: str | None
    """The party whose move it is (None once the episode is over, or when turns are free)."""
    legal: list[str]
    """Action kinds this party may make now (empty when it is not its turn)."""
    turn: int
    turns_left: int | None = None
    seconds_left: float | None = None
    done: bool = False
    feedback: list[str] = Field(default_factory=list)
    """Messages from the task to this party only (`your selection was not the mutual friend`)."""


class Task(ABC):
    """Base class of every task. Subclasses set the class attributes and implement the rules."""

    # The engine state a task's methods may read (set by `reset`; only the engine assigns them):
    seed: int
    """The episode's seed (drawn from the OS when `reset` got none, and recorded in the dialogue)."""
    rng: random.Random
    """The episode's own RNG, seeded by `seed`: the only randomness a task may use."""
    scenario: Scenario
    """The episode's scenario: `public` for both, `private[party]` for each party alone."""
    parties: list[Party]
    """The episode's parties, each with its role (from `make_parties`): the one source of roles."""
    events: list[Event]
    """The transcript so far (legal moves as events, and the system's notes)."""
    turn: int
    """Moves made so far."""
    to_move: str | None
    """The party whose move it is (None once the episode is over)."""
    terminated: bool
    """The rules ended the episode (`_terminate`)."""
    truncated: bool
    """A limit or an outside cause ended it (`_truncate`, `end`)."""
    end_reason: str | None
    """Why it ended (`agreement`, `turn_limit`, ...), None while it runs."""
    illegal: dict[str, int]
    """Refused moves per party."""
    feedback: dict[str, list[str]]
    """Messages from the task to each party alone (append to `feedback[party]`)."""
    _options: dict[str, Any]
    """The keyword options the engine was made with (see `fresh`)."""

    spec: ClassVar[TaskSpec]
    """What generic code may know about the task (`duologue.core.spec`); `id`, `family`, `corpus`
    and `party_ids` below are taken from it."""
    id: ClassVar[str]
    """Registered id with a version (`name-v0`). Bump the version when rules or scoring change."""
    family: ClassVar[str]
    corpus: ClassVar[str | None] = None
    """Name of the corpus format that writes this task's transcripts (`duologue.tasks.CORPUS_FORMATS`)."""
    party_ids: ClassVar[tuple[str, str]]
    """The ids parties have in this task's transcripts (the corpus's own names)."""
    default_max_turns: ClassVar[int] = 40
    """Moves before an episode is truncated, unless `max_turns` says otherwise."""
    agents: ClassVar[dict[str, str]] = {}
    """The task's own agent kinds: name -> `module:Class` of an `Agent` subclass, e.g.
    `{"rule": "mypackage.agents:RuleAgent"}`; `make_agent("rule", task)` builds one, and
    `duologue tasks` lists them. Generic kinds (`random`, `llm`, `human`) need no entry."""
    max_message_chars: ClassVar[int] = 1000
    """The longest message a party may send (the `say` move's `maxLength`)."""

    def __new__(cls, *args: Any, **options: Any) -> "Task":
        made = super().__new__(cls)
        made._options = dict(options)  # what it was made with, so `fresh()` makes its twin
        return made

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        spec = cls.__dict__.get("spec")
        if isinstance(spec, TaskSpec):
            cls.id = spec.id
            cls.family = spec.family
            cls.corpus = spec.corpus
            cls.party_ids = spec.parties

    def __init__(
        self,
        *,
        max_turns: int | None = None,
        time_limit: float | None = None,
        turn_taking: Literal["alternate", "free"] = "alternate",
        clock: Callable[[], float] | None = None,
        first: str | None = None,
    ) -> None:
        """
        max_turns: actions before the episode is truncated. time_limit: seconds (by `clock`).
        turn_taking: `alternate` for self-play; `free` lets either party act when the rules allow
        (people typing in a browser). clock: wall clock for live play; by default a virtual clock
        that advances one second per action, so the same seed gives the same transcript.
        first: which party moves first (default: drawn from the episode's RNG).
        """
        if max_turns is not None and (isinstance(max_turns, bool) or not isinstance(max_turns, int) or max_turns < 1):
            raise ValueError(f"max_turns must be a whole number of at least 1, got {max_turns!r}")
        if time_limit is not None and (isinstance(time_limit, bool) or not isinstance(time_limit, (int, float)) or not 0 < time_limit < float("inf")):
            raise ValueError(f"time_limit must be a positive number of seconds, got {time_limit!r}")
        if turn_taking not in ("alternate", "free"):
            raise ValueError(f"turn_taking must be 'alternate' or 'free', got {turn_taking!r}")
        self.max_turns = max_turns if max_turns is not None else self.default_max_turns
        if isinstance(self.max_turns, bool) or not isinstance(self.max_turns, int) or self.max_turns < 1:
            raise ValueError(f"{type(self).__name__}.default_max_turns must be a whole number of at least 1, got {self.max_turns!r}")
        self.time_limit = time_limit
        self.turn_taking = turn_taking
        self._clock = clock
        self._first = first
        self._started = False

    # ------------------------------------------------------------------ rules (subclasses)

    @abstractmethod
    def generate_scenario(self, rng: random.Random) -> Scenario:
        """A new scenario drawn from `rng` only."""

    def private_set(self, scenario: Scenario, party: str, before: dict[str, Any], fixed: set[str]) -> None:
        """Someone set part of `party`'s private view of `scenario` (a collection protocol showed a
        person their own priorities; `before` is the view as drawn). A task whose scenarios relate
        the parties' views adjusts the others here so the drawn relation holds, leaving the parties
        in `fixed` (whose views people also set) alone. By default nothing changes."""
        return None

    def make_parties(self, scenario: Scenario) -> list[Party]:
        """The parties of an episode with their roles: the one place roles come from. By default a
        party's role is its private view's `role` (a scenario that draws who buys and who sells);
        a task whose parties always play the same role returns them here. `Observation.role`,
        stored dialogues and the transcript's names all read the result."""
        return [Party(id=p, kind="bot", role=scenario.private.get(p, {}).get("role")) for p in self.party_ids]

    def role_of(self, party: str) -> str | None:
        """`party`'s role in this episode (from `parties`), None where the task has no roles."""
        return next((p.role for p in self.parties if p.id == party), None)

    @abstractmethod
    def _legal_kinds(self, party: str) -> list[str]:
        """Action kinds the rules allow `party` now, ignoring whose turn it is."""

    def _check(self, party: str, action: actions.Action) -> str | None:
        """Why this particular move is illegal (a deal that does not add up), or None when legal."""
        return None

    def _apply(self, party: str, action: actions.Action) -> None:  # noqa: B027  an optional hook, not abstract
        """Update the task's state after a legal move; call `self._terminate(...)` when the rules end the game."""

    def _on_reset(self) -> None:  # noqa: B027  an optional hook, not abstract
        """Set up per-episode state after the scenario is known."""

    def judge(self, dialogue: Dialogue) -> Outcome:
        """The outcome and scores of a transcript, from its scenario and events alone.

        Pure, so it scores any dialogue: a played episode, a corpus record, a collected one. By
        default the events are replayed through a fresh engine of this task (`replay`) and its
        `score` says the outcome, so the rules are written once. Override it where stored
        transcripts need their own reading (a corpus that breaks the task's rules).
        """
        return self.replay(dialogue).score()

    def score(self) -> Outcome:
        """The outcome of the episode this engine holds, from its state (what `_apply` kept), for
        the default `judge`: `Outcome(reason=..., agreed=..., deal=..., scores={party: points})`.
        `self.end_reason` says how it ended (`None` while it runs, or a limit's name)."""
        raise NotImplementedError(f"{type(self).__name__} implements neither `score` nor `judge`: one of them says how an episode ends")

    def fresh(self) -> "Task":
        """A new engine of this task with the same options (nothing played)."""
        twin = type(self)(**getattr(self, "_options", {}))
        for name in ("spec", "id"):  # a variant registered with options carries its own
            if name in self.__dict__:
                setattr(twin, name, self.__dict__[name])
        return twin

    def replay(self, dialogue: Dialogue) -> "Task":
        """A fresh engine that has made the dialogue's moves, for `judge`: each move the rules admit
        (by kind and `_check`, whoever's turn it was: people in a browser move freely) goes through
        `_apply`; a move they would refuse changes nothing; a system note ends it as a limit does."""
        engine = self.fresh()
        engine.turn_taking = "free"
        engine._first = next((e.party for e in dialogue.events if e.party in engine.party_ids), None)
        engine._start(0, dialogue.scenario, dialogue.parties)  # read in place: the rules never change a scenario
        for event in dialogue.events:
            if engine.done:
                break
            if isinstance(event, SystemNote):
                if event.name not in CONTINUING_NOTES:
                    engine.truncated, engine.end_reason = True, event.name
                engine.events.append(event)
                continue
            try:
                action = actions.action_of_event(event)
            except ValueError:  # a stored event no move of the rules makes (a corpus's null price)
                continue
            party = event.party
            if action is None or party not in engine.party_ids or action.kind not in engine._legal_kinds(party) or engine._check(party, action) is not None:
                continue
            engine.events.append(event)
            engine.turn += 1
            engine._apply(party, action)
            engine.to_move = None if engine.done else engine.next_party(party, action)
        return engine

    def sample_action(self, party: str, rng: random.Random) -> actions.Action:
        """A random legal move for `party` (like Gymnasium's `action_space.sample()`): by default
        drawn from the schemas of the kinds the rules allow it (`move_schema`) with `rng`, the
        episode's seeded RNG of whoever asks. Override it to weigh kinds or say task-like words."""
        kinds = self.legal_actions(party) or self._legal_kinds(party)
        if not kinds:
            raise IllegalAction(party, "move", "no move is allowed now")
        return actions.parse_action(moves.sample(moves.action_schema(self.move_schema(party, kind) for kind in kinds), rng))

    def move_schema(self, party: str, kind: str) -> moves.Schema:
        """The JSON Schema of one legal move of `party` now, with the task's real bounds.

        The default comes from the action class's fields; a task overrides it to state its bounds
        (a price range, a row of the party's own list, a split that adds up to the pool).
        """
        if kind == "say":
            text = {"type": "string", "minLength": 1, "maxLength": self.max_message_chars}
            return moves.move("say", {"text": text}, description="Say something to the other party.")
        return moves.from_action(actions.BY_KIND[kind])

    def action_schema(self, party: str) -> moves.Schema:
        """A JSON Schema of every move `party` may make now (`{"oneOf": [...]}`; empty when it may
        make none). The one source for LLM output, the terminal's commands, the web form and the
        conformance checker: duologue's `action_space`."""
        self._require_started()
        legal = self.legal_actions(party) if self.turn_taking == "alternate" else ([] if self.done else self._legal_kinds(party))
        return moves.action_schema(self.move_schema(party, kind) for kind in legal)

    def closing_moves(self, party: str) -> list[actions.Action]:
        """Moves with fields by which `party` would close a deal the other side has put forward but
        its observation does not show (a choice made in private). None by default: a visible
        proposal is closed by a move with no fields (an accept), found from the action schema.

        For a helper that answers proposals without reading them (the replay's person script), never
        for an agent: it may tell what the other side keeps private."""
        return []

    def outcome_if(self, party: str, move: actions.Action) -> Outcome:
        """What `judge` says of the episode so far with `party`'s `move` appended, changing nothing:
        for a helper weighing an answer (the replay's script) and for the conformance checker. It
        reads the whole transcript, so it is never for an agent (a private choice would show)."""
        events = [*self.events, move.to_event(party, float(self.turn))]
        return self.judge(self.to_dialogue(with_outcome=False).model_copy(update={"events": events}))

    def episode_metrics(self, dialogue: Dialogue) -> dict[str, float | None]:
        """Per-episode figures for reports (`agreement`, `utility_buyer`, ...); None where a figure
        does not apply to this episode (fairness when there was no deal). By default `agreement`,
        `turns`, and each party's score twice: by party id (`score_<party>`) and, where the task
        has roles, by role (`score_<role>`). A task that writes its own metrics names its per-party
        figures itself (add `score_metrics(dialogue, outcome)` to keep these)."""
        outcome = dialogue.outcome or self.judge(dialogue)
        figures: dict[str, float | None] = {"agreement": None if outcome.agreed is None else float(outcome.agreed)}
        figures["turns"] = float(sum(1 for e in dialogue.events if e.kind != "system"))
        if type(self).episode_metrics is Task.episode_metrics:
            figures.update(score_metrics(dialogue, outcome))
        figures.update(self.value_figures(dialogue, outcome))
        return figures

    # ------------------------------------------------------------------ declared values (optional)

    def values(self, scenario: Scenario) -> Values | None:
        """Each party's value of every outcome of `scenario` and of walking away, and how offers
        are moves (`duologue.core.values`); None (the default) when the task declares none. From it
        duologue derives the outcome space, the Pareto frontier, the Nash and Kalai points, each
        deal's surplus and distance to the frontier, and the classic baseline negotiators.
        Given a scenario holding only one party's private view, it answers for that party only."""
        return None

    def value_figures(self, dialogue: Dialogue, outcome: Outcome) -> dict[str, float | None]:
        """The declared values' per-episode figures (`duologue.core.values.outcome_figures`); none without values."""
        declared = self.values(dialogue.scenario)
        return {} if declared is None else outcome_figures(declared, outcome)

    def items(self, observation: Observation) -> list[dict[str, Any]]:
        """The rows a party can pick with a Select move (MutualFriends: its friends); none by default."""
        return []

    def next_party(self, party: str, action: actions.Action) -> str:
        """Who moves after `party` made `action`; alternation by default."""
        return self.other(party)

    # ------------------------------------------------------------------ episode state

    def reset(self, *, seed: int | None = None, scenario: Scenario | Dialogue | None = None, parties: list[Party] | None = None) -> Observation:
        """Start an episode. Returns the first mover's observation.

        seed: the episode's own RNG (drawn from the OS when None, and recorded). scenario: play a
        given scenario (a corpus `Dialogue`'s scenario replays a real one) instead of generating.
        """
        if isinstance(scenario, Dialogue):
            scenario = scenario.scenario
        self._start(seed, copy.deepcopy(scenario) if scenario is not None else None, parties)
        assert self.to_move is not None
        return self.observe(self.to_move)

    def _start(self, seed: int | None, scenario: Scenario | None, parties: list[Party] | None) -> None:
        """Set up an episode on `scenario` as given (not copied: `reset` copies, `replay` only reads)."""
        self.seed = seed if seed is not None else secrets.randbits(32)
        self.rng = random.Random(self.seed)
        self.scenario = scenario if scenario is not None else self.generate_scenario(self.rng)
        self.parties = with_roles(parties, self.make_parties(self.scenario)) if parties is not None else self.make_parties(self.scenario)
        self.events: list[Event] = []
        self.illegal: dict[str, int] = {p: 0 for p in self.party_ids}
        self.feedback: dict[str, list[str]] = {p: [] for p in self.party_ids}
        self.terminated = False
        self.truncated = False
        self.end_reason: str | None = None
        self.turn = 0
        first = self._first or self.rng.choice(self.party_ids)
        if first not in self.party_ids:
            raise ValueError(f"first={first!r} is not a party of {self.id}: {self.party_ids}")
        self.to_move: str | None = first
        self._start_time = self._now(reset=True)
        self._views: dict[str, tuple[dict[str, Any], dict[str, Any], list[Event]]] = {}
        self._started = True
        self._on_reset()

    def _now(self, reset: bool = False) -> float:
        if self._clock is not None:
            return self._clock()
        return 0.0 if reset else float(self.turn)

    def _require_started(self) -> None:
        if not self._started:
            raise RuntimeError(f"{self.id}: call reset() before playing")

    @property
    def done(self) -> bool:
        return self.terminated or self.truncated

    def other(self, party: str) -> str:
        a, b = self.party_ids
        if party not in self.party_ids:
            raise ValueError(f"{party!r} is not a party of {self.id}: {self.party_ids}")
        return b if party == a else a

    def legal_actions(self, party: str) -> list[str]:
        """Action kinds `party` may make now."""
        self._require_started()
        if self.done or party not in self.party_ids:
            return []
        if self.turn_taking == "alternate" and party != self.to_move:
            return []
        return self._legal_kinds(party)

    def observe(self, party: str) -> Observation:
        """Only what `party` may see: public scenario, its own private view, the shared transcript."""
        self._require_started()
        if party not in self.party_ids:
            raise ValueError(f"{party!r} is not a party of {self.id}: {self.party_ids}")
        view = self._views.get(party)
        if view is None:
            # copies made once per party and episode; later turns copy only the new events
            view = (copy.deepcopy(self.scenario.public), copy.deepcopy(self.scenario.private.get(party, {})), [])
            self._views[party] = view
        public, private, seen = view
        seen.extend(e.model_copy(deep=True) for e in self.events[len(seen) :])
        return Observation.model_construct(
            task=self.id,
            party=party,
            role=self.role_of(party),
            public=public,
            private=private,
            transcript=list(seen),
            to_move=None if self.done or self.turn_taking == "free" else self.to_move,
            legal=self.legal_actions(party),
            turn=self.turn,
            turns_left=max(self.max_turns - self.turn, 0),
            seconds_left=None if self.time_limit is None else max(self.time_limit - (self._now() - self._start_time), 0.0),
            done=self.done,
            feedback=list(self.feedback[party]),
        )

    def step(self, action: actions.Action, party: str | None = None) -> None:
        """Make a move for `party` (default: the party to move). Raises `IllegalAction` if the rules forbid it."""
        self._require_started()
        party = party if party is not None else self.to_move
        kind = getattr(action, "kind", type(action).__name__)
        if party is None or party not in self.party_ids:
            raise IllegalAction(str(party), kind, f"no such party in {self.id} (parties: {', '.join(self.party_ids)})")
        reason = self._why_illegal(party, action)
        if reason is not None:
            self.illegal[party] += 1
            raise IllegalAction(party, kind, reason)
        now = self._now()
        self.events.append(action.to_event(party, now))
        self.turn += 1
        self._apply(party, action)
        if not self.done:
            self.to_move = self.next_party(party, action)
            if self.turn >= self.max_turns:
                self._truncate("turn_limit")
            elif self.time_limit is not None and self._now() - self._start_time >= self.time_limit:
                self._truncate("timeout")
        if self.done:
            self.to_move = None

    def _why_illegal(self, party: str, action: actions.Action) -> str | None:
        if self.done:
            return "the dialogue is over"
        if not isinstance(action, actions.Action):
            return f"{type(action).__name__} is not an action"
        if isinstance(action, actions.Say) and len(action.text) > self.max_message_chars:
            return f"a message may have at most {self.max_message_chars} characters"
        if self.turn_taking == "alternate" and party != self.to_move:
            return f"it is {self.to_move}'s turn"
        legal = self._legal_kinds(party)
        if action.kind not in legal:
            return f"{action.kind} is not allowed now (allowed: {', '.join(legal) or 'nothing'})"
        return self._check(party, action)

    def _terminate(self, reason: str) -> None:
        self.terminated = True
        self.end_reason = reason

    def _truncate(self, reason: str) -> None:
        """End by a limit; the transcript records why, so `judge` can see it."""
        self.truncated = True
        self.end_reason = reason
        self.events.append(SystemNote(party=None, time=self._now(), name=reason))

    def end(self, reason: str) -> None:
        """End the episode from outside the rules (a disconnect, an agent that keeps breaking them)."""
        self._require_started()
        if not self.done:
            self._truncate(reason)
            self.to_move = None

    def status(self) -> tuple[bool, bool, Outcome | None]:
        """(terminated, truncated, outcome): the outcome once the episode is over, else None."""
        self._require_started()
        if not self.done:
            return self.terminated, self.truncated, None
        if type(self).judge is Task.judge:  # the default judge would replay these very moves into this state
            return self.terminated, self.truncated, self.score()
        return self.terminated, self.truncated, self.judge(self.to_dialogue(with_outcome=False))

    def last(self) -> tuple[bool, bool, Outcome | None]:
        """The old name of `status` (kept for code written against it). Not PettingZoo's `last()`,
        which returns the agent's observation and reward: the environments in `duologue.envs` have that."""
        return self.status()

    def to_dialogue(self, *, with_outcome: bool = True) -> Dialogue:
        """The episode so far in the one schema, ready for any corpus writer."""
        self._require_started()
        dialogue = Dialogue(
            id=f"{self.id}-{self.seed}",
            task=self.family,
            scenario=self.scenario,
            parties=self.parties,
            events=list(self.events),
            source=Source(),
            meta={"task_id": self.id, "seed": self.seed, "illegal_actions": dict(self.illegal), "max_turns": self.max_turns},
        )
        if with_outcome and self.done:
            dialogue.outcome = self.status()[2]
        return dialogue


def with_roles(given: list[Party], made: list[Party]) -> list[Party]:
    """`given` parties (people and bots of a live pairing) with the roles `make_parties` gives
    where they carry none, so an episode's roles have one source whoever built its parties."""
    roles = {p.id: p.role for p in made}
    return [p if p.role is not None or roles.get(p.id) is None else p.model_copy(update={"role": roles[p.id]}) for p in given]


def score_metrics(dialogue: Dialogue, outcome: Outcome) -> dict[str, float | None]:
    """Each party's score by party id (`score_<party>`) and by role (`score_<role>`, where parties
    have distinct roles): None for a party the outcome gives no score."""
    if not outcome.scores:
        return {}
    figures: dict[str, float | None] = {}
    roles = [p.role for p in dialogue.parties]
    by_role = all(roles) and len(set(roles)) == len(roles)
    for party in dialogue.parties:
        value = outcome.scores.get(party.id)
        figures[f"score_{party.id}"] = None if value is None else float(value)
        if by_role:
            figures[f"score_{party.role}"] = figures[f"score_{party.id}"]
    return figures
