"""duologue's layers and its freedom from import cycles, as `lint-imports` checks them in CI
(the contracts are in pyproject.toml): the tree keeps them, and a deliberate back-import, even one
inside a function, or a cycle between two modules of one package, breaks them.

The broken cases run on a copy of the source in a temporary folder, so they do not depend on the
real tree ever being broken.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("importlinter", reason="the layer contracts need import-linter (the dev extra)")

ROOT = Path(__file__).resolve().parents[1]
PYPROJECT = ROOT / "pyproject.toml"
LINT = "from importlinter.cli import lint_imports_command; lint_imports_command()"


def lint(src: Path) -> subprocess.CompletedProcess[str]:
    """`lint-imports` with the project's contracts on the `duologue` package found under `src`."""
    env = {**os.environ, "PYTHONPATH": str(src), "NO_COLOR": "1"}
    command = [sys.executable, "-c", LINT, "--config", str(PYPROJECT), "--no-cache"]
    return subprocess.run(command, cwd=src, env=env, capture_output=True, text=True, timeout=300, check=False)


@pytest.fixture
def copy(tmp_path: Path) -> Path:
    """The Python files of the source tree, copied (no data or templates: the import graph needs none)."""
    def not_python(folder: str, names: list[str]) -> list[str]:
        return [n for n in names if not n.endswith(".py") and not (Path(folder) / n).is_dir()]

    shutil.copytree(ROOT / "src" / "duologue", tmp_path / "duologue", ignore=not_python)
    return tmp_path


def add(copy: Path, module: str, code: str) -> None:
    path = copy.joinpath(*module.split(".")).with_suffix(".py")
    path.write_text(path.read_text() + "\n\n" + code)


def test_the_tree_keeps_its_layers_and_has_no_cycles():
    result = lint(ROOT / "src")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "Contracts: 2 kept, 0 broken." in result.stdout


def test_the_copy_keeps_them_too(copy: Path):
    result = lint(copy)
    assert result.returncode == 0, result.stdout + result.stderr


def test_an_import_up_the_layers_inside_a_function_breaks_the_layers(copy: Path):
    add(copy, "duologue.core.names", "def _upward():\n    from duologue.tasks import make\n\n    return make\n")
    result = lint(copy)
    assert result.returncode != 0
    assert "duologue's layers: each imports only the layers below it BROKEN" in result.stdout
    assert "duologue.core.names -> duologue.tasks" in result.stdout


def test_generic_agents_may_not_import_the_tasks(copy: Path):
    add(copy, "duologue.agents.__init__", "def _registry():\n    import duologue.tasks\n\n    return duologue.tasks\n")
    result = lint(copy)
    assert result.returncode != 0
    assert "duologue.agents -> duologue.tasks" in result.stdout


def test_a_router_importing_the_app_back_is_a_cycle(copy: Path):
    add(copy, "duologue.web.routers.chat", "def _app():\n    from duologue.web.app import create_app\n\n    return create_app\n")
    result = lint(copy)
    assert result.returncode != 0
    assert "no cycles between the modules or packages of one package BROKEN" in result.stdout
    assert "No cycles are allowed in duologue.web." in result.stdout
