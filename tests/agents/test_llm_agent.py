"""The generic LLM agent: prompts, the move schema, reading replies, repairs, refusals and accounting.

Most tests use a scripted client (no network). The last ones play the toy task with the real
local model: every move must be legal, or refused and counted.
"""

from __future__ import annotations

import json
import random
import sys
from typing import Any

import pytest

from duologue.agents import make_agent
from duologue.agents import llm as llm_agent
from duologue.agents.llm import InvalidReply, LLMAgent, MoveError, reply_to_action
from duologue.core import actions, moves
from duologue.core.episode import play_episode
from duologue.core.schema import Scenario
from duologue.core.task import IllegalAction, Task
from duologue.llm.accounting import Completion
from duologue.llm.settings import LLMConfigError, LLMSettings
from duologue.tasks import make
from toy_task import CoinSplit

LOCAL = LLMSettings(base_url="http://127.0.0.1:1/v1", model="fake")


class ScriptedClient:
    """Answers `complete` from a list of reply texts (the last one repeats) and records every request."""

    def __init__(self, *replies: str):
        self.replies = list(replies)
        self.requests: list[dict[str, Any]] = []

    def complete(self, messages, **options) -> Completion:
        self.requests.append({"messages": [dict(m) for m in messages], **options})
        text = self.replies.pop(0) if len(self.replies) > 1 else self.replies[0]
        return Completion(text=text, prompt_tokens=100, completion_tokens=10, seconds=0.01)

    def last_user_message(self) -> str:
        return self.requests[-1]["messages"][-1]["content"]


def move(kind: str, **fields) -> str:
    return json.dumps({"move": {"kind": kind, **fields}})


def agent_for(task: Task, party: str, client: ScriptedClient, **options) -> LLMAgent:
    agent = LLMAgent(settings=LOCAL, client=client, **options)
    agent.reset(task, party, random.Random(0))
    return agent


def started_coins(seed: int = 3) -> CoinSplit:
    task = CoinSplit(first="0")
    task.reset(seed=seed)
    return task


# --------------------------------------------------------------------------- specs


def test_spec_llm_local_makes_an_agent_without_starting_anything(monkeypatch):
    monkeypatch.delenv("DUOLOGUE_LLM_BASE_URL", raising=False)
    agent = make_agent("llm:local", CoinSplit())
    assert isinstance(agent, LLMAgent)
    assert agent.name == "llm:local"
    assert agent.endpoint.managed_local
    assert agent._client is None, "the server starts on the first move, not when the spec is checked"


