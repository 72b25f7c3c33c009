"""`duologue bench`: any model opposite people's scripts, the rule baseline and itself, on versioned instance sets.

**Instance sets.** A task that takes part ships `bench/<task id>.json` in its resource package
(`TaskSpec.resources`): an `InstanceSet` naming the corpus file it reads (relative to the data
folder, with the file's SHA-256) and the dialogues it plays, each one instance: the dialogue's real
scenario, and the real people's own scripts replayed opposite the model (`duologue.arena.replay`).
The set carries a version and a checksum over its content; both checksums are verified before a run,
so two labs that report the same set version played the same scenarios against the same people.

**Matches.** For each model, task and instance: the model in each seat opposite the script of the
person who sat in the other (`people`), in each seat opposite the baseline agent (`baseline`, by default `rule`, where the
task has one), and opposite itself (`self`, one episode that fills both seats). Every episode is
seeded from its match, not from the model, so every model meets the same games.

**Figures**, per model, task and opponent, each a mean with a 95% bootstrap interval over episodes:
agreement, the model's score, the score of the person who really sat in its seat, their difference,
the Pareto share of deals (`replay.pareto_share`, as `duologue replay` computes it), the illegal-move
rate (refused moves over all the model's tries), tokens, cost (from a price table, so prices may
change after the run) and seconds per model call; plus any figure registered in `EPISODE_FIGURES`.

**Illegal moves.** As GTBench does, a model whose illegal-move rate on a task passes `max_illegal_rate`
(after at least `min_episodes` episodes) is stopped on that task; the stop and its reason are written.

**Reproducible and resumable.** Results are appended to `results.jsonl` one episode at a time, each
keyed by model, task, set version, instance, opponent and seat; a rerun skips keys already there.
LLM replies are cached by request under `cache/` of the output folder (`duologue.llm.cache`), so a
rerun (even with `fresh`) costs no call. `run.json` pins each model's spec, model name, endpoint,
prompt hash and sampling settings, and each task's instance set; a rerun with another setup for the
same model is refused, so one folder never mixes two.
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Callable, Iterator
from urllib.parse import urlsplit, urlunsplit

from pydantic import Field, ValidationError

from duologue import tasks
from duologue.agents import agent_kinds, make_agent
from duologue.agents.llm import LLMAgent, load_template
from duologue.arena.replay import PersonScript, first_mover, pareto_share, score_of
from duologue.arena.report import bootstrap_mean
from duologue.arena.selfplay import drop_partial_last_line, episode_seed
from duologue.core.agent import Agent
from duologue.core.episode import play_episode
from duologue.core.schema import Dialogue, Model, SystemNote
from duologue.core.task import Task
from duologue.llm.cache import CachedClient
from duologue.llm.settings import LLMSettings

SET_FOLDER = "bench"
"""The folder of a task's resource package that holds its instance sets (`<task id>.json`)."""
RESULTS, RUN, CACHE = "results.jsonl", "run.json", "cache"
PREVIOUS = "results.previous.jsonl"
"""Where `fresh` moves the results it replaces."""
OPPONENTS = ("people", "baseline", "self")
MAX_ILLEGAL_RATE = 0.5
MIN_EPISODES = 3

EpisodeFigure = Callable[[Task, Dialogue, str], "float | None"]
def _value_figure(name: str) -> EpisodeFigure:
    """A figure of the task's declared values (`Task.value_figures`): `frontier_distance` of the deal,
    or the seat's own `surplus` over its walk-away; None for a task without values."""

    def figure(task: Task, played: Dialogue, seat: str) -> float | None:
        try:
            figures = task.value_figures(played, played.outcome or task.judge(played))
        except (KeyError, TypeError, ValueError):
            return None  # a deal the values cannot read
        return figures.get(f"surplus_{seat}" if name == "surplus" else name)

    return figure


