#!/usr/bin/env bash
# The main job: install, then check and describe every corpus available.
# Real corpora are read from $DUOLOGUE_DATA (default ../shared/data); without them the
# project's own samples are described, so this works on any fresh clone.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
DATA="${DUOLOGUE_DATA:-../shared/data}"
run() { echo "\$ duologue $*"; .venv/bin/duologue "$@"; }
if [ -d "$DATA" ]; then
  if [ -d "$DATA/duo" ]; then run data validate duo "$DATA/duo"; run data stats duo "$DATA/duo"; fi
  if [ -d "$DATA/casino/split" ]; then run data validate casino "$DATA/casino/split"; run data stats casino "$DATA/casino/split"; fi
  if [ -f "$DATA/craigslist/validation.json" ]; then
    run data validate craigslist "$DATA/craigslist/validation.json"
    run data stats craigslist "$DATA/craigslist/validation.json"
  fi
else
  echo "no real corpora at $DATA: describing the project's own samples"
  run data stats duo tests/fixtures/duo
  run data stats casino tests/fixtures/casino/casino_sample.json
  run data stats craigslist tests/fixtures/craigslist/cocoa.json
fi
# MutualFriends has no public copy beside the checkout: describe the project's own sample.
run data validate mutualfriends tests/fixtures/mutualfriends/cocoa_train.json
run data stats mutualfriends tests/fixtures/mutualfriends/cocoa_train.json
