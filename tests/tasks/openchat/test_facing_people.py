"""What people typed to the open-chat listener and what went wrong (bots facing people): a sarcastic
"thanks" answered with cheer. It is now answered as the complaint it is."""

from __future__ import annotations

import random

import pytest

from duologue.core import actions
from duologue.tasks import make
from duologue.tasks.openchat.agents import SARCASM_REPLIES, ListenerAgent

CHEER = ("yay", "wow", "oh nice", "that's great", "love that", "so cool", "you're welcome", "my pleasure", "glad")


def replies_to(lines: list[str], seed: int, task_id: str) -> list[str]:
    task = make(task_id, style="neutral", utterances=2 * len(lines) + 2)
    task.reset(seed=seed)
    bot = ListenerAgent()
    bot.reset(task, "bot", random.Random(seed))
    out, pending = [], list(lines)
    while not task.done:
        if task.to_move == "user":
            if not pending:
                break
            task.step(actions.Say(text=pending.pop(0)), "user")
        else:
            action = bot.act(task.observe("bot"))
            out.append(action.text)
            task.step(action, "bot")
    return out


@pytest.mark.parametrize("task_id", ["openchat-ed-v0", "openchat-wow-v0"])
def test_oh_great_thanks_super_helpful_is_not_cheered(task_id):
    for seed in range(12):
        last = replies_to(["my exam went badly and i'm pretty upset", "oh great, thanks, super helpful :/"], seed, task_id)[-1]
        assert not any(word in last.lower() for word in CHEER), (seed, last)
        assert last in SARCASM_REPLIES


def test_a_sincere_thanks_is_still_thanked():
    replies = [replies_to(["my exam went badly and i'm pretty upset", "thanks, that really helped"], seed, "openchat-ed-v0")[-1] for seed in range(8)]
    assert not any(reply in SARCASM_REPLIES for reply in replies)