EPISODE_FIGURES: dict[str, EpisodeFigure] = {"frontier_distance": _value_figure("frontier_distance"), "surplus": _value_figure("surplus")}
"""Per-episode figures of the model's seat beyond the fixed ones, by name: `(task, played dialogue,
seat) -> value`. Each is written on every result row (under `extra`) and summarised like the
others; by default the deal's distance to the Pareto frontier and the seat's surplus over its
walk-away, from the task's declared values (None for a task without them)."""


class BenchError(ValueError):
    """A bench that cannot run as asked (a missing or altered instance set, an absent corpus). Meant for users."""


# ---------------------------------------------------------------------------- instance sets


class InstanceSet(Model):
    """One task's versioned instances: corpus dialogues whose scenarios are played and whose people's scripts are replayed."""

    task: str
    name: str
    version: str
    description: str = ""
    corpus: str
    """The corpus format of the file (`duologue data validate` names)."""
    path: str
    """The corpus file, relative to the data folder (`$DUOLOGUE_DATA`, else `../shared/data`)."""
    corpus_sha256: str
    dialogues: list[str] = Field(min_length=1)
    """Dialogue ids, in playing order (`--limit N` plays the first N)."""
    checksum: str
    """`sha256:` of the set's canonical JSON without this field (`set_checksum`)."""


def set_checksum(data: dict[str, Any]) -> str:
    content = {key: value for key, value in data.items() if key != "checksum"}
    return "sha256:" + hashlib.sha256(json.dumps(content, sort_keys=True, ensure_ascii=False).encode()).hexdigest()


def file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def default_data_root() -> Path:
    """The real corpora: `$DUOLOGUE_DATA`, else `../shared/data` beside the checkout."""
    configured = os.environ.get("DUOLOGUE_DATA")
    return Path(configured) if configured else Path(__file__).resolve().parents[3].parent / "shared" / "data"


def bench_tasks() -> list[str]:
    """Registered tasks that ship an instance set."""
    found = []
    for task_id in tasks.task_ids():
        try:
            if tasks.spec(task_id).resource(SET_FOLDER, f"{task_id}.json").is_file():
                found.append(task_id)
        except (ImportError, AttributeError):
            continue
    return found


def load_instance_set(task_id: str, path: Path | None = None) -> InstanceSet:
    """The task's instance set (its shipped one, or `path`), its checksum verified."""
    if path is None:
        resource = tasks.spec(task_id).resource(SET_FOLDER, f"{task_id}.json")
        if not resource.is_file():
            raise BenchError(f"{task_id} ships no instance set ({SET_FOLDER}/{task_id}.json in its resources); tasks with one: {', '.join(bench_tasks()) or 'none'}")
        text, where = resource.read_text(encoding="utf-8"), f"{task_id}'s instance set"
    else:
        text, where = path.read_text(encoding="utf-8"), str(path)
    try:
        data = json.loads(text)
        chosen = InstanceSet.model_validate(data)
    except (ValueError, ValidationError) as error:
        raise BenchError(f"{where} is not an instance set: {error}") from None
    actual = set_checksum(data)
    if actual != chosen.checksum:
        raise BenchError(
            f"{where} ({chosen.name} version {chosen.version}) does not match its checksum: it says {chosen.checksum}, its content hashes to {actual}. "
            "It was changed after it was published; results on it would not compare with anyone's. Restore it, or publish the change as a new version with a new checksum."
        )
    if chosen.task != task_id:
        raise BenchError(f"{where} is an instance set of {chosen.task}, not of {task_id}")
    return chosen


def make_instance_set(task_id: str, *, name: str, version: str, corpus: str, path: str, data_root: Path, dialogues: list[str], description: str = "") -> InstanceSet:
    """A new instance set over dialogues of a corpus file under `data_root`, with both checksums computed."""
    data: dict[str, Any] = {
        "task": task_id, "name": name, "version": version, "description": description, "corpus": corpus, "path": path,
        "corpus_sha256": file_sha256(data_root / path), "dialogues": dialogues,
    }
    return InstanceSet.model_validate({**data, "checksum": set_checksum(data)})


