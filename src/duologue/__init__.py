"""duologue: two-party dialogue with a goal.

Read the corpora in one schema (`duologue.data`), play the tasks (`duologue.tasks`), build agents,
collect dialogues on the platform, and evaluate.
"""

from duologue.core.schema import Annotation, Dialogue, Outcome, Party, Rating, Scenario, Source

from duologue.core.spec import TaskSpec
from duologue.tasks import make, register, spec, specs, task_ids

__version__ = "0.1.0"
__all__ = ["Annotation", "Dialogue", "Outcome", "Party", "Rating", "Scenario", "Source", "__version__", "TaskSpec", "make", "register", "spec", "specs", "task_ids"]
