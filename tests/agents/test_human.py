"""The terminal player: commands read from the action schema, help per task, leaving, a whole game."""

from __future__ import annotations

import io
import random

import pytest
from rich.console import Console

from duologue.agents import make_agent
from duologue.agents.human import CommandError, LeftGame, TerminalAgent, command_for, help_text, parse_command
from duologue.core import actions, moves
from duologue.core.episode import play_episode
from duologue.tasks import make, task_ids


def started(task_id: str, seed: int = 2):
    task = make(task_id)
    task.reset(seed=seed)
    return task


@pytest.mark.parametrize("task_id", task_ids())
def test_every_sampled_legal_move_can_be_typed_and_reads_back_the_same(task_id):
    task = started(task_id)
    rng = random.Random(0)
    for _ in range(60):
        party = task.to_move
        if task.done or party is None:
            break
        schema = task.action_schema(party)
        move = moves.sample(schema, rng)
        typed = command_for(move, schema)
        assert parse_command(typed, schema) == actions.parse_action(move), typed
        task.step(actions.parse_action(move), party)


def test_a_split_is_typed_as_what_you_get_and_the_rest_goes_to_the_partner():
    schema = started("casino-v0").action_schema(started("casino-v0").to_move)
    deal = parse_command("/deal food=2 water=1 firewood=0", schema)
    assert deal == actions.SubmitDeal(mine={"Food": 2, "Water": 1, "Firewood": 0}, theirs={"Food": 1, "Water": 2, "Firewood": 3})


@pytest.mark.parametrize(
    ("typed", "problem"),
    [
        ("/deal food=4 water=1 firewood=0", "Food=4 (there are 3)"),
        ("/deal food=1", "say how many of Water, Firewood you get"),
        ("/deal fod=1 water=1 firewood=1", "unknown field 'fod'"),
        ("/accept", "/accept is not a move you can make now"),
        ("/submit-deal mine.food=1 mine.water=1 mine.firewood=1 theirs.food=1 theirs.water=2 theirs.firewood=2", "must add up to the pool"),
        ("/", "type a command after the slash"),
        ("   ", "type a message"),
    ],
)
def test_a_bad_command_says_what_is_wrong(typed, problem):
    task = started("casino-v0")
    with pytest.raises(CommandError, match=problem.replace("(", r"\(").replace(")", r"\)")):
        parse_command(typed, task.action_schema(task.to_move))


def test_help_lists_only_this_task_s_moves_of_the_moment():
    bargain = started("craigslist-v0")
    text = help_text(bargain.action_schema(bargain.to_move))
    assert "/offer <price up to" in text and "/quit" in text
    assert "/submit-deal" not in text and "/select" not in text and "/walk-away" not in text
    friends = started("mutualfriends-v0")
    text = help_text(friends.action_schema(friends.to_move))
    assert f"/select <row 1..{len(friends.friends(friends.to_move))}>" in text and "/offer" not in text


def test_rows_are_picked_by_number_and_prices_may_carry_dollars_and_commas():
    friends = started("mutualfriends-v0")
    party = friends.to_move
    assert parse_command("/select 2", friends.action_schema(party)) == actions.Select(item=friends.friends(party)[1])
    bargain = started("craigslist-v0")
    assert parse_command("/offer $1,200", bargain.action_schema(bargain.to_move)) == actions.Offer(price=1200.0)


def test_a_message_is_refused_when_only_moves_are_allowed():
    task = started("casino-v0")
    proposer = task.to_move
    task.step(actions.SubmitDeal(mine={"Food": 3, "Water": 0, "Firewood": 0}, theirs={"Food": 0, "Water": 3, "Firewood": 3}), proposer)
    with pytest.raises(CommandError, match="cannot send a message now"):
        parse_command("hello?", task.action_schema(task.to_move))


def scripted(lines: list[str]) -> tuple[TerminalAgent, io.StringIO]:
    out = io.StringIO()
    queue = list(lines)
    return TerminalAgent(read=lambda prompt: queue.pop(0), console=Console(file=out, width=120)), out


def test_a_whole_game_in_the_terminal_against_the_rule_bot():
    task = make("casino-v0", first="mturk_agent_1")
    person, out = scripted(["/help", "/deal food=9 water=0 firewood=0", "/deal food=1 water=1 firewood=1"] + ["/accept-deal"] * 40)
    bot = make_agent("rule", task)
    dialogue = play_episode(task, {"mturk_agent_1": person, "mturk_agent_2": bot}, seed=5, max_attempts=100)
    assert dialogue.outcome is not None and dialogue.outcome.reason in ("agreement", "walk_away")
    shown = out.getvalue()
    assert "Moves you can make now" in shown and "Food=9 (there are 3)" in shown


