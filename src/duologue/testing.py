"""Conformance checks every registered task must pass (run by the tests on each task id).

Like Gymnasium's `check_env`: the task has a valid spec (its corpus registered, its `max_turns` a
bound random play can reach); the same seed gives the same episode; no observation, and no row
shown beside the chat, leaks the other party's private view (`duologue.testing_privacy`: searched
for the partner's secrets, and tested differentially: swap the partner's private view for another
and nothing a party is shown may change); random legal play always ends, and each move it samples
is one the action schema admits; every move sampled from `action_schema` is valid JSON
Schema-wise, reads through `parse_action`, the terminal parser and the platform's move reader, and
is accepted by the task; the outcome agrees with the events; illegal moves are refused and
counted; every transcript survives the task's corpus writer; every transcript, read back as it
is stored, replays through the platform's replay (`duologue.core.replay`) to the same events,
observations and outcome; each of `closing_moves` is a legal move that the task judges an agreement. Problems are reported as `ConformanceError` lines, never
as a raw trace of the task's code.
"""

from __future__ import annotations

import json
import random
import importlib
import traceback
from typing import Any, Callable

from duologue.core import actions, moves
from duologue.core.agent import RandomAgent
from duologue.core.episode import play_episode
from duologue.core.replay import ReplayClock, ReplayMismatch, replay
from duologue.core.schema import Dialogue, Message
from duologue.core.task import IllegalAction, Task
from duologue.data.compare import record_differences
from duologue.data.formats import errors_of
from duologue.core.spec import TaskSpec
from duologue.tasks import VARIANTS, corpus_format, corpus_names, make, task_class
from duologue.testing_privacy import check_differential_privacy, leaks


class ConformanceError(AssertionError):
    """A task broke one or more of the contracts; the message lists each failure."""


MAX_CHECKED_TURNS = 1000
"""The longest episode the checker plays to the end (a bound for a task's `max_turns`)."""


def check_task(task_id: str, *, episodes: int = 20, seed: int = 0, **options: Any) -> None:
    """Run every check on `task_id`; raise `ConformanceError` listing all failures."""
    failures: list[str] = _check_spec(task_id, options)
    if failures:
        raise ConformanceError(f"{task_id} fails {len(failures)} check(s):\n" + "\n".join(f"  - {f}" for f in failures))
    for episode in range(episodes):
        episode_seed = seed + episode
        found = _guarded("the episode checks", lambda s=episode_seed: _check_episode(task_id, s, options))  # type: ignore[misc]
        failures += [f"seed {episode_seed}: {f}" for f in found]
        if len(failures) > 20:
            break
    failures += _check_illegal_moves(make(task_id, **options), seed)
    if failures:
        raise ConformanceError(f"{task_id} fails {len(failures)} check(s):\n" + "\n".join(f"  - {f}" for f in failures[:40]))


def _guarded(what: str, check: Callable[[], list[str]]) -> list[str]:
    """Run one check; a crash in the task's own code becomes a failure line that names it."""
    try:
        return check()
    except Exception as error:  # noqa: BLE001 - the checker reports any crash of the task under test
        where = traceback.extract_tb(error.__traceback__)[-1]
        return [f"{what} crashed: {type(error).__name__}: {error} (at {where.filename.rsplit('/', 1)[-1]}:{where.lineno})"]


