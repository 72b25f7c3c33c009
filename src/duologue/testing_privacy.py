"""The privacy checks of the conformance checker (`duologue.testing`): no party is shown the other's secrets.

Two ways: searching what a party is shown (its observation and the rows beside the chat) for the
other party's private values as they are played (`leaks`), and differentially: swapping the other
party's private view for another changes nothing a party is shown (`check_differential_privacy`).

The search compares whole JSON values, never substrings: a private number is found as a number
(so 0.9 is not found inside 0.94, and 3 is found however short), a private text as a whole token
or run of tokens of a shown text. What the observer may know anyway is no secret: values of the
public scenario and of its own view, the party ids and role names, and what the other party
itself said or did.
"""

from __future__ import annotations

import json
import random
import re
from typing import Any, Iterator

from duologue.core import actions
from duologue.core.task import IllegalAction, Observation, Task
from duologue.tasks import make

_TOKEN = re.compile(r"[-+]?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?|[^\W_]+", re.UNICODE)
"""A whole number (with its decimals) or a run of letters and digits."""
_EVENT_BOOKKEEPING = frozenset({"party", "time", "kind"})
"""Event fields the engine writes (who and when), not content a task chose to show."""

Leaf = tuple[str, Any]
"""A JSON leaf as compared: ("number", float) or ("text", tuple of casefolded tokens)."""


def leaves(value: Any) -> Iterator[Any]:
    """The scalar leaves of a JSON-like value (booleans and nulls are no secrets)."""
    if isinstance(value, dict):
        for v in value.values():
            yield from leaves(v)
    elif isinstance(value, (list, tuple)):
        for v in value:
            yield from leaves(v)
    elif isinstance(value, bool) or value is None:
        return
    else:
        yield value


def _tokens(text: str) -> tuple[str, ...]:
    return tuple(token.casefold() for token in _TOKEN.findall(text))


def _number(token: str) -> float | None:
    try:
        return float(token)
    except ValueError:
        return None


