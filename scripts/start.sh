#!/usr/bin/env bash
# The main job: install, then check and describe every corpus available.
# Real corpora are read from $DUOLOGUE_DATA (default ../shared/data); without them the
# project's own fixtures are used, so this works on any fresh clone.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
DATA="${DUOLOGUE_DATA:-../shared/data}"
run() { echo "\$ duologue $*"; .venv/bin/duologue "$@"; }
if [ -d "$DATA" ]; then
  [ -d "$DATA/duo" ] && run data validate duo "$DATA/duo" && run data stats duo "$DATA/duo"
  [ -d "$DATA/casino/split" ] && run data validate casino "$DATA/casino/split" && run data stats casino "$DATA/casino/split"
  [ -f "$DATA/craigslist/validation.json" ] && run data validate craigslist "$DATA/craigslist/validation.json" && run data stats craigslist "$DATA/craigslist/validation.json"
else
  echo "no real corpora at $DATA: describing the project's fixtures"
fi
for corpus in mutualfriends craigslist casino duo; do
  run data stats "$corpus" "tests/fixtures/$corpus" --skip-invalid
done
