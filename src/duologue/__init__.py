"""duologue: two-party dialogue with a goal.

Read the corpora in one schema (`duologue.data`), play the tasks (`duologue.tasks`), build agents,
collect dialogues on the platform, and evaluate.
"""

from duologue.core.schema import Annotation, Dialogue, Outcome, Party, Rating, Scenario, Source

from duologue.tasks import make, task_ids

__version__ = "0.1.0"
__all__ = ["Annotation", "Dialogue", "Outcome", "Party", "Rating", "Scenario", "Source", "__version__", "make", "task_ids"]
