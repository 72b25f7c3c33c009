"""Replies cached by request: the same request is answered from disk, any change in it asks again."""

from __future__ import annotations

from duologue.llm.accounting import Completion
from duologue.llm.cache import CachedClient


class Counting:
    """A chat client that numbers its replies, so a cached reply is told from a fresh one."""

    model = "counting"

    def __init__(self) -> None:
        self.calls = 0

    def complete(self, messages, **options):
        self.calls += 1
        return Completion(text=f"reply {self.calls}", prompt_tokens=7, completion_tokens=2, seconds=1.5, model="counting")


def test_the_same_request_is_served_from_disk_and_any_change_asks_again(tmp_path):
    inner = Counting()
    made = []

    def connect():
        made.append(1)
        return inner

    messages = [{"role": "user", "content": "hi"}]
    first = CachedClient(tmp_path, {"endpoint": "e", "model": "m"}, connect)
    assert first.complete(messages, temperature=0.7, seed=1).text == "reply 1"
    assert first.complete(messages, temperature=0.7, seed=2).text == "reply 2"  # another seed: another request
    assert first.complete([{"role": "user", "content": "hello"}], temperature=0.7, seed=1).text == "reply 3"
    assert (first.hits, first.misses) == (0, 3)

    again = CachedClient(tmp_path, {"endpoint": "e", "model": "m"}, connect)  # a new run: nothing is connected until a miss
    cached = again.complete(messages, temperature=0.7, seed=1)
    assert (cached.text, cached.prompt_tokens, cached.completion_tokens, cached.seconds) == ("reply 1", 7, 2, 1.5)
    assert (again.hits, again.misses, len(made)) == (1, 0, 1)
    other_model = CachedClient(tmp_path, {"endpoint": "e", "model": "other"}, connect)
    assert other_model.complete(messages, temperature=0.7, seed=1).text == "reply 4"


def test_a_damaged_entry_is_asked_again_and_rewritten(tmp_path):
    inner = Counting()
    client = CachedClient(tmp_path, {"model": "m"}, lambda: inner)
    messages = [{"role": "user", "content": "hi"}]
    client.complete(messages)
    (entry,) = list(tmp_path.rglob("*.json"))
    entry.write_text('{"text": "cut sho')
    assert client.complete(messages).text == "reply 2"
    assert CachedClient(tmp_path, {"model": "m"}, lambda: inner).complete(messages).text == "reply 2"
    assert not list(tmp_path.rglob("*.tmp"))
