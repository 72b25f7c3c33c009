"""Pilot a study before launch (oTree's browser bots): simulated participants go through the real
pages in Chromium, consent to completion code, and report what each saw and any error.

The platform runs in a thread on a temporary SQLite database; each simulated participant has its
own browser context (its own cookies). They fill every protocol page (the right comprehension
answers, a middle answer elsewhere), wait in the lobby, play the dialogue with the schema-drawn
controls (the task's own widget is blocked so one player fits every task), answer the questionnaire
and read their code. They arrive as the study's crowd mode wants (`arrival`): signed links (the
pilot signs them with the study's secret), Prolific's or MTurk's made-up ids with the study's own
STUDY_ID; a bounded number of people are in the pages at once (`parallel`), each reported to a
`progress` callback as they move. A refusal (a 4xx page, a full quota in the lobby) ends that
person's run at once with its reason. With `pairs=True` they arrive two at a time so people are
paired with each other where the study allows it; otherwise each meets a bot (`piloted`).
"""

from __future__ import annotations

import asyncio
import hashlib
import os
import random
import re
import secrets
import socket
import tempfile
import threading
import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterator

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--no-first-run", "--disable-sync"]
LEAVING = ("quit", "walk", "leave")
ANSWERS = ("accept", "reject")
REASONS = ("We are a big group and the nights are cold.", "My kids eat a lot on hikes.", "The river near the site is not safe to drink.", "I want to cook over a fire every night.")
EVENTS_SHOWN = "() => document.querySelectorAll('#transcript li').length"
PILOT_SUBMIT = "https://workersandbox.mturk.com"
"""Where the pilot's MTurk arrivals say their code goes (MTurk's sandbox; the pilot never reaches it)."""
LINES = ("Hello! What matters most to you on this trip?", "I see, that sounds fair to me.", "Let us settle it, shall we?", "Thanks, that works.")


@dataclass
class PilotResult:
    """What one simulated participant saw."""

    participant: str
    pages: list[str] = field(default_factory=list)
    moves: int = 0
    code: str | None = None
    error: str | None = None
    seconds: float = 0.0
    redirect: str | None = None
    partner: str | None = None
    """`human` or `bot:<agent>`."""
    outcome: str | None = None
    """How the dialogue ended (`agreed`, or the outcome's reason) and this person's score."""
    answers: dict[str, object] = field(default_factory=dict)
    """What it answered on the survey pages (item id -> value as sent)."""
    left_for: str | None = None
    """Where the code page went on by itself (Prolific's completion address, MTurk's submit), caught before it left."""


@contextmanager
def running_platform(studies: list, folder: Path | None = None, **settings: Any) -> Iterator[tuple[str, Any]]:
    """(base URL, app) of a platform running these studies on a temporary SQLite database."""
    import uvicorn

    from duologue.web.app import create_app
    from duologue.web.settings import Settings

    with tempfile.TemporaryDirectory(prefix="duologue-pilot-") as temporary:
        root = Path(folder or temporary)
        values: dict[str, Any] = dict(database_url=f"sqlite:///{root / 'pilot.db'}", secret=secrets.token_hex(16), admin_token=secrets.token_hex(16), bot_typing_seconds=0.2)
        values.update(settings)
        app = create_app(Settings(**values), studies)
        with socket.socket() as sock:
            sock.bind(("127.0.0.1", 0))
            port = sock.getsockname()[1]
        server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="error"))
        thread = threading.Thread(target=server.run, daemon=True)
        thread.start()
        deadline = time.time() + 300  # generous: the start warms the study's bots first; the loop ends once started
        while not server.started:
            if time.time() > deadline or not thread.is_alive():
                raise RuntimeError("the pilot platform did not start")
            time.sleep(0.05)
        try:
            yield f"http://127.0.0.1:{port}", app
        finally:
            server.should_exit = True
            thread.join(timeout=10)


async def _protocol_page(page, study, result: PilotResult, rng: random.Random) -> None:
    """Fill one protocol page as a careful participant would (varied answers, kept in `result.answers`)."""
    step = await page.get_attribute("#protocol", "data-step")
    if step == "consent":
        await page.check("#agree")
    elif step == "comprehension":
        for i, check in enumerate(study.protocol.comprehension):
            await page.locator(f"input[name='check_{i}'][value='{check.answer}']").check()
    else:
        for box in await page.locator("fieldset.item").all():
            value: Any  # the answer as given: text, a number, or a choice
            kind = await box.get_attribute("data-kind")
            if kind == "text":
                name = await box.locator("textarea").get_attribute("name")
                value = f"{rng.choice(REASONS)} ({name}, {result.participant})"
                await box.locator("textarea").fill(value)
            elif kind == "number":
                field_ = box.locator("input[type=number]")
                name = await field_.get_attribute("name")
                low, high = int(await field_.get_attribute("min")), int(await field_.get_attribute("max"))
                value = rng.randint(low, min(high, low + 50))
                await field_.fill(str(value))
            else:
                radios = box.locator("input[type=radio]")
                choice = radios.nth(rng.randrange(await radios.count()))
                await choice.check()
                name, value = await choice.get_attribute("name"), await choice.get_attribute("value")
            result.answers[str(name)] = value
    await page.click("#protocol-next")
    await page.wait_for_load_state()