def test_leave_ends_any_task_even_where_quitting_is_not_a_move():
    task = make("openchat-ed-v0", first="user")
    person, _ = scripted(["/quit"])
    with pytest.raises(LeftGame):
        play_episode(task, {"user": person, "bot": make_agent("rule", task)}, seed=1)


def test_brackets_in_what_people_write_are_shown_as_written_never_read_as_markup():
    """A message such as "[laughs] ok [/]" (corpora and people write them) once crashed the
    terminal or lost its words: every text the terminal shows is printed literally."""
    task = make("openchat-wow-v0")
    task.reset(seed=1)
    speaker = task.to_move
    person, out = scripted([])
    person.reset(task, task.other(speaker), random.Random(0))
    task.step(actions.Say(text="[laughs] ok [/] [bold]not bold[/bold] [between 0/10]"), speaker)
    person.show_new_events(task.observe(task.other(speaker)))
    shown = out.getvalue()
    assert "[laughs] ok [/] [bold]not bold[/bold] [between 0/10]" in shown


def test_control_characters_in_a_partners_message_cannot_recolour_or_retitle_the_terminal():
    from duologue.agents.human import shown

    assert shown("hi\x00\x1b[31mRED\x1b]0;title\x07\u202eevil\r\nok\tthere") == "hi\ufffd\ufffd[31mRED\ufffd]0;title\ufffd\ufffdevil\ufffd\nok\tthere"


def test_the_person_at_the_terminal_may_err_often_but_the_bot_opposite_keeps_the_usual_few_tries():
    from duologue.core.agent import Agent

    class Stubborn(Agent):
        tries = 0

        def act(self, observation):
            Stubborn.tries += 1
            return actions.Offer(price=-5)  # never legal

    task = make("craigslist-v0")
    person, _ = scripted(["hello"] * 50)
    dialogue = play_episode(task, {task.party_ids[0]: person, task.party_ids[1]: Stubborn()}, seed=1, max_attempts={task.party_ids[0]: 1000})
    assert dialogue.outcome is not None and dialogue.outcome.reason == "illegal_actions" and Stubborn.tries == 3


def test_the_terminal_prints_moves_in_words_and_calls_the_partner_by_role_never_by_id():
    """`mturk_agent_2: submit-deal {'mine': {'Food': 2, ...}}` read like a debugger; the partner's
    hidden choice printed as empty fields."""
    task = make("casino-v0", first="mturk_agent_2")
    task.reset(seed=3)
    person, out = scripted([])
    person.reset(task, "mturk_agent_1", random.Random(0))
    task.step(actions.Say(text="Hello there"), "mturk_agent_2")
    task.step(actions.Say(text="Hi!"), "mturk_agent_1")
    task.step(actions.parse_action({"kind": "submit-deal", "mine": {"Food": 2, "Water": 1, "Firewood": 0}, "theirs": {"Food": 1, "Water": 2, "Firewood": 3}}), "mturk_agent_2")
    person.show_new_events(task.observe("mturk_agent_1"))
    shown = out.getvalue()
    assert "partner: Hello there" in shown and "you: Hi!" in shown and "mturk_agent" not in shown
    assert "partner: submit deal (mine: Food 2, Water 1, Firewood 0; theirs: Food 1, Water 2, Firewood 3)" in shown

    bargain = make("craigslist-v0")
    bargain.reset(seed=1)
    buyer, seller = bargain.spec.parties
    person, out = scripted([])
    person.reset(bargain, buyer, random.Random(0))
    if bargain.to_move == buyer:
        bargain.step(actions.Say(text="hi"), buyer)
    bargain.step(actions.Offer(price=120.0), seller)
    person.show_new_events(bargain.observe(buyer))
    shown = out.getvalue()
    assert "partner (seller): offer (price: 120)" in shown and "120.0" not in shown

    deal = make("dealornodeal-v0")
    deal.reset(seed=2)
    first = deal.to_move or deal.spec.parties[0]
    watcher = deal.other(first)
    person, out = scripted([])
    person.reset(deal, watcher, random.Random(0))
    pool = deal.observe(first).public["pool"]
    deal.step(actions.parse_action({"kind": "choose", "mine": dict(pool), "theirs": {k: 0 for k in pool}}), first)
    person.show_new_events(deal.observe(watcher))
    shown = out.getvalue()
    assert "partner: choose (its details are hidden from you until the end)" in shown
    assert "{" not in shown and "None" not in shown and first not in shown
