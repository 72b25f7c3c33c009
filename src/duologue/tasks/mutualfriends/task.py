"""The MutualFriends task (`mutualfriends-v0`): two parties find the one friend they have in common.

Rules (He et al., ACL 2017; the facts live in `rules.py`, scenarios in `scenarios.py`):

* Parties are "0" and "1", the corpus's own ids. Each privately holds 5 to 12 friends, records over
  the scenario's 3 or 4 attributes; exactly one record is in both lists.
* Moves: `say` (a chat message) and `select` (pick one friend of your own list; selecting a record
  that is not in your list is refused as illegal). Both are legal on every turn.
* A wrong selection does not end the game. The selector is told in its own observation
  (`feedback`, see `wrong_selection_note`); the partner sees the selection event in the
  transcript, as on CoCoA's chat screen.
* The dialogue succeeds, and ends, when both parties' latest selections are the mutual friend.
* The corpus was collected with a 300 s time limit on the web; here the episode is cut after
  `default_max_turns` moves (messages and selections), and `time_limit` (base class) does the
  web's job for live play. Running out of turns or time is a failure.

Observations: the public scenario (`attributes`, `alphas`), the party's own `friends`, the
transcript, and feedback on the party's wrong selections. `items(observation)` lists the party's
friends, so `/select N` in the terminal picks row N.

Judging is pure (scenario + events), so corpus dialogues are scored by the same rules: success
gives each party 1.0, anything else 0.0. Episode metrics: `success`, `utterances` (messages),
`selections`, `turns` (moves), `success_per_selection` and `success_per_turn` (success divided by
the number of selections / moves, 0 for a failure), and `agreement` (= success, for generic reports).
"""

from __future__ import annotations

import random
from typing import Any, Sequence

from duologue.core import actions, moves
from duologue.core.schema import Dialogue, Message, Outcome, Scenario, Select, SystemNote
from duologue.core.spec import Metric, TaskSpec
from duologue.core.task import Observation, Task
from duologue.tasks.mutualfriends import rules, scenarios

PARTY_IDS: tuple[str, str] = scenarios.PARTY_IDS
LIMIT_NOTES: tuple[str, ...] = ("turn_limit", "timeout", "illegal_actions")
"""Notes the engine appends when it cuts an episode short; the dialogue then ended without success."""

RANDOM_LINES: tuple[str, ...] = (
    "hi",
    "hello!",
    "any ideas?",
    "hmm, let me look at my list",
    "what about you?",
    "ok",
)
RANDOM_TEMPLATES: tuple[str, ...] = (
    "do you have anyone with {value}?",
    "i have {value}",
    "{value}?",
    "none with {value}",
)


def attribute_names(public: dict[str, Any], friends: Sequence[dict[str, Any]] = ()) -> list[str]:
    """The scenario's attribute names: from its attribute objects, else from the friends' keys."""
    names = [a["name"] for a in public.get("attributes", []) if isinstance(a, dict) and isinstance(a.get("name"), str)]
    if names:
        return names
    return list(dict.fromkeys(key for friend in friends for key in friend))


def describe_friend(friend: dict[str, Any]) -> str:
    """A friend as one line of its values (`Anna, Rice University, Hiking`)."""
    return ", ".join(str(v) for v in friend.values())


def wrong_selection_note(friend: dict[str, Any]) -> str:
    """What a party is told after selecting `friend` when it was not the mutual friend.

    Agents recognise the note by comparing it with this function's text for each of their friends.
    """
    return f"Not the mutual friend: {describe_friend(friend)}. Your partner does not have this friend."