async def _fill_move(page, kind: str, step: int) -> None:
    page.set_default_timeout(3_000)  # a form the partner's move replaced is given up quickly
    try:
        await _fill_form(page, kind, step)
    finally:
        page.set_default_timeout(30_000)


class FormGone(Exception):
    """The move's form was redrawn or taken away (the partner moved) while it was being filled."""


async def _count(locator) -> int:
    count = await locator.count()
    if count == 0:
        raise FormGone
    return count


async def _fill_form(page, kind: str, step: int) -> None:
    form = page.locator(f"#actions form[data-kind='{kind}']")
    for group in await form.locator("[role=radiogroup]").all():
        radios = group.locator("input[type=radio]")
        await radios.nth(step % await _count(radios)).check()
    for box in await form.locator("input[type=number]").all():
        low = float(await box.get_attribute("min") or 0)
        high = float(await box.get_attribute("max") or low + 10)
        value = low + (high - low) / 2
        await box.fill(str(int(value)) if await box.get_attribute("step") == "1" else f"{max(value, low + 0.5):.2f}")
    for select in await form.locator("select").all():
        options = select.locator("option")
        count = await _count(options)
        await select.select_option(index=(step + count // 2) % count)


async def _play(page, result: PilotResult, limit: int = 80) -> None:
    """Play a seat to the end with the schema-drawn controls: talk first, then move, then leave."""
    from playwright.async_api import TimeoutError as PlaywrightTimeout
    said = 0
    for _ in range(limit):
        await page.wait_for_function(
            "() => !document.getElementById('end').hidden || !document.getElementById('say-input').disabled || document.querySelector('#actions form')",
            timeout=60_000,
        )
        if not await page.locator("#end").is_hidden():
            return
        seen = await page.evaluate(EVENTS_SHOWN)
        kinds = [await f.get_attribute("data-kind") for f in await page.locator("#actions form.move-form").all()]
        kinds = [k for k in kinds if k]
        answer = next((k for k in kinds if k.startswith(ANSWERS[0])), None)
        moves = [k for k in kinds if not k.startswith(LEAVING + ANSWERS)]
        leave = next((k for k in kinds if k.startswith(LEAVING)), None)
        talk = not await page.locator("#say-input").is_disabled()
        if answer:
            await page.click(f"#move-{answer}")
            result.moves += 1
        elif leave and result.moves >= 4:
            await page.click(f"#move-{leave}")
            result.moves += 1
        elif talk and said < 2:
            await page.fill("#say-input", LINES[said % len(LINES)])
            await page.click("#say-button")
            said += 1
        elif moves:
            kind = moves[result.moves % len(moves)]
            try:  # the partner's move may redraw the form meanwhile: then look again
                await _fill_move(page, kind, result.moves)
                await page.click(f"#move-{kind}", timeout=3_000)
                result.moves += 1
            except (PlaywrightTimeout, FormGone):
                continue
        elif talk:
            await page.fill("#say-input", LINES[said % len(LINES)])
            await page.click("#say-button")
            said += 1
        await _answered(page, seen)
    raise RuntimeError(f"the dialogue did not end within {limit} turns")


async def _answered(page, seen: int) -> None:
    """Until the move just made shows (a new event in the transcript), is refused (an error), or the
    dialogue ends: the next look sees the page as the move left it. After 10 s look again anyway."""
    from playwright.async_api import TimeoutError as PlaywrightTimeout

    try:
        await page.wait_for_function(
            "(seen) => document.querySelectorAll('#transcript li').length > seen || !document.getElementById('error').hidden || !document.getElementById('end').hidden",
            arg=seen,
            timeout=10_000,
        )
    except PlaywrightTimeout:
        pass


def _where(url: str) -> str:
    """A page's short name: a protocol step, `lobby`, `chat`, `questionnaire`."""
    parts = url.split("://", 1)[-1].split("/", 1)[-1].split("?", 1)[0].split("/")
    if parts[0] == "protocol" and len(parts) > 2:
        return parts[2]
    return {"study": "lobby"}.get(parts[0], parts[0] or "/")


class Refused(Exception):
    """The platform refused this simulated person (a 4xx page, or the lobby's refusal), with its reason."""


def arrival(base: str, study: Any, number: int, prefix: str = "pilot") -> tuple[str, str]:
    """(participant id, the address they arrive at) for the study's crowd mode: a link the pilot
    signs with the study's secret, or Prolific's or MTurk's ids made up for the pilot (with the
    study's own STUDY_ID), or a plain id."""
    from urllib.parse import urlencode

    from duologue.web.crowd import mode
    from duologue.web.payments import signed_link

    name = f"{prefix}-{number}"
    made_up = hashlib.sha256(f"{study.id}|{name}".encode()).hexdigest()
    crowd = mode(study)
    if crowd == "links":
        return name, signed_link(base, study.pay.link_secret, study.id, name)
    if crowd == "prolific":
        pid = made_up[:24]
        return pid, f"{base}/study/{study.id}?{urlencode({'PROLIFIC_PID': pid, 'STUDY_ID': study.prolific_study_id, 'SESSION_ID': made_up[24:48]})}"
    if crowd == "mturk":
        worker = "A" + made_up[:13].upper()
        query = {"workerId": worker, "assignmentId": made_up[13:43].upper(), "hitId": "PILOT" + made_up[43:60].upper(), "turkSubmitTo": PILOT_SUBMIT}
        return worker, f"{base}/study/{study.id}?{urlencode(query)}"
    return name, f"{base}/study/{study.id}?{urlencode({'participant': name})}"


async def _refusal(page) -> str:
    """What a page that is not the one expected says: an error page's reason, or its text."""
    for selector in ("main .panel p", "body"):
        found = page.locator(selector)
        if await found.count():
            text = (await found.first.inner_text()).strip()
            if text:
                return text.splitlines()[0][:300]
    return "an empty page"


async def _arrive(page, address: str, study, result: PilotResult, rng: random.Random) -> None:
    """From the study link through the protocol pages into the lobby, and on to a seat: a refusal
    on the way (403, a full quota) is raised at once with its reason."""
    response = await page.goto(address)
    if response is not None and response.status >= 400:
        raise Refused(f"{response.status}: {await _refusal(page)}")
    while "/protocol/" in page.url:
        if await page.locator("#protocol").count() == 0:
            raise Refused(await _refusal(page))
        await _protocol_page(page, study, result, rng)
    seated = asyncio.ensure_future(page.wait_for_url(re.compile(r".*/chat/.*"), timeout=120_000))
    refused = asyncio.ensure_future(page.wait_for_selector("#lobby .spinner[hidden], #error-page", state="attached", timeout=120_000))
    try:
        done, _ = await asyncio.wait({seated, refused}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for waiting in (seated, refused):
            waiting.cancel()
    if seated in done and seated.exception() is None:
        return
    if refused in done and refused.exception() is None:
        lobby = page.locator("#lobby-status")
        raise Refused((await lobby.inner_text()).strip() if await lobby.count() else await _refusal(page))
    raise next(iter(done)).exception()  # type: ignore[misc]


async def _finish(page, result: PilotResult) -> None:
    await page.click("#to-questionnaire")
    await page.wait_for_url(re.compile(r".*/questionnaire/.*"))
    if await page.locator("#completion-code").count() == 0:
        for box in await page.locator("fieldset.item").all():
            radios = box.locator("input[type=radio]")
            await radios.nth((await radios.count()) // 2).check()
        await page.click("#submit-questionnaire")
    result.code = (await page.locator("#completion-code").inner_text()).strip()
    link = page.locator("#completion-link")
    form = page.locator("#mturk-submit")
    if await link.count():
        result.redirect = await link.get_attribute("href")
    elif await form.count():
        result.redirect = await form.get_attribute("action")


async def _crowd_sites(context, result: PilotResult) -> None:
    """The pilot never reaches Prolific or MTurk: where a code page goes on by itself, the address is noted and answered here."""

    async def answer(route) -> None:
        result.left_for = route.request.url
        await route.fulfill(status=200, content_type="text/plain", body="pilot: the crowd platform would take over here")

    await context.route(re.compile(r"^https://(app\.prolific\.com|www\.mturk\.com|workersandbox\.mturk\.com)/.*"), answer)


Progress = Callable[[PilotResult, str], None]
"""Told of each simulated person's page (`consent`, `lobby`, `chat`, ...), then `done` or `error`."""


async def participant_run(browser, base: str, study, participant: str, timeout: float = 240.0, *, address: str | None = None, progress: Progress | None = None) -> PilotResult:
    """One simulated participant, consent to code."""
    result = PilotResult(participant)
    rng = random.Random(participant)
    started = time.time()
    context = await browser.new_context(viewport={"width": 1280, "height": 900})
    context.set_default_timeout(30_000)
    await _crowd_sites(context, result)
    page = await context.new_page()
    await page.route(re.compile(r".*/tasks/[^/]+/static/.*"), lambda route: asyncio.ensure_future(route.abort()))
    page.on("dialog", lambda dialog: asyncio.ensure_future(dialog.accept()))

    def moved(frame) -> None:
        where = _where(frame.url)
        if frame == page.main_frame and (not result.pages or result.pages[-1] != where):
            result.pages.append(where)
            if progress is not None:
                progress(result, where)

    page.on("framenavigated", moved)
    try:
        async with asyncio.timeout(timeout):
            await _arrive(page, address or f"{base}/study/{study.id}?participant={participant}", study, result, rng)
            await _play(page, result)
            await _finish(page, result)
    except Exception as error:  # noqa: BLE001 - a pilot reports every failure as a row, not a traceback
        first = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
        result.error = f"refused on {_where(page.url)}: {first}" if isinstance(error, Refused) else f"{type(error).__name__} on {_where(page.url)}: {first}"
    finally:
        result.seconds = round(time.time() - started, 1)
        await context.close()
        if progress is not None:
            progress(result, "error" if result.error else "done")
    return result


def parallel(n: int) -> int:
    """How many simulated people are in the pages at once by default: enough to keep the platform
    and the browser busy on a small machine, few enough that none waits on the others' pages."""
    return max(1, min(n, 2 * (os.cpu_count() or 1) + 2))


async def pilot_async(base: str, study, n: int, *, pairs: bool = False, prefix: str = "pilot", chromium: str = CHROMIUM, at_once: int | None = None, progress: Progress | None = None) -> list[PilotResult]:
    """Run n simulated people, at most `at_once` in the pages together (a pair counts as two)."""
    from playwright.async_api import async_playwright

    async with async_playwright() as playwright:
        browser = await playwright.chromium.launch(executable_path=chromium, args=CHROMIUM_FLAGS)
        try:
            size = 2 if pairs else 1
            slots = asyncio.Semaphore(max(1, (at_once or parallel(n)) // size))
            people = [arrival(base, study, i + 1, prefix) for i in range(n)]

            async def group(first: int) -> list[PilotResult]:
                async with slots:
                    chosen = people[first : first + size]
                    return list(await asyncio.gather(*(participant_run(browser, base, study, name, address=address, progress=progress) for name, address in chosen)))

            groups = await asyncio.gather(*(group(first) for first in range(0, n, size)))
            return [result for found in groups for result in found]
        finally:
            await browser.close()


def piloted(study, pairs: bool) -> tuple[Any, bool]:
    """(the study as piloted, whether people arrive in pairs). Arriving one at a time, each meets a
    bot: people in the pages together would otherwise be paired with each other, so the pilot's
    copy of a study that also pairs people keeps only its bots. A study without bots is piloted in pairs."""
    if pairs:
        return study, True
    if not study.bots:
        return study, True
    if study.allows_humans:
        return study.model_copy(update={"partners": study.bots}), False
    return study, False


def pilot(study, n: int, *, pairs: bool = False, chromium: str = CHROMIUM, folder: Path | None = None, at_once: int | None = None, progress: Progress | None = None, **settings) -> tuple[list[PilotResult], list]:
    """Run the pilot on a temporary platform (its database in `folder` when given, to look at
    afterwards); (results, the finished dialogues). See `piloted` for who meets whom."""
    study, pairs = piloted(study, pairs)
    with running_platform([study], folder, **settings) as (base, app):
        results = asyncio.run(pilot_async(base, study, n, pairs=pairs, chromium=chromium, at_once=at_once, progress=progress))
        storage = app.state.platform.storage
        dialogues = list(storage.iter_dialogues(study_id=study.id))
    for dialogue in dialogues:
        for party in dialogue.parties:
            mine = next((r for r in results if r.participant == party.participant_id), None)
            if mine is None:
                continue
            other = next((p for p in dialogue.parties if p.id != party.id), None)
            mine.partner = None if other is None else ("human" if other.kind == "human" else f"bot:{other.agent}")
            outcome = dialogue.outcome
            if outcome is not None:
                ended = "agreed" if outcome.agreed else (outcome.reason or "ended")
                score = outcome.scores.get(party.id)
                mine.outcome = ended if score is None else f"{ended}, {score:.4g}"
    return results, dialogues
