"""Browser tests: a real server (uvicorn in a thread, free loopback port) driven by Debian's chromium.

Skipped when /usr/bin/chromium or the playwright package is missing (`playwright install` cannot
download a browser here, so the system chromium is launched by path). Screenshots go to
`DUOLOGUE_SCREENSHOTS` when set, else to pytest's temporary folder.
"""

from __future__ import annotations

import os
import socket
import threading
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

import pytest

import uvicorn

from duologue.web.app import create_app
from duologue.web.settings import Settings
from duologue.web.payments import Pay
from duologue.web.study import Partner, Scenarios, Study, default_studies

CHROMIUM = Path(os.environ.get("DUOLOGUE_CHROMIUM", "/usr/bin/chromium"))
ADMIN = "browser-admin-token"


def pytest_collection_modifyitems(config, items):
    """Skip (not fail) every browser test when the browser or playwright is missing."""
    reason = None
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        reason = "playwright is not installed"
    if reason is None and not CHROMIUM.exists():
        reason = f"Debian chromium ({CHROMIUM}) is not installed"
    if reason is None:
        return
    here = Path(__file__).parent
    for item in items:
        if Path(str(item.fspath)).is_relative_to(here):
            item.add_marker(pytest.mark.skip(reason=reason))


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def browser_studies() -> list[Study]:
    """The default studies (bots after 1 s), plus human-only ones for the two-person tests."""
    studies = default_studies(bot_wait_seconds=1.0)
    for study in studies:
        if study.task.startswith("openchat"):
            study.task_options = {"utterances": 4}
    studies.append(Study(id="casino-people", title="CaSiNo (two people)", task="casino-v0", partners=[Partner(kind="human")]))
    studies.append(Study(id="mutualfriends-people", title="MutualFriends (two people)", task="mutualfriends-v0", partners=[Partner(kind="human")]))
    studies.append(Study(id="dealornodeal-people", title="Deal or No Deal (two people)", task="dealornodeal-v0", partners=[Partner(kind="human")]))
    studies.append(collection_study())
    # a partner who leaves after one message: the dialogue ends and the other still gets a code
    studies.append(Study(id="casino-leave", title="CaSiNo (a partner may leave)", task="casino-v0", partners=[Partner(kind="human")], on_partner_leave="end", partner_grace_seconds=2, pay=Pay(base=1.0, min_messages=2, left_pay_per_minute=0.2)))
    # seed 0 draws 4 attributes and 12 friends: the widest MutualFriends page
    studies.append(Study(id="mutualfriends-wide", title="MutualFriends (4 attributes)", task="mutualfriends-v0", scenarios=Scenarios(pool=1, seed=0), partners=[Partner(kind="bot", agent="rule")], bot_wait_seconds=0.5))
    return studies


def collection_study() -> Study:
    """CaSiNo's shipped collection protocol (consent, instructions, a check, three surveys), paired with the rule bot."""
    import yaml

    from duologue.tasks import spec
    from duologue.web.study import parse_studies

    shipped = spec("casino-v0").resource("protocol", "study.yaml")
    (study,) = parse_studies(yaml.safe_load(shipped.read_text(encoding="utf-8")), source="casino protocol/study.yaml")
    return study.model_copy(update={"partners": [Partner(kind="bot", agent="rule")], "bot_wait_seconds": 1.0})


@contextmanager
def running_server(folder: Path, studies: list[Study]) -> Iterator[str]:
    """Base URL of a platform running these studies in a thread; stopped on leaving."""
    settings = Settings(database_url=f"sqlite:///{folder / 'browser.db'}", admin_token=ADMIN, secret="browser-secret", bot_typing_seconds=0.3)
    app = create_app(settings, studies)
    port = free_port()
    config = uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning")
    instance = uvicorn.Server(config)
    thread = threading.Thread(target=instance.run, daemon=True)
    thread.start()
    deadline = time.time() + 120  # generous for a loaded machine: the loop ends as soon as it started
    while not instance.started:
        if time.time() > deadline or not thread.is_alive():
            raise RuntimeError("the test server did not start")
        time.sleep(0.05)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        instance.should_exit = True
        thread.join(timeout=10)


@pytest.fixture(scope="session")
def server(tmp_path_factory):
    """Base URL of a running platform; stopped at the end of the session."""
    with running_server(tmp_path_factory.mktemp("server"), browser_studies()) as url:
        yield url


@pytest.fixture(scope="module")  # not the session: Playwright's sync API keeps an event loop running until it closes
def browser(tmp_path_factory):
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        instance = p.chromium.launch(
            executable_path=str(CHROMIUM),
            args=[
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-background-networking",
                "--disable-quic",
                "--no-first-run",
                "--disable-component-update",
                "--disable-sync",
            ],  # playwright gives every launch a fresh temporary profile (it refuses --user-data-dir)
        )
        yield instance
        instance.close()


@pytest.fixture(scope="session")
def shots(tmp_path_factory) -> Path:
    folder = Path(os.environ["DUOLOGUE_SCREENSHOTS"]) if os.environ.get("DUOLOGUE_SCREENSHOTS") else tmp_path_factory.mktemp("screenshots")
    folder.mkdir(parents=True, exist_ok=True)
    return folder


@pytest.fixture
def page_factory(browser):
    """New pages, each in its own browser context (its own cookies: one person each)."""
    contexts = []

    def new_page(width: int = 1200, height: int = 900, mobile: bool = False):
        context = browser.new_context(viewport={"width": width, "height": height}, is_mobile=mobile, has_touch=mobile)
        context.set_default_timeout(15_000)
        contexts.append(context)
        return context.new_page()

    yield new_page
    for context in contexts:
        context.close()