def instance_dialogues(chosen: InstanceSet, data_root: Path, limit: int | None = None) -> list[Dialogue]:
    """The set's first `limit` dialogues from the corpus file, once the file is shown to be the set's own copy."""
    from duologue.data.io import read_corpus

    path = data_root / chosen.path
    if not path.is_file():
        raise BenchError(
            f"instance set {chosen.name} version {chosen.version} replays the {chosen.corpus} corpus file {chosen.path} "
            f"(sha256 {chosen.corpus_sha256[:16]}...), which is not at {path}. Put the corpus there, or point --data (or DUOLOGUE_DATA) at the folder that holds it."
        )
    digest = file_sha256(path)
    if digest != chosen.corpus_sha256:
        raise BenchError(f"{path} is not the copy of {chosen.corpus} that instance set {chosen.name} version {chosen.version} was made from (sha256 {digest[:16]}... instead of {chosen.corpus_sha256[:16]}...)")
    wanted = chosen.dialogues[:limit]
    found = {d.id: d for d in read_corpus(tasks.corpus_format(chosen.corpus), path, skip_invalid=True).dialogues if d.id in set(wanted)}
    missing = [d for d in wanted if d not in found]
    if missing:
        raise BenchError(f"{path} holds no readable dialogue {', '.join(missing[:5])} named by instance set {chosen.name}")
    return [found[d] for d in wanted]


# ---------------------------------------------------------------------------- models


def _public_url(url: str | None) -> str:
    if url is None:
        return "embedded local server"
    parts = urlsplit(url)
    return urlunsplit(parts._replace(netloc=parts.hostname or "" if parts.password or parts.username else parts.netloc))


@dataclass
class Contestant:
    """One model under test: how to make it, what pins its setup, and its reply caches."""

    spec: str
    cache_folder: Path
    settings: LLMSettings = field(default_factory=LLMSettings)
    caches: list[CachedClient] = field(default_factory=list)

    @property
    def is_llm(self) -> bool:
        return self.spec.partition(":")[0] == "llm"

    def make(self, task: Task) -> Agent:
        """A fresh agent; an LLM agent gets a client whose replies are cached by request."""
        if not self.is_llm:
            return make_agent(self.spec, task)
        target = self.spec.partition(":")[2] or None
        probe = LLMAgent(target, settings=self.settings)
        endpoint = probe.endpoint
        identity = {**self._where(endpoint), "extra_body": self.settings.extra_body}
        cache = CachedClient(self.cache_folder, identity, lambda: self._connect(endpoint))
        self.caches.append(cache)
        agent = LLMAgent(target, settings=self.settings, client=cache)
        agent.name = self.spec
        return agent

    def _where(self, endpoint: Any) -> dict[str, Any]:
        """The endpoint and model as the cache and the pins name them (the embedded server by its model file, not its port)."""
        where = {"endpoint": _public_url(endpoint.base_url), "model": endpoint.model}
        if endpoint.managed_local and self.settings.local_model is not None:
            where["local_model"] = str(self.settings.local_model)
        return where

    def _connect(self, endpoint: Any) -> Any:
        from duologue.agents.llm import shared_client

        if endpoint.managed_local:
            from duologue.llm.server import shared_local_server

            endpoint = replace(endpoint, base_url=shared_local_server().url)
        return shared_client(endpoint, self.settings)

    def pin(self, task_ids: list[str]) -> dict[str, Any]:
        """What fixes this model's behaviour: spec, model, endpoint, prompt hash per task, sampling."""
        if not self.is_llm:
            return {"spec": self.spec, "kind": self.spec.partition(":")[0]}
        agent = LLMAgent(self.spec.partition(":")[2] or None, settings=self.settings)
        prompts = {}
        for task_id in task_ids:
            texts = [load_template(name, tasks.spec(task_id))[0].template for name in ("system", "turn", "repair")]
            prompts[task_id] = hashlib.sha256("\x00".join(texts).encode()).hexdigest()[:16]
        return {
            "spec": self.spec, "kind": "llm", **self._where(agent.endpoint),
            "prompt_sha256": prompts,
            "sampling": {"temperature": agent.temperature, "max_tokens": agent.max_tokens, "repairs": agent.repairs, "say_max_chars": agent.say_max_chars,
                         "extra_body": self.settings.extra_body, "seed": "per episode"},
        }

    @property
    def cache_hits(self) -> int:
        return sum(c.hits for c in self.caches)

    @property
    def cache_misses(self) -> int:
        return sum(c.misses for c in self.caches)