def _check_spec(task_id: str, options: dict[str, Any]) -> list[str]:
    """The task class carries a valid `TaskSpec` that agrees with the registry and the task."""
    try:
        cls = task_class(task_id)
    except Exception as error:  # noqa: BLE001 - an unimportable task is the checker's finding
        return [f"the task cannot be loaded: {type(error).__name__}: {error}"]
    spec = getattr(cls, "spec", None)
    if not isinstance(spec, TaskSpec):
        return [f"{cls.__name__} has no `spec` (a duologue.core.spec.TaskSpec); generic code cannot read what the task is"]
    if task_id in VARIANTS:
        spec = spec.model_copy(update={"id": task_id})  # a variant registered with options
    failures = []
    if spec.id != task_id:
        failures.append(f"the spec's id {spec.id!r} differs from the registered id {task_id!r}")
    try:
        task = make(task_id, **options)
    except Exception as error:  # noqa: BLE001
        return [*failures, f"make({task_id!r}) failed: {type(error).__name__}: {error}"]
    if tuple(task.party_ids) != tuple(spec.parties):
        failures.append(f"party_ids {task.party_ids} differ from the spec's parties {spec.parties}")
    if not isinstance(task.max_turns, int) or not 1 <= task.max_turns <= MAX_CHECKED_TURNS:
        failures.append(f"max_turns is {task.max_turns!r}: random episodes are played to the end, so give a whole number up to {MAX_CHECKED_TURNS} (check_task(..., max_turns=N) for a long task)")
    if spec.corpus is not None and spec.corpus not in corpus_names():
        failures.append(f"the spec's corpus {spec.corpus!r} is not a registered corpus format ({', '.join(corpus_names())})")
    try:
        importlib.import_module(spec.resources)
    except ImportError as error:
        failures.append(f"the spec's resources package {spec.resources!r} cannot be imported: {error}")
    return failures


def _random_agents(task: Task) -> dict[str, RandomAgent]:
    return {p: RandomAgent() for p in task.party_ids}


def _check_episode(task_id: str, seed: int, options: dict[str, Any]) -> list[str]:
    failures: list[str] = []
    task = make(task_id, **options)
    first = play_episode(task, _random_agents(task), seed=seed)
    again = play_episode(make(task_id, **options), _random_agents(task), seed=seed)
    if first.model_dump() != again.model_dump():
        failures.append("the same seed gave two different episodes")
    failures += _check_privacy_while_playing(make(task_id, **options), seed)
    failures += _guarded("the differential privacy check", lambda: check_differential_privacy(task_id, seed, options))
    failures += _guarded("the action schema check", lambda: _check_action_schema(make(task_id, **options), seed))
    failures += _guarded("the front-end check", lambda: _check_front_ends(make(task_id, **options), seed))
    failures += _check_outcome(make(task_id, **options), first)
    failures += _check_corpus_round_trip(task, first)
    failures += _check_replay(make(task_id, **options), first)
    failures += _guarded("the replay check", lambda: _check_stored_replay(task_id, options, task, first))
    return failures


def _check_privacy_while_playing(task: Task, seed: int) -> list[str]:
    """Play randomly, and after every move search both observations for the other's secrets."""
    failures: list[str] = []
    task.reset(seed=seed)
    rng = random.Random(seed)
    limit = task.max_turns * 3 + 10
    for _ in range(limit):
        for party in task.party_ids:
            leak = leaks(task, task.observe(party))
            if leak:
                return [f"observe({party!r}) shows the other party's private value {leak!r}"]
        mover = task.to_move
        if task.done or mover is None:
            break
        unfit = _unfit_closing_move(task, mover)
        if unfit:
            return [unfit]
        move = task.sample_action(mover, rng)
        unschemed = moves.validate(task.action_schema(mover), move.model_dump(mode="json"))
        if unschemed is not None:  # bots could make it, people and LLMs (who move by the schema) never
            return [f"sample_action gave {move.model_dump(mode='json')}, which action_schema does not admit: {unschemed}"]
        try:
            task.step(move, mover)
        except IllegalAction as error:
            return [f"sample_action gave an illegal move: {error}"]
    if not task.done:
        failures.append(f"random legal play did not end within {limit} moves")
    if task.turn > task.max_turns:
        failures.append(f"played {task.turn} moves, more than max_turns={task.max_turns}")
    return failures


def _unfit_closing_move(task: Task, party: str) -> str | None:
    """Each of `Task.closing_moves` must be a legal move now that the task judges an agreement."""
    for move in task.closing_moves(party):
        dump = move.model_dump(mode="json")
        if moves.validate(task.action_schema(party), dump) is not None or not task.outcome_if(party, move).agreed:
            return f"closing_moves({party!r}) gave {dump}, which is not a legal move that closes a deal"
    return None


