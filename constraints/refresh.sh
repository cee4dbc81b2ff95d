#!/usr/bin/env bash
# Re-resolve the pinned package versions that the README's commands and CI install with
# `pip install -c constraints/<file>.txt ...`: each file is what pip picks today, unconstrained,
# for the extras of one virtual environment, frozen. Run from the project root:
#
#     bash constraints/refresh.sh            # both files (about 3 minutes, mostly downloads)
#
# then run the test command and the main job from the README on the new pins, and commit the
# files with the figures that changed (the main job's quote in README.md and docs/training.md).
# torch stays 2.13.0 (the CPU build; an unpinned torch pulls a multi-GB CUDA build).
set -euo pipefail
cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
lock() {  # lock FILE EXTRAS: one fresh venv, the extras installed, frozen into FILE
  local file=$1 extras=$2
  python3 -m venv "$tmp/venv-$file"
  "$tmp/venv-$file/bin/pip" install -q --no-compile torch==2.13.0 -e ".[$extras]"
  {
    echo "# Pinned versions for: pip install -c constraints/$file.txt torch==2.13.0 -e \".[$extras]\""
    echo "# (or any subset of those extras). Made by constraints/refresh.sh on $(date -u +%F),"
    echo "# Python $(python3 -c 'import platform; print(platform.python_version(), platform.machine())')."
    echo "# Regenerate with: bash constraints/refresh.sh"
    "$tmp/venv-$file/bin/pip" freeze --exclude-editable | sed 's/^torch==2\.13\.0+cpu$/torch==2.13.0/' \
      | LC_ALL=C sort -f
  } > "constraints/$file.txt"
  echo "wrote constraints/$file.txt ($(grep -vc '^#' "constraints/$file.txt") pins)"
}
lock main "train,eval,dev,bench,fast,web,torchrl,render,video,docs"
lock rllib "rllib,dev"
lock clients "clients,dev"