# ---------------------------------------------------------------------------- episodes


class BenchRow(Model):
    """The figures of the model's seat in one episode (None where a figure does not apply)."""

    record: str = "episode"
    key: str
    model: str
    task: str
    set_version: str
    dialogue: str
    opponent: str
    seat: str
    agreement: float
    score: float | None = None
    person_score: float | None = None
    pareto: float | None = None
    illegal: int = 0
    moves: int = 0
    ended_by: str = ""
    calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    seconds: float = 0.0
    cache_hits: int = 0
    extra: dict[str, float | None] = Field(default_factory=dict)


class StopRow(Model):
    """A model stopped on a task (its illegal-move rate passed the threshold)."""

    record: str = "stop"
    key: str
    model: str
    task: str
    set_version: str
    reason: str


@dataclass(frozen=True)
class Match:
    dialogue: Dialogue
    opponent: str
    seats: tuple[str, ...]
    """The model's seats: one, or both for `self`."""

    def key(self, model: str, task_id: str, version: str, seat: str) -> str:
        return "|".join((model, task_id, version, self.dialogue.id, self.opponent, seat))

    def seed(self, task_id: str, version: str, run_seed: int) -> int:
        digest = hashlib.sha256("|".join((task_id, version, self.dialogue.id, self.opponent, *self.seats)).encode()).hexdigest()
        return episode_seed(run_seed, int(digest[:8], 16))


def matches(task: Task, dialogues: list[Dialogue], baseline: str | None) -> list[Match]:
    """Every match of a task's instances, in playing order (`baseline` None or unknown to the task: no baseline matches)."""
    parties = tuple(task.party_ids)
    kinds = [("people", parties)]
    if baseline is not None and baseline.partition(":")[0] in agent_kinds(task):
        kinds.append(("baseline", parties))
    found = [Match(d, opponent, (seat,)) for d in dialogues for opponent, seats in kinds for seat in seats]
    found += [Match(d, "self", parties) for d in dialogues]
    return found


def _usage(agent: Agent) -> dict[str, Any]:
    usage = getattr(agent, "usage", None)
    if usage is None:
        return {}
    return {"calls": usage.calls, "prompt_tokens": usage.prompt_tokens, "completion_tokens": usage.completion_tokens, "seconds": round(usage.seconds, 4)}


def play_match(match: Match, task_id: str, contestant: Contestant, baseline: str | None, *, seed: int, max_turns: int | None) -> tuple[Dialogue, dict[str, Agent]]:
    """Play one match; returns the played dialogue and the model's agent per seat it held."""
    first = first_mover(match.dialogue)
    options: dict[str, Any] = {"max_turns": max_turns} if max_turns is not None else {}
    task = tasks.make(task_id, **({"first": first} if first is not None else {}), **options)
    models = {seat: contestant.make(task) for seat in match.seats}
    agents: dict[str, Agent] = dict(models)
    for party in task.party_ids:
        if party not in agents:
            agents[party] = PersonScript(match.dialogue, party) if match.opponent == "people" else make_agent(str(baseline), task)
    played = play_episode(task, agents, seed=seed, scenario=match.dialogue)
    return played, models


