"""Every registered task must pass the conformance checker shipped in the library."""

import pytest

from duologue.tasks import TASKS
from duologue.testing import check_task


@pytest.mark.parametrize("task_id", list(TASKS))
def test_task_conforms(task_id: str):
    check_task(task_id, episodes=15, seed=0)