class MutualFriendsTask(Task):
    """Both parties must select the one friend their private lists share."""

    spec = TaskSpec(
        id="mutualfriends-v0",
        family="mutualfriends",
        title="MutualFriends: find the friend you share",
        description=(
            "Each party holds a private list of friends (name, school, major, company, ...). Exactly one friend is on "
            "both lists. They chat to find that friend and each selects them; a wrong selection does not end the game."
        ),
        parties=PARTY_IDS,
        kind="cooperative",
        metrics=[
            Metric(name="success", label="success"),
            Metric(name="selections", label="selections", higher_is_better=False),
            Metric(name="utterances", label="utterances", higher_is_better=False),
            Metric(name="turns", label="turns", higher_is_better=False),
        ],
        score="1 when both selected the mutual friend, else 0",
        judge_context="Two people each hold a private list of friends and try to find the one friend both lists share.",
        corpus="mutualfriends",
        resources="duologue.tasks.mutualfriends",
        widget="friends.js",
        questionnaires={"party": "party.yaml", "rater": "rater.yaml"},
    )
    default_max_turns = 50
    agents = {"rule": "duologue.tasks.mutualfriends.agents:MutualFriendsRuleAgent"}

    # ------------------------------------------------------------------ scenario

    def generate_scenario(self, rng: random.Random) -> Scenario:
        return scenarios.generate(rng)

    def _on_reset(self) -> None:
        friends = {p: self.scenario.private.get(p, {}).get("friends", []) for p in self.party_ids}
        self.mutual = rules.mutual_friend(friends[PARTY_IDS[0]], friends[PARTY_IDS[1]])
        self.selections: dict[str, dict[str, Any]] = {}

    def friends(self, party: str) -> list[dict[str, Any]]:
        return list(self.scenario.private.get(party, {}).get("friends", []))

    def items(self, observation: Observation) -> list[dict[str, Any]]:
        """The party's own friends: the rows `/select N` picks from."""
        return [dict(f) for f in observation.private.get("friends", [])]

    # ------------------------------------------------------------------ rules

    def _legal_kinds(self, party: str) -> list[str]:
        return ["say", "select"]

    def move_schema(self, party: str, kind: str) -> moves.Schema:
        if kind == "select":
            rows = [dict(f) for f in self.friends(party)]
            return moves.move(kind, {"item": {"enum": rows}}, description="Select a friend of your own list (by row) as the mutual friend.")
        return super().move_schema(party, kind)

    def _check(self, party: str, action: actions.Action) -> str | None:
        if isinstance(action, actions.Select) and not rules.holds_friend(self.friends(party), action.item):
            return "you can only select a friend from your own list"
        return None

    def _apply(self, party: str, action: actions.Action) -> None:
        if not isinstance(action, actions.Select):
            return
        self.selections[party] = dict(action.item)
        if not rules.same_friend(action.item, self.mutual):
            self.feedback[party].append(wrong_selection_note(dict(action.item)))
        if rules.is_success(self.selections, self.mutual, self.party_ids):
            self._terminate("success")

    # ------------------------------------------------------------------ judging

    def judge(self, dialogue: Dialogue) -> Outcome:
        ids = [p.id for p in dialogue.parties]
        friends = {p: dialogue.scenario.private.get(p, {}).get("friends", []) for p in ids}
        try:
            mutual = rules.mutual_friend(*(friends[p] for p in ids))
        except (ValueError, TypeError):
            return Outcome(reason="invalid_scenario", agreed=None)
        success = rules.is_success(rules.latest_selections(dialogue.events), mutual, ids)
        if success:
            reason = "success"
        else:
            notes = [e.name for e in dialogue.events if isinstance(e, SystemNote) and e.name in LIMIT_NOTES]
            reason = notes[-1] if notes else "failure"
        return Outcome(
            reason=reason,
            agreed=success,
            deal={"friend": mutual} if success else None,
            scores={p: 1.0 if success else 0.0 for p in ids},
        )

    def episode_metrics(self, dialogue: Dialogue) -> dict[str, float | None]:
        outcome = dialogue.outcome or self.judge(dialogue)
        success = 1.0 if outcome.agreed else 0.0
        utterances = sum(1 for e in dialogue.events if isinstance(e, Message))
        selections = sum(1 for e in dialogue.events if isinstance(e, Select))
        turns = sum(1 for e in dialogue.events if not isinstance(e, SystemNote))
        return {
            "success": success,
            "agreement": success,
            "utterances": float(utterances),
            "selections": float(selections),
            "turns": float(turns),
            "success_per_selection": success / selections if selections else 0.0,
            "success_per_turn": success / turns if turns else 0.0,
        }

    # ------------------------------------------------------------------ random play

    def sample_action(self, party: str, rng: random.Random) -> actions.Action:
        friends = self.friends(party)
        if rng.random() < 0.4:
            return actions.Select(item=dict(rng.choice(friends)))
        if rng.random() < 0.5:
            return actions.Say(text=rng.choice(RANDOM_LINES))
        value = str(rng.choice(list(rng.choice(friends).values())))
        return actions.Say(text=rng.choice(RANDOM_TEMPLATES).format(value=value))