def test_spec_with_a_config_mistake_fails_when_made(monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("DUOLOGUE_LLM_API_KEY", raising=False)
    with pytest.raises(LLMConfigError, match="OPENAI_API_KEY"):
        make_agent("llm:openai/gpt-4o-mini", CoinSplit())


def test_agents_of_one_endpoint_share_a_client_but_count_their_own_usage():
    first, second = LLMAgent("model-a", settings=LOCAL), LLMAgent("model-a", settings=LOCAL)
    other = LLMAgent("model-b", settings=LOCAL)
    assert first.client is second.client
    assert other.client is not first.client and other.client.model == "model-b"
    assert first.usage is not second.usage


def test_llm_is_listed_among_agent_kinds():
    from duologue.agents import agent_kinds

    assert "llm" in agent_kinds(CoinSplit())


# --------------------------------------------------------------------------- the schema of a reply


def options_of(schema: dict) -> list[dict]:
    inner = schema["properties"]["move"]
    return inner.get("anyOf", [inner])


def started(task_id: str, seed: int = 3) -> Task:
    task = make(task_id)
    task.reset(seed=seed)
    return task


def test_reply_schema_allows_exactly_the_legal_moves_of_the_action_schema():
    task = started("craigslist-v0")
    schema = llm_agent.reply_schema(task, task.to_move, 50).json_schema
    assert schema["required"] == ["move"] and schema["additionalProperties"] is False
    kinds = [o["properties"]["kind"]["const"] for o in options_of(schema)]
    assert kinds == task.legal_actions(task.to_move)
    say, offer, quit_ = options_of(schema)
    assert say["properties"]["text"] == {"type": "string", "minLength": 1, "maxLength": 50}
    assert say["required"] == ["kind", "text"]
    assert offer["properties"]["price"]["maximum"] == task.max_price(), "the task's own bound on a price"
    assert quit_["required"] == ["kind"] and quit_["additionalProperties"] is False


def test_single_legal_kind_needs_no_any_of():
    schema = llm_agent.ReplySchema({"oneOf": [{"type": "object", "properties": {"kind": {"const": "accept-deal"}}, "required": ["kind"]}]}, 50).json_schema
    assert "anyOf" not in schema["properties"]["move"]
    assert schema["properties"]["move"]["properties"]["kind"]["const"] == "accept-deal"


def test_select_is_a_row_number_into_the_party_s_own_list():
    task = started("mutualfriends-v0")
    party = task.to_move
    rows = task.friends(party)
    select = [o for o in options_of(llm_agent.reply_schema(task, party, 50).json_schema) if o["properties"]["kind"]["const"] == "select"][0]
    assert select["properties"]["item"] == {"type": "integer", "minimum": 1, "maximum": len(rows), "description": "row number"}


def test_a_split_that_does_not_add_up_cannot_be_written():
    task = started("casino-v0")
    schema = llm_agent.reply_schema(task, task.to_move, 50).json_schema
    deals = [o for o in options_of(schema) if o["properties"]["kind"]["const"] == "submit-deal"]
    assert len(deals) == 4**3, "one alternative per legal split of 3 packages of 3 issues"
    for deal in deals:
        mine, theirs = deal["properties"]["mine"]["const"], deal["properties"]["theirs"]["const"]
        assert all(mine[i] + theirs[i] == 3 for i in mine)


# --------------------------------------------------------------------------- reading a reply


def test_replies_become_typed_actions():
    task = started("craigslist-v0")
    schema = llm_agent.reply_schema(task, task.to_move, 50)
    assert reply_to_action(move("offer", price=4), schema) == actions.Offer(price=4)
    assert reply_to_action('```json\n{"move": {"kind": "say", "text": "hi"}}\n```', schema) == actions.Say(text="hi")
    assert reply_to_action('{"kind": "quit"}', schema) == actions.Quit(), "an unwrapped move is read too"
    casino = started("casino-v0")
    deal = reply_to_action(move("submit-deal", mine={"Food": 2, "Water": 0, "Firewood": 3}), llm_agent.reply_schema(casino, casino.to_move, 50))
    assert deal == actions.SubmitDeal(mine={"Food": 2, "Water": 0, "Firewood": 3}, theirs={"Food": 1, "Water": 3, "Firewood": 0}), "the other half is filled in"
    with pytest.raises(MoveError, match="must add up to the pool"):
        reply_to_action(move("submit-deal", mine={"Food": 2, "Water": 0, "Firewood": 3}, theirs={"Food": 2, "Water": 3, "Firewood": 0}), llm_agent.reply_schema(casino, casino.to_move, 50))


def test_select_row_numbers_map_back_to_the_row():
    task = started("mutualfriends-v0")
    party = task.to_move
    rows = task.friends(party)
    schema = llm_agent.reply_schema(task, party, 50)
    assert reply_to_action(move("select", item=2), schema) == actions.Select(item=rows[1])
    for bad in (0, len(rows) + 1, "two", True):
        with pytest.raises(MoveError, match=f"row number from 1 to {len(rows)}"):
            reply_to_action(move("select", item=bad), schema)


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("I offer 5 coins", "not JSON"),
        ('{"move": {"kind": "accept"}}', "'accept' is not a move you can make now; choose one of: say, offer"),
        ('{"move": {"kind": "offer"}}', "offer: 'price' is a required property"),
        ('{"move": {"kind": "offer", "price": "cheap"}}', "price"),
        ('{"move": {"kind": "offer", "price": 1e9}}', "price"),
        ('{"move": {"kind": "say", "text": "   "}}', "needs some text"),
        ("[1, 2]", "must be an object"),
    ],
)
def test_bad_replies_say_what_is_wrong(text, problem):
    task = started("craigslist-v0")
    with pytest.raises(MoveError, match=problem.replace("(", r"\(").replace(")", r"\)")):
        reply_to_action(text, llm_agent.reply_schema(task, task.to_move, 50))


# --------------------------------------------------------------------------- prompts


