"""The Ray backend's cases (`ray_backend_cases.py`), run in a pytest process of their own.

Ray's driver library ends its process at once (exit status 1, no traceback, nothing flushed) when
the local Ray services it talks to go away. Inside the main test process that would end the whole
suite with no report; here it ends one child, whose output and Ray's own logs are shown. A child
that died that way is run once more; a child whose pytest finished keeps its verdict.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

CASES = Path(__file__).with_name("ray_backend_cases.py")
ROOT = CASES.parents[2]
SUMMARY = re.compile(r"^=*\s*\d+ (passed|failed|skipped|errors?|deselected)\b.* in [\d.]+s", re.MULTILINE)
LOG_LINES = 25


def ray_logs() -> str:
    """The end of the newest Ray session's service logs: why its services went away, if they did."""
    logs = Path(os.environ.get("RAY_TMPDIR", "/tmp"), "ray", "session_latest", "logs")
    parts = []
    for name in ("raylet.out", "raylet.err", "gcs_server.out", "gcs_server.err"):
        path = logs / name
        if path.is_file():
            tail = path.read_text(errors="replace").splitlines()[-LOG_LINES:]
            parts.append(f"--- {name} (last {len(tail)} lines)\n" + "\n".join(tail))
    return "\n".join(parts) or "(no Ray session logs found)"


def run_cases() -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(CASES)]
    return subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=900)


def test_the_ray_backend_cases_pass_in_a_process_of_their_own():
    pytest.importorskip("ray")
    reports = []
    for attempt in (1, 2):
        result = run_cases()
        output = result.stdout + result.stderr
        finished = SUMMARY.search(result.stdout) is not None
        reports.append(f"attempt {attempt}: exit status {result.returncode}\n{output}")
        if finished:
            break
        reports.append(f"the cases' process ended before pytest could report; Ray's logs:\n{ray_logs()}")
        print(reports[-1], file=sys.stderr)  # shown with the test's output even when the retry passes
    assert finished and result.returncode == 0, "\n\n".join(reports)
