#!/usr/bin/env bash
# Set up Assay on a fresh Debian/Ubuntu machine: the sandbox (bubblewrap) and a virtualenv in .venv.
set -euo pipefail
cd "$(dirname "$0")"
if ! command -v bwrap >/dev/null 2>&1; then
  if [ "$(id -u)" = 0 ]; then
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq bubblewrap >/dev/null
  else
    echo "bubblewrap is missing: run 'sudo apt-get install bubblewrap' (or pass --allow-weak-sandbox to run samples unisolated)" >&2
  fi
fi
PYTHON=${PYTHON:-python3}
[ -x .venv/bin/python ] || "$PYTHON" -m venv .venv
.venv/bin/python -m pip install -q --upgrade pip
.venv/bin/python -m pip install -q -e '.[test,classeval]'  # classeval: the packages ClassEval's tasks import
# SWE-bench's per-repository, per-version environment specs (assay.swe.specs reads only its data modules, so none of
# its Docker and dataset dependencies are needed; 4.1.0 is the last release with the table).
.venv/bin/python -m pip install -q --no-deps swebench==4.1.0
echo "Assay installed: .venv/bin/assay"