def leaf(value: Any) -> Leaf | None:
    """How a leaf is compared: a number as a number, a text as its tokens (a text that is one
    number, such as "3", counts as that number)."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return ("number", float(value))
    tokens = _tokens(str(value))
    if len(tokens) == 1 and _number(tokens[0]) is not None:
        return ("number", float(tokens[0]))
    return ("text", tokens) if tokens else None


def _pieces(values: Any) -> tuple[set[float], list[tuple[str, ...]]]:
    """What a shown value holds: its numbers (leaves and numbers written in its texts) and the
    token runs of its texts."""
    found_numbers: set[float] = set()
    texts: list[tuple[str, ...]] = []
    for value in leaves(values):
        if isinstance(value, (int, float)):
            found_numbers.add(float(value))
            continue
        tokens = _tokens(str(value))
        texts.append(tokens)
        found_numbers.update(n for n in map(_number, tokens) if n is not None)
    return found_numbers, texts


def _within(needle: tuple[str, ...], texts: list[tuple[str, ...]]) -> bool:
    size = len(needle)
    return any(text[i : i + size] == needle for text in texts for i in range(len(text) - size + 1))


def _shows(secret: Leaf, numbers: set[float], texts: list[tuple[str, ...]]) -> bool:
    kind, value = secret
    return value in numbers if kind == "number" else _within(value, texts)


def _content(event: Any) -> dict[str, Any]:
    return {k: v for k, v in event.model_dump(mode="json").items() if k not in _EVENT_BOOKKEEPING}


def _public_names(task: Task) -> list[Any]:
    """Ids and role names every party may know."""
    spec = getattr(task, "spec", None)
    roles = list(getattr(spec, "roles", ()) or ())
    return [*task.party_ids, *roles, *(p.role for p in getattr(task, "parties", []) if p.role)]


def leaks(task: Task, observation: Observation) -> Any:
    """A private value of the other party that this observation shows, or None.

    Values the observer may know anyway are not secrets: those in the public scenario, in its own
    view, the parties' ids and roles, or in events a party authored (the other chose to say them;
    the observer's own moves are its own, and a number it happened to pick is no leak). Searched:
    the public view, the feedback, the events nobody authored (the task's notes), and the rows
    shown beside the chat (`Task.items`); the engine's own bookkeeping (turn counts, times) is not
    task content.
    """
    other = task.other(observation.party)
    authored = [_content(e) for e in observation.transcript if e.party is not None]
    known_values = [task.scenario.public, observation.private, _public_names(task), authored]
    known_numbers, known_texts = _pieces(known_values)
    secrets: dict[Leaf, Any] = {}
    for value in leaves(task.scenario.private.get(other, {})):
        found = leaf(value)
        if found is not None and not _shows(found, known_numbers, known_texts):
            secrets.setdefault(found, value)
    if not secrets:
        return None
    shown = {
        "public": observation.public,
        "feedback": observation.feedback,
        "events": [_content(e) for e in observation.transcript if e.party is None],
        "items": task.items(observation),
    }
    shown_numbers, shown_texts = _pieces(shown)
    for found in sorted(secrets, key=repr):
        if _shows(found, shown_numbers, shown_texts):
            return secrets[found]
    return None


# --------------------------------------------------------------------------- differential privacy


def _shown(task: Task, party: str) -> str:
    """Everything the task gives `party` now: its observation, the rows shown beside it, its action schema."""
    observation = task.observe(party)
    given = [task.items(observation), task.action_schema(party)]
    return observation.model_dump_json() + json.dumps(given, sort_keys=True, default=str)


def _perturbed(value: Any, keep: set[str]) -> Any:
    """A copy with every leaf changed (numbers shifted, texts marked), except leaves in `keep`."""
    if isinstance(value, dict):
        return {k: _perturbed(v, keep) for k, v in value.items()}
    if isinstance(value, list):
        return [_perturbed(v, keep) for v in value]
    if isinstance(value, bool) or value is None or str(value) in keep:
        return value
    if isinstance(value, int):
        return value + 1
    if isinstance(value, float):
        return value * 1.5 + 1
    if isinstance(value, str):
        return value + " (swapped)"
    return value


def _other_private_views(task_id: str, seed: int, options: dict[str, Any], party: str, scenario: Any, observer: str) -> Iterator[dict[str, Any]]:
    """Other private views for `party`, different from its own: views from other generated
    scenarios, then its own with every leaf changed except those the observer also holds."""
    current = scenario.private.get(party)
    for k in range(1, 4):
        maker = make(task_id, **options)
        maker.reset(seed=seed + 7919 * k)
        view = maker.scenario.private.get(party)
        if view is not None and view != current:
            yield view
    if current:
        keep = {str(v) for v in leaves(scenario.private.get(observer, {}))} | {str(v) for v in leaves(scenario.public)}
        yield _perturbed(current, keep)


def check_differential_privacy(task_id: str, seed: int, options: dict[str, Any]) -> list[str]:
    """Play random legal moves; replay them with the partner's private view swapped for another;
    what each party is shown must not change (until a replayed move becomes illegal)."""
    base = make(task_id, **options)
    base.reset(seed=seed)
    scenario = base.scenario.model_copy(deep=True)
    base.reset(seed=seed, scenario=scenario)
    rng = random.Random(seed)
    played: list[tuple[str, actions.Action]] = []
    shown: list[dict[str, str]] = [{p: _shown(base, p) for p in base.party_ids}]
    for _ in range(base.max_turns * 3 + 10):
        if base.done or base.to_move is None:
            break
        party = base.to_move
        action = base.sample_action(party, rng)
        try:
            base.step(action, party)
        except IllegalAction:
            break
        played.append((party, action))
        shown.append({p: _shown(base, p) for p in base.party_ids})
    for observer in base.party_ids:
        partner = base.other(observer)
        for view in _other_private_views(task_id, seed, options, partner, scenario, observer):
            twin = make(task_id, **options)
            changed = scenario.model_copy(deep=True)
            changed.private[partner] = view
            try:
                twin.reset(seed=seed, scenario=changed)
            except Exception:  # noqa: BLE001 - the task refuses this view as a scenario: try another
                continue
            if _shown(twin, observer) != shown[0][observer]:
                return [f"what {observer!r} is shown at the start depends on {partner!r}'s private view"]
            for step, (party, action) in enumerate(played, start=1):
                try:
                    twin.step(action, party)
                except IllegalAction:
                    break  # the swapped view made the partner's move illegal: nothing more to compare
                if _shown(twin, observer) != shown[step][observer]:
                    return [f"after move {step} ({action.kind} by {party}), what {observer!r} is shown depends on {partner!r}'s private view"]
            break
    return []