def _check_outcome(task: Task, dialogue: Dialogue) -> list[str]:
    failures = []
    if dialogue.outcome is None:
        return ["a finished episode has no outcome"]
    rejudged = task.judge(Dialogue.model_validate_json(dialogue.model_dump_json()))
    if rejudged != dialogue.outcome:
        failures.append(f"judging the transcript again gives {rejudged.model_dump()} instead of {dialogue.outcome.model_dump()}")
    unknown = set(dialogue.outcome.scores) - set(task.party_ids)
    if unknown:
        failures.append(f"scores name unknown parties {sorted(unknown)}")
    return failures


def _check_corpus_round_trip(task: Task, dialogue: Dialogue) -> list[str]:
    if task.corpus is None:
        return []
    fmt = corpus_format(task.corpus)
    record = fmt.from_dialogue(dialogue)
    problems = errors_of(fmt.check(record))  # rule anomalies (warnings) are allowed: people make them too
    if problems:
        return [f"the {task.corpus} writer produced an invalid record: {problems[0]}"]
    back = fmt.to_dialogue(record)
    again = fmt.from_dialogue(back)
    failures = [f"{task.corpus} record does not survive a round trip: {d}" for d in record_differences(record, again)[:3]]
    said = [(m.party, m.text) for m in dialogue.events if isinstance(m, Message)]
    said_back = [(m.party, m.text) for m in back.events if isinstance(m, Message)]
    if [t for _, t in said] != [t for _, t in said_back]:
        failures.append(f"the {task.corpus} writer changed the messages")
    kinds = [e.kind for e in dialogue.events if e.kind != "system"]
    kinds_back = [e.kind for e in back.events if e.kind != "system"]
    if kinds != kinds_back:
        failures.append(f"the {task.corpus} writer changed the moves: {kinds} -> {kinds_back}")
    return failures


def _check_replay(task: Task, dialogue: Dialogue) -> list[str]:
    task.reset(seed=12345, scenario=dialogue)
    if task.scenario != dialogue.scenario:
        return ["reset(scenario=dialogue) did not replay the dialogue's scenario"]
    return []


def _replayed(task_id: str, options: dict[str, Any], stored: Dialogue, events: list[Any]) -> Task:
    """A fresh engine rebuilt as the platform rebuilds a dialogue: the stored seed draws the
    scenario and first mover again (self-play drew them), then `events` replay as stored.
    Raises `ReplayMismatch` when they do not."""
    clock = ReplayClock()
    rebuilt = make(task_id, **{**options, "clock": clock})
    clock.fixed = 0.0  # the start of self-play's virtual clock (the platform fixes the stored start)
    try:
        rebuilt.reset(seed=stored.meta.get("seed"))
    finally:
        clock.fixed = None
    replay(rebuilt, clock, events)
    return rebuilt


def _check_stored_replay(task_id: str, options: dict[str, Any], played: Task, dialogue: Dialogue) -> list[str]:
    """Rebuild the episode from its events read back as stored and compare it with the engine
    that played it: the same scenario and events, what each party observes, and the outcome. A
    task whose events do not map back to its moves, or whose state depends on anything but them,
    would stall a live dialogue on every other worker."""
    stored = Dialogue.model_validate_json(dialogue.model_dump_json())
    try:
        rebuilt = _replayed(task_id, options, stored, stored.events)
    except ReplayMismatch as error:
        return [f"the stored events do not replay as the platform rebuilds a dialogue (duologue.core.replay): {error}"]
    if rebuilt.scenario != stored.scenario:
        return ["the stored seed does not draw the stored scenario again"]
    if [e.model_dump() for e in rebuilt.events] != [e.model_dump() for e in played.events]:
        return ["replaying the stored events gave other events than were played"]
    for party in played.party_ids:
        if rebuilt.observe(party).model_dump(exclude={"seconds_left"}) != played.observe(party).model_dump(exclude={"seconds_left"}):
            return [f"after replaying the stored events, observe({party!r}) differs from the engine that played them (state kept outside the events?)"]
    if rebuilt.last()[2] != dialogue.outcome:
        return ["replaying the stored events gives another outcome than the episode's"]
    return _check_ended_replay(task_id, options, stored)


