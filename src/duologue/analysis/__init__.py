"""The statistics and reports any analysis builds on: agreement between raters, correlations between
ratings and outcomes, data frames of dialogues, parties and ratings, terminal tables and the HTML report.

A task's own analysis (`TaskSpec.analysis`, e.g. `duologue.tasks.casino.analysis`) is written with
these, and the arena's leaderboards draw their figures with `report`; so this package sits below the
tasks and imports only `core` and `data`. The commands and the LLM judge live in `duologue.evaluation`.
"""