def test_prompt_holds_the_observation_and_never_the_other_private_view():
    task = started_coins()
    client = ScriptedClient(move("say", text="hello"))
    agent = agent_for(task, "0", client)
    agent.act(task.observe("0"))
    system, user = (m["content"] for m in client.requests[0]["messages"])
    assert task.scenario.private["0"]["lucky"] in system
    assert task.scenario.private["1"]["lucky"] not in system + user
    assert "coins: 10" in system and "coins-v0" in system
    assert '{"kind": "offer", "price": <0..10>}' in user and '{"kind": "quit"}' in user, "moves and bounds come from the action schema"
    assert "accept" not in user.split("Moves you can make now:")[1], "only legal moves are offered"
    assert client.requests[0]["json_schema"]["properties"]["move"]["anyOf"]
    assert client.requests[0]["max_tokens"] == LOCAL.max_tokens


def test_transcript_is_shown_from_the_party_point_of_view():
    task = started_coins()
    task.step(actions.Say(text="hi there"), "0")
    task.step(actions.Offer(price=6), "1")
    client = ScriptedClient(move("accept"))
    agent = agent_for(task, "0", client)
    assert agent.act(task.observe("0")) == actions.Accept()
    user = client.requests[0]["messages"][1]["content"]
    assert "you: hi there" in user and "partner offered a price of 6" in user


def test_long_transcripts_keep_the_last_events():
    task = started_coins()
    for n in range(6):
        task.step(actions.Say(text=f"line {n}"), task.to_move)
    client = ScriptedClient(move("quit"))
    agent_for(task, task.to_move, client, transcript_events=2).act(task.observe(task.to_move))
    user = client.requests[0]["messages"][1]["content"]
    assert "(... 4 earlier events)" in user and "line 5" in user and "line 3" not in user


def task_prompt_package(tmp_path, monkeypatch, text: str) -> None:
    """Give the toy task a resource package of its own holding `prompts/system.txt`, found through its spec."""
    package = tmp_path / "coinprompts"
    (package / "prompts").mkdir(parents=True)
    (package / "__init__.py").write_text("", encoding="utf-8")
    (package / "prompts" / "system.txt").write_text(text, encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "coinprompts", raising=False)
    monkeypatch.setattr(CoinSplit, "spec", CoinSplit.spec.model_copy(update={"resources": "coinprompts"}))


def test_the_task_s_own_prompt_replaces_the_generic_one(tmp_path, monkeypatch):
    task_prompt_package(tmp_path, monkeypatch, "You haggle as $party ($role). Prices like $$5 stay. Items: $items|")
    task = started_coins()
    client = ScriptedClient(move("quit"))
    agent = agent_for(task, "0", client)
    agent.act(task.observe("0"))
    assert agent.system_prompt_source == "coinprompts/prompts/system.txt"
    assert client.requests[0]["messages"][0]["content"] == "You haggle as 0 (none). Prices like $5 stay. Items: |"


def test_unknown_placeholder_in_a_task_prompt_is_a_clear_error(tmp_path, monkeypatch):
    task_prompt_package(tmp_path, monkeypatch, "Hello $partner")
    with pytest.raises(LLMConfigError, match=r"system.txt: unknown placeholder\(s\) \$partner"):
        agent_for(started_coins(), "0", ScriptedClient(move("quit")))


def test_generic_templates_use_only_known_placeholders():
    for name in ("system", "turn", "repair"):
        template, source = llm_agent.load_template(name)
        assert source.endswith(f"{name}.txt")


# --------------------------------------------------------------------------- repairs, refusals, accounting


def test_invalid_reply_is_answered_with_the_error_and_retried():
    task = started_coins()
    client = ScriptedClient("offer five", move("offer", price=5))
    agent = agent_for(task, "0", client)
    assert agent.act(task.observe("0")) == actions.Offer(price=5)
    assert len(client.requests) == 2
    repair = client.requests[1]["messages"]
    assert repair[-2] == {"role": "assistant", "content": "offer five"}
    assert "not JSON" in repair[-1]["content"]
    assert agent.usage.invalid_replies == 1 and agent.usage.moves == 1 and agent.usage.calls == 2