def _check_ended_replay(task_id: str, options: dict[str, Any], stored: Dialogue) -> list[str]:
    """The platform ends dialogues from outside the rules too (a person gone, the idle clock, a
    restart: `Task.end`), storing a system note; such a dialogue, cut half-way, must replay."""
    moves_at = [i for i, e in enumerate(stored.events) if e.kind != "system"]
    if len(moves_at) < 2:
        return []
    try:
        cut = _replayed(task_id, options, stored, stored.events[: moves_at[len(moves_at) // 2]])
    except ReplayMismatch:
        return []  # the cut fell inside the events of one move; the whole transcript replayed above
    if cut.done:
        return []
    cut.end("abandoned")
    try:
        again = _replayed(task_id, options, stored, cut.events)
    except ReplayMismatch as error:
        return [f"a dialogue ended from outside the rules (Task.end) does not replay: {error}"]
    if [e.model_dump() for e in again.events] != [e.model_dump() for e in cut.events] or again.last()[2] != cut.last()[2]:
        return ["a dialogue ended from outside the rules (Task.end) replays to other events or another outcome"]
    return []


def _check_illegal_moves(task: Task, seed: int) -> list[str]:
    task.reset(seed=seed)
    party = task.to_move
    assert party is not None
    failures = []
    if not task.legal_actions(party):
        failures.append("the first mover has no legal move")
    waiting = task.other(party)
    if task.turn_taking == "alternate" and task.legal_actions(waiting):
        failures.append("the party not to move has legal moves under alternate turns")
    illegal_kinds = [k for k in actions.BY_KIND if k not in task.legal_actions(party)]
    for kind in illegal_kinds[:3]:
        action = _example_action(kind)
        before = len(task.events)
        try:
            task.step(action, party)
        except IllegalAction:
            pass
        else:
            failures.append(f"{kind} was accepted though legal_actions did not list it")
            return failures
        if len(task.events) != before:
            failures.append(f"a refused {kind} changed the transcript")
    if illegal_kinds and task.illegal[party] != len(illegal_kinds[:3]):
        failures.append(f"refused moves were not counted ({task.illegal[party]} counted)")
    try:
        task.step(task.sample_action(party, random.Random(seed)), waiting)
    except IllegalAction:
        pass
    else:
        if task.turn_taking == "alternate":
            failures.append("a move out of turn was accepted")
    return failures


def _example_action(kind: str) -> actions.Action:
    examples = {
        "say": actions.Say(text="hello"),
        "select": actions.Select(item={}),
        "offer": actions.Offer(price=1.0),
        "submit-deal": actions.SubmitDeal(mine={}, theirs={}),
    }
    if kind in examples:
        return examples[kind]
    cls = actions.BY_KIND[kind]
    try:
        return cls(kind=kind)
    except ValueError:
        # a task's own kind with required fields: the kind alone must already be refused
        return cls.model_construct(kind=kind)


# --------------------------------------------------------------------------- every front end reads every move


def _move_readers() -> list[tuple[str, Callable[[dict[str, Any], moves.Schema], actions.Action]]]:
    """The ways a move reaches a task: JSON, the terminal, and (when installed) the platform."""
    from duologue.agents.human import command_for, parse_command

    readers: list[tuple[str, Callable[[dict[str, Any], moves.Schema], actions.Action]]] = [
        ("parse_action", lambda data, schema: actions.parse_action(json.dumps(data))),
        ("the terminal", lambda data, schema: parse_command(command_for(data, schema), schema)),
    ]
    try:
        from duologue.web.routers.chat import parse_move
    except ImportError:
        return readers
    readers.append(("the platform's move reader", lambda data, schema: parse_move(json.loads(json.dumps(data)))))
    return readers


def _check_action_schema(task: Task, seed: int) -> list[str]:
    """Sample legal moves from `action_schema` all through an episode: each must validate, read the
    same through every front end, and be accepted by the task."""
    task.reset(seed=seed)
    rng = random.Random(seed + 1)
    readers = _move_readers()
    for _ in range(task.max_turns * 3 + 10):
        if task.done or task.to_move is None:
            return []
        party = task.to_move
        schema = task.action_schema(party)
        if moves.kinds(schema) != task.legal_actions(party):
            return [f"action_schema({party!r}) offers {moves.kinds(schema)} but legal_actions gives {task.legal_actions(party)}"]
        if not schema["oneOf"]:
            return [f"{party!r} is to move but its action schema admits no move"]
        data = moves.sample(schema, rng)
        problem = moves.validate(schema, data)
        if problem is not None:
            return [f"a move sampled from action_schema({party!r}) does not validate against it: {problem} ({data})"]
        read = []
        for name, reader in readers:
            try:
                read.append(reader(data, schema))
            except Exception as error:  # noqa: BLE001 - any refusal of a legal move is a finding
                return [f"{name} refuses a legal move sampled from the action schema: {data}: {error}"]
        if any(r != read[0] for r in read):
            return [f"the front ends read {data} differently: {[r.model_dump() for r in read]}"]
        try:
            task.step(read[0], party)
        except IllegalAction as error:
            return [f"the task refuses a move its own action schema admits: {data}: {error.reason}"]
    return []


# --------------------------------------------------------------------------- every legal kind reaches every front end


def _unreachable_llm(option: moves.Schema, max_chars: int) -> str | None:
    from duologue.agents.llm import describe_moves

    line = describe_moves(moves.action_schema([option]), max_chars)
    return "the prompt writes a field as <value>" if "<value>" in line else None


def _unreachable_terminal(option: moves.Schema, schema: moves.Schema, rng: random.Random) -> str | None:
    from duologue.agents.human import command_for, help_text, parse_command

    kind = moves.kind_of(option)
    if (f"/{kind}" if kind != "say" else "type a message") not in help_text(schema):
        return "/help does not list it"
    data = moves.sample(option, rng)
    try:
        typed = parse_command(command_for(data, schema), schema)
    except Exception as error:  # noqa: BLE001 - any refusal is the finding
        return f"typing {data} fails: {error}"
    return None if typed.model_dump(mode="json") == actions.parse_action(data).model_dump(mode="json") else f"typing {data} gives another move"


def _unreachable_form(option: moves.Schema) -> str | None:
    missing = [name for name, widget in moves.form_fields(option).items() if widget is None]
    return f"the page's form has no input for {', '.join(missing)}" if missing else None


def _front_end_gaps(task: Task, party: str, rng: random.Random) -> list[str]:
    """Each legal kind of `party` now that the RL menu, the LLM prompt, the terminal or the page
    form cannot make, and why."""
    schema = task.action_schema(party)
    legal = moves.kinds(schema)
    menu, _ = moves.menu(schema, rng, moves.MENU_SIZE)
    in_menu = {entry["kind"] for entry in menu if moves.validate(schema, entry) is None}
    gaps = [f"{kind!r} cannot be reached from the RL move menu (no valid entry of {moves.MENU_SIZE})" for kind in legal if kind not in in_menu]
    for option in moves.options(schema):
        kind = moves.kind_of(option)
        for front, why in (
            ("the LLM prompt", _unreachable_llm(option, task.max_message_chars)),
            ("the terminal", _unreachable_terminal(option, schema, rng)),
            ("the page form", _unreachable_form(option)),
        ):
            if why is not None:
                gaps.append(f"{kind!r} cannot be reached from {front}: {why}")
    return gaps


def _check_front_ends(task: Task, seed: int) -> list[str]:
    """Play randomly; at every turn each legal kind must be reachable from every front end."""
    task.reset(seed=seed)
    rng = random.Random(seed + 2)
    seen: set[str] = set()
    for _ in range(task.max_turns * 3 + 10):
        if task.done or task.to_move is None:
            break
        party = task.to_move
        kinds = tuple(task.legal_actions(party))
        if not set(kinds) <= seen:
            gaps = _front_end_gaps(task, party, rng)
            if gaps:
                return gaps[:4]
            seen.update(kinds)
        try:
            task.step(task.sample_action(party, rng), party)
        except IllegalAction:
            break
    return []
