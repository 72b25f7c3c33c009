"""Chat replies cached on disk by request, so a rerun of a benchmark costs nothing.

`CachedClient` has the `complete` of a `ChatClient`. A request's key is the SHA-256 of its content:
the endpoint's name and model, the messages, the reply schema and the sampling settings (maximum
tokens, temperature, seed). A hit returns the stored reply with the tokens and seconds the original
call took (so figures computed from them do not change on a rerun); a miss asks the real client,
made only then (`connect`), so a rerun served wholly from the cache never starts a server or opens a
connection. Each reply is one small JSON file under `folder/<first two hex digits>/<key>.json`,
written to a temporary name and renamed, so an interrupted run leaves no half-written entry.
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import asdict
from pathlib import Path
from typing import Any, Callable

from duologue.llm.accounting import Completion

CACHED_FIELDS = ("text", "prompt_tokens", "completion_tokens", "seconds", "attempts", "finish_reason", "model")
"""The `Completion` fields a cache entry keeps."""


def request_key(identity: dict[str, Any], messages: list[dict[str, str]], options: dict[str, Any]) -> str:
    """The SHA-256 of a request's content (the identity of endpoint and model, the messages, the options)."""
    content = {"identity": identity, "messages": messages, "options": options}
    return hashlib.sha256(json.dumps(content, sort_keys=True, ensure_ascii=False, default=str).encode()).hexdigest()


class CachedClient:
    """A chat client whose replies are cached on disk by request (see the module docstring).

    identity: what names the endpoint and model in the key (not a server's changing port).
    connect: makes the real client on the first miss.
    """

    def __init__(self, folder: Path, identity: dict[str, Any], connect: Callable[[], Any]) -> None:
        self.folder = Path(folder)
        self.identity = identity
        self._connect = connect
        self._client: Any = None
        self.hits = 0
        self.misses = 0

    def _path(self, key: str) -> Path:
        return self.folder / key[:2] / f"{key}.json"

    def complete(self, messages: list[dict[str, str]], *, on_chunk: Callable[[str], None] | None = None, **options: Any) -> Completion:
        key = request_key(self.identity, messages, options)
        path = self._path(key)
        if path.is_file():
            try:
                stored = json.loads(path.read_text(encoding="utf-8"))
                completion = Completion(**{name: stored[name] for name in CACHED_FIELDS if name in stored})
            except (ValueError, TypeError, OSError):
                completion = None  # a damaged entry is asked again and rewritten
            if completion is not None:
                self.hits += 1
                if on_chunk is not None:
                    on_chunk(completion.text)
                return completion
        if self._client is None:
            self._client = self._connect()
        fresh: Completion = self._client.complete(messages, on_chunk=on_chunk, **options)
        completion = fresh
        self.misses += 1
        path.parent.mkdir(parents=True, exist_ok=True)
        temporary = path.with_name(f"{path.name}.{os.getpid()}.tmp")
        entry = {name: value for name, value in asdict(fresh).items() if name in CACHED_FIELDS}
        temporary.write_text(json.dumps({"key": key, **entry}, ensure_ascii=False), encoding="utf-8")
        temporary.replace(path)
        return fresh
