"""The modular-agent machinery any task builds on: parse -> coarse act -> words.

`agent` holds the generic `ModularAgent` and its corpus-fitted knowledge, `policy` the act policy
over contexts, `retrieval` the generator that picks and fills corpus utterances, and
`coarse_policy` the learned correction an `rl:` agent plays on top of the act policy. A task's
modular agent (`duologue.tasks.<task>.modular`) supplies what is about its game. This package sits
below the tasks and imports only `core` and `data`.
"""