def test_replies_that_never_become_a_move_are_refused_by_the_task_and_counted():
    task = started_coins()
    client = ScriptedClient("no idea")
    agent = agent_for(task, "0", client, repairs=1)
    action = agent.act(task.observe("0"))
    assert isinstance(action, InvalidReply) and "not JSON" in action.reason and action.reply == "no idea"
    assert len(client.requests) == 2, "one try plus one repair"
    with pytest.raises(IllegalAction) as refused:
        task.step(action, "0")
    assert task.illegal["0"] == 1 and task.events == [], "nothing was played in its place"
    agent.on_illegal(refused.value)
    agent.act(task.observe("0"))
    assert "Your last move was refused: your reply could not be read as a legal move (the reply is not JSON" in client.requests[2]["messages"][1]["content"]
    assert agent.usage.refused == 1 and agent.usage.invalid_replies == 4


def test_the_task_refusal_reason_reaches_the_next_request(monkeypatch):
    task = started_coins()
    # a task whose schema states no bound on the price, so only its rules can refuse 50
    monkeypatch.setattr(task, "move_schema", lambda party, kind: moves.from_action(actions.BY_KIND[kind]))
    client = ScriptedClient(move("offer", price=50), move("offer", price=5))
    agent = agent_for(task, "0", client)
    first = agent.act(task.observe("0"))
    with pytest.raises(IllegalAction) as refused:
        task.step(first, "0")
    agent.on_illegal(refused.value)
    second = agent.act(task.observe("0"))
    task.step(second, "0")
    assert "Your last move was refused: offer between 0 and 10 coins" in client.requests[1]["messages"][1]["content"]
    assert agent.usage.refused == 1 and agent.usage.moves == 2
    task.step(actions.Reject(), "1")  # the error is told once, not on every later turn
    agent.act(task.observe("0"))
    assert "refused" not in client.requests[2]["messages"][1]["content"]


def test_an_agent_that_keeps_failing_ends_the_episode_as_illegal_actions(coins):
    task = make(coins, first="0")
    stubborn = LLMAgent(settings=LOCAL, client=ScriptedClient(move("offer", price=99)), repairs=0)
    other = LLMAgent(settings=LOCAL, client=ScriptedClient(move("say", text="hi")), repairs=0)
    dialogue = play_episode(task, {"0": stubborn, "1": other}, seed=5)
    assert dialogue.outcome.reason == "illegal_actions"
    assert dialogue.meta["illegal_actions"]["0"] == stubborn.usage.refused == 3
    assert [e.kind for e in dialogue.events] == ["system"], "no move was substituted"


def test_usage_adds_up_tokens_and_calls():
    task = started_coins()
    client = ScriptedClient("bad", move("say", text="hi"))
    agent = agent_for(task, "0", client)
    agent.act(task.observe("0"))
    usage = agent.usage.as_dict()
    assert (usage["calls"], usage["prompt_tokens"], usage["completion_tokens"], usage["total_tokens"]) == (2, 200, 20, 220)
    assert usage["moves"] == 1 and usage["invalid_replies"] == 1 and usage["refused"] == 0


def test_each_request_carries_a_seed_from_the_agent_rng():
    task = started_coins()
    seeds = []
    for _ in range(2):
        client = ScriptedClient(move("quit"))
        agent_for(task, "0", client).act(task.observe("0"))
        seeds.append(client.requests[0]["seed"])
    assert seeds[0] == seeds[1], "same agent rng, same seed: reproducible against a seeded endpoint"


def test_streaming_callback_is_passed_through():
    task = started_coins()
    client = ScriptedClient(move("quit"))
    chunks: list[str] = []
    agent_for(task, "0", client, on_chunk=chunks.append).act(task.observe("0"))
    assert client.requests[0]["on_chunk"] == chunks.append


class PickTask(CoinSplit):
    """The toy task with a list to select from (like MutualFriends), to test Select end to end."""

    id = "pick-v0"

    def generate_scenario(self, rng):
        return Scenario(public={}, private={p: {"friends": [{"name": "Ann"}, {"name": "Bo"}]} for p in self.party_ids})

    def items(self, observation):
        return observation.private["friends"]

    def _legal_kinds(self, party):
        return ["select"]

    def move_schema(self, party, kind):
        return moves.move(kind, {"item": {"enum": self.scenario.private[party]["friends"]}})

    def _apply(self, party, action):
        self._terminate("selected")