def episode_rows(played: Dialogue, match: Match, models: dict[str, Agent], task: Task, *, model: str, version: str) -> list[BenchRow]:
    """The model's figures in each seat it held."""
    outcome = played.outcome or task.judge(played)
    person = task.judge(match.dialogue)
    agreed = bool(outcome.agreed)
    last = played.events[-1] if played.events else None
    illegal: dict[str, int] = played.meta.get("illegal_actions", {})  # type: ignore[assignment]
    rows = []
    for seat, agent in models.items():
        cache = getattr(agent, "client", None)
        rows.append(
            BenchRow(
                key=match.key(model, task.id, version, seat), model=model, task=task.id, set_version=version, dialogue=match.dialogue.id,
                opponent=match.opponent, seat=seat, agreement=float(agreed), score=score_of(outcome, seat), person_score=score_of(person, seat),
                pareto=pareto_share(task, played) if agreed else None, illegal=int(illegal.get(seat, 0)),
                moves=sum(1 for e in played.events if e.party == seat and not isinstance(e, SystemNote)),
                ended_by=(last.name if isinstance(last, SystemNote) else (last.kind if last is not None else "")),
                cache_hits=cache.hits if isinstance(cache, CachedClient) else 0,
                extra={name: figure(task, played, seat) for name, figure in EPISODE_FIGURES.items()},
                **_usage(agent),
            )
        )
    return rows


# ---------------------------------------------------------------------------- the run


@dataclass
class BenchConfig:
    models: list[str]
    task_ids: list[str]
    out: Path
    data_root: Path
    limit: int | None = None
    baseline: str | None = "rule"
    seed: int = 0
    max_turns: int | None = None
    max_illegal_rate: float = MAX_ILLEGAL_RATE
    min_episodes: int = MIN_EPISODES
    fresh: bool = False
    """Play every episode again (replies still come from the cache), replacing the stored results."""
    sets: Path | None = None
    """A folder of instance sets (`<task id>.json`) used instead of the tasks' own, where it holds one."""


def read_results(path: Path) -> tuple[dict[str, BenchRow], dict[str, StopRow]]:
    """Episode rows and stops already written, by key. A last line without its newline that does not
    read (an interruption cut it) is left out; any other line that is not a result is refused."""
    rows: dict[str, BenchRow] = {}
    stops: dict[str, StopRow] = {}
    if not path.exists():
        return rows, stops
    lines = path.read_text(encoding="utf-8").split("\n")
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        cut = number == len(lines)  # the text after the last newline
        try:
            data = json.loads(line)
            if data.get("record") == "stop":
                stop = StopRow.model_validate(data)
                stops[stop.key] = stop
            else:
                row = BenchRow.model_validate(data)
                rows[row.key] = row
        except (ValueError, ValidationError, AttributeError):
            if cut:
                continue
            raise BenchError(f"{path}:{number}: not a bench result; write this run to another --out") from None
    return rows, stops


def check_pins(out: Path, pins: dict[str, Any]) -> None:
    """Refuse to add results of a model set up otherwise than the results already in `out`; then record the pins."""
    path = out / RUN
    stored: dict[str, Any] = json.loads(path.read_text(encoding="utf-8")) if path.is_file() else {}
    for section, values in pins.items():
        known = stored.setdefault(section, {})
        for name, value in values.items():
            if name in known and known[name] != value:
                what = name if section == "models" else f"{section} {name!r}"
                raise BenchError(
                    f"{out} holds results of {what} with another setup ({RUN} pins {json.dumps(known[name], sort_keys=True)}; "
                    f"now {json.dumps(value, sort_keys=True)}): write this run to another --out"
                )
            known[name] = value
    out.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(stored, indent=2, sort_keys=True) + "\n", encoding="utf-8")


def illegal_rate(rows: list[BenchRow]) -> float | None:
    tries = sum(r.illegal + r.moves for r in rows)
    return sum(r.illegal for r in rows) / tries if tries else None


def stop_reason(rows: list[BenchRow], config: BenchConfig) -> str | None:
    episodes = len({(r.dialogue, r.opponent, r.seat if r.opponent != "self" else "") for r in rows})
    rate = illegal_rate(rows)
    if episodes >= config.min_episodes and rate is not None and rate > config.max_illegal_rate:
        return f"illegal-move rate {rate:.2f} above {config.max_illegal_rate:.2f} after {episodes} episodes"
    return None


