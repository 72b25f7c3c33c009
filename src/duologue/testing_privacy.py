"""The privacy checks of the conformance checker (`duologue.testing`): no party is shown the other's secrets.

Two ways: searching what a party is shown (its observation and the rows beside the chat) for the
other party's private values as they are played (`leaks`), and differentially: swapping the other
party's private view for another changes nothing a party is shown (`check_differential_privacy`).
"""

from __future__ import annotations

import json
import random
from typing import Any, Iterator

from duologue.core import actions
from duologue.core.task import IllegalAction, Observation, Task
from duologue.tasks import make


def leaves(value: Any) -> Iterator[Any]:
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


def leaks(task: Task, observation: Observation) -> Any:
    """A private value of the other party that this observation shows, or None.

    Values the observer may know anyway are not secrets: those in the public scenario, in its own
    view, or in events the other party authored (it chose to say them).
    """
    other = task.other(observation.party)
    known = set(map(str, leaves(task.scenario.public))) | set(map(str, leaves(observation.private)))
    revealed_by_other = " ".join(e.model_dump_json() for e in observation.transcript if e.party == other)
    secrets = {str(v) for v in leaves(task.scenario.private.get(other, {}))} - known
    secrets = {s for s in secrets if len(s) >= 3 and s not in revealed_by_other}
    shown = observation.model_copy(update={"transcript": [e for e in observation.transcript if e.party != other]}).model_dump_json()
    shown += json.dumps(task.items(observation), default=str)  # the rows a page shows beside the chat
    for secret in sorted(secrets):
        if secret in shown:
            return secret
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