def test_select_end_to_end_picks_the_row_record():
    task = PickTask(first="0")
    task.reset(seed=1)
    client = ScriptedClient(move("select", item=2))
    agent = agent_for(task, "0", client)
    action = agent.act(task.observe("0"))
    task.step(action, "0")
    assert task.events[0].item == {"name": "Bo"}
    system = client.requests[0]["messages"][0]["content"]
    assert "- friends:\n  1. name: Ann\n  2. name: Bo" in system
    assert "Rows you can select: the friends listed above (answer with the row number)." in system
    assert system.count("name: Bo") == 1, "rows of the private view are not repeated"


def test_rows_from_elsewhere_are_listed_with_numbers():
    rows = [{"name": "Ann"}, {"name": "Bo"}]
    assert llm_agent.render_items(rows, {"friends": [{"name": "Cy"}]}) == "Rows you can select (by row number):\n1. name: Ann\n2. name: Bo\n"
    assert llm_agent.render_items([], {}) == ""


def test_deals_read_from_the_party_point_of_view():
    from duologue.core.schema import SubmitDeal

    mine, theirs = {"Food": 3}, {"Food": 0}
    assert llm_agent.render_event(SubmitDeal(party="a", mine=mine, theirs=theirs), "a") == 'you proposed a deal: you get {"Food": 3}, partner gets {"Food": 0}'
    assert llm_agent.render_event(SubmitDeal(party="b", mine=mine, theirs=theirs), "a") == 'partner proposed a deal: partner gets {"Food": 3}, you get {"Food": 0}'


# --------------------------------------------------------------------------- the real local model


@pytest.fixture(scope="module")
def local_server():
    from duologue.llm.server import local_model_problem, shared_local_server

    problem = local_model_problem()
    if problem:
        pytest.skip(problem)
    return shared_local_server()


def replay_is_legal(task_id: str, dialogue) -> None:
    """Every recorded move, replayed on a fresh task with the same seed, is accepted by the rules."""
    replay = make(task_id, max_turns=dialogue.meta["max_turns"])
    replay.reset(seed=dialogue.meta["seed"])
    for event in dialogue.events:
        if event.kind == "system":
            continue
        if event.kind == "message":
            action = actions.Say(text=event.text)
        elif event.kind == "offer":
            action = actions.Offer(price=event.price)
        else:
            action = actions.BY_KIND[event.kind]()
        replay.step(action, event.party)  # raises IllegalAction if the move was not legal


def test_llm_local_plays_the_toy_task_end_to_end(coins, local_server, monkeypatch):
    monkeypatch.delenv("DUOLOGUE_LLM_BASE_URL", raising=False)  # llm:local uses the shared server on demand
    monkeypatch.setenv("DUOLOGUE_LLM_MAX_TOKENS", "60")
    task = make(coins, max_turns=4)
    agents = {party: make_agent("llm:local", task) for party in task.party_ids}
    for agent in agents.values():
        agent.say_max_chars = 80
    dialogue = play_episode(task, agents, seed=11)
    assert dialogue.outcome is not None
    replay_is_legal(coins, dialogue)
    for party, agent in agents.items():
        assert agent.client.base_url == local_server.url
        assert dialogue.meta["illegal_actions"][party] == agent.usage.refused, "every refusal is counted by both"
        assert agent.usage.moves >= sum(1 for e in dialogue.events if e.party == party)
        assert agent.usage.calls == agent.usage.moves + agent.usage.invalid_replies
        if agent.usage.calls:
            assert agent.usage.prompt_tokens > 0 and agent.usage.completion_tokens > 0 and agent.usage.seconds > 0
    assert sum(a.usage.calls for a in agents.values()) >= 1


def test_llm_local_makes_moves_that_parse(coins, local_server, monkeypatch):
    monkeypatch.setenv("DUOLOGUE_LLM_BASE_URL", local_server.url)
    task = make(coins, first="0")
    task.reset(seed=2)
    agent = make_agent("llm:local", task)
    agent.max_tokens = 60
    agent.say_max_chars = 60
    agent.reset(task, "0", random.Random(2))
    action = agent.act(task.observe("0"))
    assert isinstance(action, (actions.Say, actions.Offer, actions.Quit, InvalidReply))
    if isinstance(action, actions.Say):
        assert len(action.text) <= 60
    assert agent.usage.calls >= 1 and agent.usage.calls == agent.usage.moves + agent.usage.invalid_replies
