"""The shared model every part of duologue speaks: the dialogue schema and, later, tasks and agents."""
