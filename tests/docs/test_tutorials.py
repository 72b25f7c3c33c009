"""The documentation runs as written: the tutorial's code, the README's tour, and every command named.

* The tutorial pages' code blocks are run in order in a temporary folder: a block titled with a
  file name (```python title="pkg/mod.py"```) adds its code to that file, an untitled python block
  is executed (all in one namespace, as a reader would type them into one session).
* The README's tour (the `bash` block under "A tour") is run line by line through the command in
  a folder laid out like a checkout beside `shared/data`, so `../shared/data/...` means what it says.
* Every `duologue ...` line in a shell block of the README or the site names a command that exists,
  with options that command takes, so a renamed command or option cannot linger in the docs.
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import typer

from conftest import ROOT, data_root
from duologue.cli import app

DOCS = ROOT / "docs"
README = ROOT / "README.md"
TUTORIALS = ["tutorial-task.md"]
README_LIMIT = 8 * 1024

FENCE = re.compile(r"^```(?P<lang>[\w-]*)(?P<attrs>[^\n]*)\n(?P<code>.*?)^```\s*$", re.M | re.S)
TITLE = re.compile(r'title="([^"]+)"')
SHELL = ("bash", "sh", "console", "shell")


def fenced_blocks(text: str) -> list[tuple[str, str | None, str]]:
    """(language, title or None, code) of each top-level fenced block, in order."""
    blocks = []
    for match in FENCE.finditer(text):
        title = TITLE.search(match["attrs"])
        blocks.append((match["lang"], title.group(1) if title else None, match["code"]))
    return blocks


def command_lines(code: str) -> list[str]:
    """The `duologue ...` commands of a shell block, each without its trailing comment."""
    lines = []
    for raw in code.replace("\\\n", " ").splitlines():  # a line continued with a backslash is one command
        words = shlex.split(raw, comments=True)
        if words and words[0] == "duologue":
            lines.append(shlex.join(words))
    return lines


def tour_block() -> str:
    text = README.read_text(encoding="utf-8")
    heading = re.search(r"^## A tour.*$", text, re.M)
    assert heading, "the README has a section '## A tour ...'"
    blocks = [code for lang, _, code in fenced_blocks(text[heading.end():]) if lang in SHELL]
    assert blocks, "the tour has a bash block"
    return blocks[0]


@pytest.mark.parametrize("page", TUTORIALS)
def test_the_tutorial_code_runs_as_written(page: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]):
    from duologue.core import actions, schema
    from duologue.tasks import TASKS

    blocks = fenced_blocks((DOCS / page).read_text(encoding="utf-8"))
    assert any(lang == "python" and title is None for lang, title, _ in blocks), f"{page} has code to run"
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "path", list(sys.path))
    modules_before = set(sys.modules)
    registries = [TASKS, actions.BY_KIND, actions.EVENT_OF, actions.KIND_OF_EVENT, schema.EVENT_CLASSES]
    saved = [dict(registry) for registry in registries]  # the tutorial's task and move kinds leave with it
    namespace: dict[str, Any] = {"__name__": "__tutorial__"}
    try:
        for number, (lang, title, code) in enumerate(blocks, start=1):
            if title is not None:
                target = tmp_path / title
                target.parent.mkdir(parents=True, exist_ok=True)
                with target.open("a", encoding="utf-8") as out:
                    out.write(code)
            elif lang == "python":
                exec(compile(code, f"{page} block {number}", "exec"), namespace)  # noqa: S102 - the page's own code, run as a reader would
    finally:
        for registry, before in zip(registries, saved, strict=True):
            registry.clear()
            registry.update(before)
        for name in set(sys.modules) - modules_before:
            if name.split(".")[0] in {p.name for p in tmp_path.iterdir()}:
                del sys.modules[name]
    assert "passes the checker" in capsys.readouterr().out


def test_the_readme_is_short():
    size = len(README.read_bytes())
    assert size < README_LIMIT, f"README.md is {size} bytes; move reference material to docs/ (limit {README_LIMIT})"


def test_the_readme_tour_runs_as_written(tmp_path: Path):
    data = data_root()
    if not data.is_dir():
        pytest.skip(f"real corpora not available: {data} (set DUOLOGUE_DATA)")
    checkout = tmp_path / "checkout"
    checkout.mkdir()
    (tmp_path / "shared").mkdir()
    (tmp_path / "shared" / "data").symlink_to(data.resolve(), target_is_directory=True)
    env = {**os.environ, "COLUMNS": "200", "DUOLOGUE_DATA": str(data.resolve())}
    lines = command_lines(tour_block())
    assert len(lines) >= 8, lines
    servers = [line for line in lines if shlex.split(line)[1:2] == ["serve"] or shlex.split(line)[1:3] == ["llm", "serve"]]
    assert not servers, f"the tour's lines must end on their own, as a reader runs them one after another: {servers}"
    for line in lines:
        words = shlex.split(line)
        if words[1:3] == ["llm", "check"]:
            from duologue.llm.server import local_model_problem

            if local_model_problem():
                continue  # the local model is not installed here: nothing else in the tour needs it
        done = subprocess.run([sys.executable, "-m", "duologue.cli", *words[1:]], cwd=checkout, env=env, capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, f"`{line}` exited {done.returncode}:\n{done.stdout[-2000:]}\n{done.stderr[-2000:]}"


def _commands() -> tuple[Any, Any]:
    root = typer.main.get_command(app)
    return root, typer.Context(root, info_name="duologue")


def _check_command(line: str) -> str | None:
    """Why `line` does not name an existing command with options it takes, or None."""
    command, ctx = _commands()
    words = shlex.split(line)[1:]
    while hasattr(command, "list_commands") and words and not words[0].startswith("-"):
        sub = command.get_command(ctx, words[0])
        if sub is None:
            return f"no command `{ctx.command_path} {words[0]}`"
        ctx = typer.Context(sub, info_name=words.pop(0), parent=ctx)
        command = sub
    if "--help" in words:
        return None
    known = {opt for param in command.get_params(ctx) for opt in [*param.opts, *param.secondary_opts] if opt.startswith("-")}
    for word in words:
        option = word.split("=", 1)[0]
        if option.startswith("-") and option != "-" and not option.lstrip("-").isdigit() and option not in known:
            return f"`{ctx.command_path}` takes no option {option}"
    return None


def _doc_pages() -> list[Path]:
    return [README, *sorted(DOCS.rglob("*.md"))]


@pytest.mark.parametrize("path", _doc_pages(), ids=lambda p: str(p.relative_to(ROOT)))
def test_every_command_the_docs_name_exists(path: Path):
    problems = []
    for lang, _, code in fenced_blocks(path.read_text(encoding="utf-8")):
        if lang in SHELL:
            problems += [f"{line}: {why}" for line in command_lines(code) if (why := _check_command(line))]
    assert not problems, "\n".join(problems)


def test_the_command_checker_catches_a_renamed_command_or_option():
    assert _check_command("duologue play -t casino-v0 -a rule -n 5") is None
    assert "no command" in (_check_command("duologue plays -t casino-v0") or "")
    assert "no option --episodez" in (_check_command("duologue play -t casino-v0 --episodez 5") or "")
    assert "no command" in (_check_command("duologue data validat casino x") or "")


def test_the_cli_reference_is_written_from_every_command():
    sys.path.insert(0, str(DOCS / "hooks"))
    try:
        from cli_reference import cli_markdown
    finally:
        sys.path.remove(str(DOCS / "hooks"))
    page = cli_markdown()
    root, ctx = _commands()
    for name in root.list_commands(ctx):
        assert f"`duologue {name}`" in page
    assert "`duologue data validate`" in page and "--skip-invalid" in page and "`duologue llm check`" in page


def test_field_docstrings_reach_the_api_reference():
    """mkdocstrings reads the source with griffe: the string under a pydantic field is its documentation."""
    import griffe

    loader = griffe.GriffeLoader(search_paths=[str(ROOT / "src")])
    spec = loader.load("duologue.core.spec")
    assert "Bump the version" in spec["TaskSpec"].members["id"].docstring.value
    settings = loader.load("duologue.web.settings")
    assert "admin pages" in settings["Settings"].members["admin_token"].docstring.value  # a field with Field(...)