@dataclass
class Progress:
    """What a run reports as it goes (the CLI draws a progress bar from it)."""

    total: int = 0
    on_episode: Callable[[int], None] | None = None
    on_stop: Callable[[StopRow], None] | None = None
    played: int = 0
    skipped: int = 0
    contestants: list[Contestant] = field(default_factory=list)

    def counts(self) -> dict[str, int]:
        """Episodes played and skipped, and LLM replies served from the cache or asked."""
        return {
            "played": self.played, "skipped": self.skipped,
            "cache_hits": sum(c.cache_hits for c in self.contestants), "cache_misses": sum(c.cache_misses for c in self.contestants),
        }


def plan(config: BenchConfig) -> dict[str, tuple[InstanceSet, list[Dialogue]]]:
    """Each task's verified instance set and its dialogues (every problem is found before anything runs)."""
    chosen = {}
    if config.sets is not None and not config.sets.is_dir():
        raise BenchError(f"--sets {config.sets}: no such folder of instance sets")
    for task_id in config.task_ids:
        own = config.sets / f"{task_id}.json" if config.sets is not None else None
        instance_set = load_instance_set(task_id, own if own is not None and own.is_file() else None)
        chosen[task_id] = (instance_set, instance_dialogues(instance_set, config.data_root, config.limit))
    return chosen


def run_bench(config: BenchConfig, progress: Progress | None = None) -> Iterator[BenchRow | StopRow]:
    """Play every model on every task's instances; yields each new row (and each stop) as it is written."""
    progress = progress or Progress()
    chosen = plan(config)
    contestants = [Contestant(spec, config.out / CACHE) for spec in config.models]
    progress.contestants = contestants
    results = config.out / RESULTS
    done, stops = read_results(results)  # a folder holding something else is refused before anything is written there
    check_pins(
        config.out,
        {
            "models": {c.spec: c.pin(config.task_ids) for c in contestants},
            "instance_sets": {t: {"name": s.name, "version": s.version, "checksum": s.checksum} for t, (s, _) in chosen.items()},
            "settings": {"play": {"baseline": config.baseline, "seed": config.seed, "max_turns": config.max_turns}},
        },
    )
    if config.fresh and results.exists():
        results.replace(results.with_name(PREVIOUS))  # kept until the next fresh run
        done, stops = {}, {}
    drop_partial_last_line(results)
    plans = {t: matches(tasks.make(t), dialogues, config.baseline) for t, (_, dialogues) in chosen.items()}
    progress.total = sum(len(m) for m in plans.values()) * len(contestants)
    with results.open("a", encoding="utf-8") as handle:
        for contestant in contestants:
            for task_id, (instance_set, _) in chosen.items():
                yield from _run_task(contestant, task_id, instance_set.version, plans[task_id], config, handle, done, stops, progress)


def _run_task(contestant: Contestant, task_id: str, version: str, planned: list[Match], config: BenchConfig, handle: Any, done: dict[str, BenchRow], stops: dict[str, StopRow], progress: Progress) -> Iterator[BenchRow | StopRow]:
    stop_key = "|".join((contestant.spec, task_id, version, "stop"))
    task = tasks.make(task_id)
    mine = [r for r in done.values() if r.model == contestant.spec and r.task == task_id and r.set_version == version]
    for number, match in enumerate(planned):
        if stop_key in stops:
            progress.skipped += len(planned) - number
            if progress.on_episode:
                progress.on_episode(len(planned) - number)
            return
        keys = [match.key(contestant.spec, task_id, version, seat) for seat in match.seats]
        if all(k in done for k in keys):
            progress.skipped += 1
        else:
            played, models = play_match(match, task_id, contestant, config.baseline, seed=match.seed(task_id, version, config.seed), max_turns=config.max_turns)
            progress.played += 1
            for row in episode_rows(played, match, models, task, model=contestant.spec, version=version):
                _write(handle, row)
                done[row.key] = row
                mine.append(row)
                yield row
        if progress.on_episode:
            progress.on_episode(1)
        reason = stop_reason(mine, config)
        if reason is not None:
            stop = StopRow(key=stop_key, model=contestant.spec, task=task_id, set_version=version, reason=reason)
            _write(handle, stop)
            stops[stop_key] = stop
            if progress.on_stop:
                progress.on_stop(stop)
            yield stop


