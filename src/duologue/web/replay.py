"""The platform's replay: stored events rebuild a live dialogue (`duologue.core.replay`).

Used to undo a move whose events could not be stored, to keep several workers' replicas in step,
and to take over the dialogues of a worker that died. It lives in `core` so that the conformance
checker proves, for every task, the very replay the platform runs.
"""

from __future__ import annotations

from duologue.core.replay import ReplayClock, ReplayMismatch, action_of, replay

__all__ = ["ReplayClock", "ReplayMismatch", "action_of", "replay"]
