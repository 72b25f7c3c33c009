#!/usr/bin/env bash
# The main job: install, then start the live platform on an embedded SQLite database with a bot
# ready for every task. Open the printed address in a browser. Extra arguments go to
# `duologue serve` (e.g. --port 8080, --study study.yaml, --db postgresql+psycopg://...).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
exec .venv/bin/duologue serve "$@"
