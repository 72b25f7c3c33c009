"""Conformance checks every registered task must pass (run by the tests on each task id).

Like Gymnasium's `check_env`: the same seed gives the same episode; no observation leaks the
other party's private view; random legal play always ends; the outcome agrees with the events;
illegal moves are refused and counted; every transcript survives the task's corpus writer.
"""

from __future__ import annotations

import random
from typing import Any, Iterator

from duologue.core import actions
from duologue.core.agent import RandomAgent
from duologue.core.episode import play_episode
from duologue.core.schema import Dialogue, Message
from duologue.core.task import IllegalAction, Observation, Task
from duologue.data.compare import record_differences
from duologue.tasks import corpus_format, make


class ConformanceError(AssertionError):
    """A task broke one or more of the contracts; the message lists each failure."""


def check_task(task_id: str, *, episodes: int = 20, seed: int = 0, **options: Any) -> None:
    """Run every check on `task_id`; raise `ConformanceError` listing all failures."""
    failures: list[str] = []
    for episode in range(episodes):
        episode_seed = seed + episode
        failures += [f"seed {episode_seed}: {f}" for f in _check_episode(task_id, episode_seed, options)]
        if len(failures) > 20:
            break
    failures += _check_illegal_moves(make(task_id, **options), seed)
    if failures:
        raise ConformanceError(f"{task_id} fails {len(failures)} check(s):\n" + "\n".join(f"  - {f}" for f in failures[:40]))


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
    failures += _check_outcome(make(task_id, **options), first)
    failures += _check_corpus_round_trip(task, first)
    failures += _check_replay(make(task_id, **options), first)
    return failures


def _check_privacy_while_playing(task: Task, seed: int) -> list[str]:
    """Play randomly, and after every move search both observations for the other's secrets."""
    failures: list[str] = []
    task.reset(seed=seed)
    rng = random.Random(seed)
    limit = task.max_turns * 3 + 10
    for _ in range(limit):
        for party in task.party_ids:
            leak = _leaks(task, task.observe(party))
            if leak:
                return [f"observe({party!r}) shows the other party's private value {leak!r}"]
        if task.done:
            break
        party = task.to_move
        try:
            task.step(task.sample_action(party, rng), party)
        except IllegalAction as error:
            return [f"sample_action gave an illegal move: {error}"]
    if not task.done:
        failures.append(f"random legal play did not end within {limit} moves")
    if task.turn > task.max_turns:
        failures.append(f"played {task.turn} moves, more than max_turns={task.max_turns}")
    return failures


def _leaves(value: Any) -> Iterator[Any]:
    if isinstance(value, dict):
        for v in value.values():
            yield from _leaves(v)
    elif isinstance(value, (list, tuple)):
        for v in value:
            yield from _leaves(v)
    elif isinstance(value, bool) or value is None:
        return
    else:
        yield value


def _leaks(task: Task, observation: Observation) -> Any:
    """A private value of the other party that this observation shows, or None.

    Values the observer may know anyway are not secrets: those in the public scenario, in its own
    view, or in events the other party authored (it chose to say them).
    """
    other = task.other(observation.party)
    known = set(map(str, _leaves(task.scenario.public))) | set(map(str, _leaves(observation.private)))
    revealed_by_other = " ".join(e.model_dump_json() for e in observation.transcript if e.party == other)
    secrets = {str(v) for v in _leaves(task.scenario.private.get(other, {}))} - known
    secrets = {s for s in secrets if len(s) >= 3 and s not in revealed_by_other}
    shown = observation.model_copy(update={"transcript": [e for e in observation.transcript if e.party != other]}).model_dump_json()
    for secret in sorted(secrets):
        if secret in shown:
            return secret
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
    problems = fmt.check(record)
    if problems:
        return [f"the {task.corpus} writer produced an invalid record: {problems[0]}"]
    back = fmt.to_dialogue(record)
    again = fmt.from_dialogue(back)
    failures = [f"{task.corpus} record does not survive a round trip: {d}" for d in record_differences(record, again)[:3]]
    said = [(m.party, m.text) for m in dialogue.events if isinstance(m, Message)]
    said_back = [(m.party, m.text) for m in back.events if isinstance(m, Message)]
    if [t for _, t in said] != [t for _, t in said_back]:
        failures.append(f"the {task.corpus} writer changed the messages")
    moves = [e.kind for e in dialogue.events if e.kind != "system"]
    moves_back = [e.kind for e in back.events if e.kind != "system"]
    if moves != moves_back:
        failures.append(f"the {task.corpus} writer changed the moves: {moves} -> {moves_back}")
    return failures


def _check_replay(task: Task, dialogue: Dialogue) -> list[str]:
    task.reset(seed=12345, scenario=dialogue)
    if task.scenario != dialogue.scenario:
        return ["reset(scenario=dialogue) did not replay the dialogue's scenario"]
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
    return examples.get(kind) or actions.BY_KIND[kind]()
