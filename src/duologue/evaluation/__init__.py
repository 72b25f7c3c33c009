"""Evaluation: the corpus analyses as a command (`duologue analyze`) and an LLM judge (`duologue judge`),
built on the statistics and reports of `duologue.analysis`."""
