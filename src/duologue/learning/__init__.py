"""Strategy learning (He et al. 2018's second half): improve a supervised act policy by policy gradient.

A modular agent (`duologue.modular.agent`) parses, decides a coarse act, and generates words.
Only the decisions are learned here (the act, and where the task's agent offers them its planner's
variants of the act's price, split or answer): `CoarsePolicy` scores the acts the task's rules allow now as
the supervised policy's log-probability plus a learned linear correction over hashed context
features, so an untrained policy is the supervised one (the variants aside: they keep a small prior share), and training (REINFORCE with a
baseline, torch) moves it towards a reward (`rewards.py`: CoCoA's utility, fairness, length, and
joint points) in self-play against a fixed partner. Words stay the agent's own generator's.
`duologue train policy` runs it; `rl:<name>` plays a shipped or trained policy.
"""

from duologue.modular.coarse_policy import CoarsePolicy
from duologue.learning.rewards import REWARDS, reward

__all__ = ["CoarsePolicy", "REWARDS", "reward"]