def _write(handle: Any, row: Model) -> None:
    handle.write(row.model_dump_json() + "\n")
    handle.flush()


# ---------------------------------------------------------------------------- the summary


class Price(Model):
    """US dollars per million tokens."""

    input: float = Field(ge=0)
    output: float = Field(ge=0)


class PriceTable(Model):
    """Model spec (or model name) -> its price. Applied when figures are summarised, so prices may change after a run."""

    prices: dict[str, Price] = Field(default_factory=dict)

    def cost(self, row: BenchRow, model_name: str | None) -> float | None:
        price = self.prices.get(row.model) or (self.prices.get(model_name) if model_name else None)
        if price is None:
            return None
        return (row.prompt_tokens * price.input + row.completion_tokens * price.output) / 1e6


FIGURES: tuple[tuple[str, str], ...] = (
    ("agreement", "agreement"),
    ("score", "model's score"),
    ("person_score", "person's score (same seat)"),
    ("score_vs_person", "model - person"),
    ("pareto", "Pareto share of deals"),
    ("illegal_rate", "illegal-move rate"),
    ("tokens", "tokens per episode"),
    ("cost", "cost per episode (USD)"),
    ("latency", "seconds per call"),
)


class Estimate(Model):
    mean: float
    low: float
    high: float
    n: int


class Standing(Model):
    """One model against one kind of opponent on one task."""

    model: str
    task: str
    set_version: str
    opponent: str
    episodes: int
    figures: dict[str, Estimate] = Field(default_factory=dict)
    stopped: str | None = None
    cache_hits: int = 0


def row_figures(row: BenchRow, prices: PriceTable, model_name: str | None) -> dict[str, float | None]:
    """One row's figures, by name (None where a figure does not apply)."""
    return {
        "agreement": row.agreement,
        "score": row.score,
        "person_score": row.person_score,
        "score_vs_person": None if row.score is None or row.person_score is None else row.score - row.person_score,
        "pareto": row.pareto,
        "illegal_rate": row.illegal / (row.illegal + row.moves) if row.illegal + row.moves else None,
        "tokens": float(row.prompt_tokens + row.completion_tokens) if row.calls else None,
        "cost": prices.cost(row, model_name) if row.calls else None,
        "latency": row.seconds / row.calls if row.calls else None,
        **row.extra,
    }


def standings(rows: list[BenchRow], stops: list[StopRow], *, prices: PriceTable | None = None, model_names: dict[str, str] | None = None, seed: int = 0) -> list[Standing]:
    """Means with 95% bootstrap intervals per model, task, set version and opponent."""
    prices = prices or PriceTable()
    groups: dict[tuple[str, str, str, str], list[BenchRow]] = {}
    for row in rows:
        groups.setdefault((row.model, row.task, row.set_version, row.opponent), []).append(row)
    stopped = {(s.model, s.task, s.set_version): s.reason for s in stops}
    found = []
    for (model, task_id, version, opponent), members in groups.items():
        standing = Standing(model=model, task=task_id, set_version=version, opponent=opponent, episodes=len(members), stopped=stopped.get((model, task_id, version)), cache_hits=sum(r.cache_hits for r in members))
        columns: dict[str, list[float]] = {}
        for row in members:
            for name, value in row_figures(row, prices, (model_names or {}).get(model)).items():
                if value is not None:
                    columns.setdefault(name, []).append(float(value))
        for name, values in columns.items():
            estimate = bootstrap_mean(values, seed=seed)
            standing.figures[name] = Estimate(mean=estimate.mean, low=estimate.low, high=estimate.high, n=len(values))
        found.append(standing)
    order = {name: number for number, name in enumerate(OPPONENTS)}
    return sorted(found, key=lambda s: (s.task, order.get(s.opponent, 9), -(s.figures["score"].mean if "score" in s.figures else float("-inf")), s.model))
