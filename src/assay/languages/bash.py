"""Bash: `bash -n` checks the syntax (a syntax error is a compile error), then `bash main.sh` runs it, as MultiPL-E does.

MultiPL-E's Bash tests begin by closing the prompt's function (`}`), define `candidate`, `set -e`, and
run `[[ $(candidate ...) = "expected" ]]` lines in `run_test`: a false one ends the script with status 1.
The test section keeps that text and adds, before the final `run_test`:

- a wrapper around `candidate` that runs it in a subshell of its own and notes how that ended: the
  subshell left before the function returned (a fatal shell error such as a division by zero or a bad
  substitution, or an `exit` with a nonzero status: a crash), or was killed by the CPU limit (a timeout);
- an EXIT trap for the tests: when a false test ends the script (status 1), it exits with ASSERT_EXIT,
  or with 1 after a crash, or with SIGXCPU's status after a timeout, so that a function that crashed
  or looped forever inside `$(...)` is not reported as a wrong answer;
- the completion marker after `run_test` returns.

The tests pass or fail exactly as upstream's; only the status of a failing run is refined.
"""

from __future__ import annotations

import re
from typing import ClassVar

from assay.languages.base import ASSERT_EXIT, SIGXCPU_EXIT, BraceLanguage, RunLimits
from assay.problems import Problem

# Inserted before the tests' final `run_test`, after `candidate` is defined.
HARNESS = f"""
__assay_state="${{TMPDIR:-/tmp}}/assay-bash-state.$$"
: > "$__assay_state"
__assay_def=$(declare -f candidate)
eval "__assay_candidate() ${{__assay_def#*$'\\n'}}"
candidate() {{
    if (
        trap '__assay_rc=$?; [ "$__assay_rc" -eq 0 ] || echo crash >> "$__assay_state"' EXIT
        if __assay_candidate "$@"; then __assay_rc=0; else __assay_rc=$?; fi
        trap - EXIT
        exit "$__assay_rc"
    ); then __assay_rc=0; else __assay_rc=$?; fi
    if [ "$__assay_rc" -eq {SIGXCPU_EXIT} ] || [ "$__assay_rc" -eq 137 ]; then
        echo timeout >> "$__assay_state"
    fi
    return "$__assay_rc"
}}
__assay_end() {{
    __assay_rc=$?
    [ "$__assay_rc" -eq 1 ] || exit "$__assay_rc"
    __assay_seen=$(< "$__assay_state")
    if [[ $__assay_seen == *timeout* ]]; then
        echo "a test timed out (CPU limit)" >&2
        exit {SIGXCPU_EXIT}
    elif [[ $__assay_seen == *crash* ]]; then
        echo "the function exited with an error" >&2
        exit 1
    fi
    echo "assertion failed: a test's output differs" >&2
    exit {ASSERT_EXIT}
}}
trap __assay_end EXIT
"""


def after_tests(marker: str) -> str:
    """After the tests' final `run_test`: no more trap, then the marker on a line of its own."""
    return f'trap - EXIT\necho\necho "{marker}"\n'


class Bash(BraceLanguage):
    """GNU Bash 5."""

    name = "bash"
    aliases = ("sh",)
    display = "Bash"
    source = "main.sh"
    tools = ("bash",)
    version_args = ("--version",)
    install_hint = "apt-get install -y bash"
    build = "{bash} -n main.sh"
    run = "{bash} main.sh"
    stub = "    echo assay-stub\n    exit 1\n"
    line_comment = "#"
    limits: ClassVar[RunLimits] = RunLimits(processes=64)

    def as_completion(self, problem: Problem, code: str) -> str:
        """prompt + body, whether the sample continued the prompt or wrote a whole script.

        A whole script keeps the other functions it defines (helpers, before or after the asked-for
        function); its other top-level commands (example calls, usage checks, `exit`) are dropped.
        """
        if code.startswith(problem.prompt) and shell_brace_depth(code[len(problem.prompt) :]) > -1:
            return code
        name = problem.entry_point
        found = find_function(code, name)
        if found is None:
            return code  # not recognisable: judged as written
        start, body_start, end = found
        body = code[body_start:end] if end is not None else code[body_start:]
        helpers = [code[s:e] for s, e in top_level_functions(code) if s != start]
        head = "".join(h.rstrip("\n") + "\n" for h in helpers)
        return head + problem.prompt + body

    def wrap_tests(self, tests: str, marker: str) -> str:
        """The tests, with the harness inserted before their final `run_test` and the marker after it."""
        lines = tests.rstrip("\n").split("\n")
        if lines and lines[-1].strip() == "run_test":
            return "\n".join(lines[:-1]) + "\n" + HARNESS + lines[-1] + "\n" + after_tests(marker)
        return tests.rstrip("\n") + "\n" + after_tests(marker)


# ------------------------------------------------------------ a rough shell scanner

_WORD_START = " \t\n;&|()<>"


def _code_positions(text: str) -> list[tuple[int, str]]:
    """Characters outside quotes, escapes and comments, with their indexes (`#` starts a comment
    only at the start of a word, so `$#` and `${#x}` are code)."""
    out: list[tuple[int, str]] = []
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        if ch == "\\":
            i += 2
            continue
        if ch == "#" and (i == 0 or text[i - 1] in _WORD_START):
            j = text.find("\n", i)
            i = n if j < 0 else j
            continue
        if ch == "'":
            j = i + 1
            if i > 0 and text[i - 1] == "$":  # $'...' takes backslash escapes
                while j < n and text[j] != "'":
                    j += 2 if text[j] == "\\" else 1
            else:
                j = text.find("'", j)
                j = n if j < 0 else j
            i = j + 1
            continue
        if ch == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            i = j + 1
            continue
        out.append((i, ch))
        i += 1
    return out


def shell_brace_depth(text: str) -> int:
    """How many braces text opens (negative: it closes more than it opens), outside quotes and comments."""
    return sum(1 if ch == "{" else -1 for _, ch in _code_positions(text) if ch in "{}")


def _closing(text: str, start: int) -> int | None:
    """Index of the brace that closes a body starting at text[start] (depth 1)."""
    depth = 1
    for i, ch in _code_positions(text):
        if i < start or ch not in "{}":
            continue
        depth += 1 if ch == "{" else -1
        if depth == 0:
            return i
    return None


_NAME = r"[A-Za-z_][\w:.-]*"
# `name() {`, `function name {` or `function name() {`, the brace on the same line or the next one.
_FUNCTION = re.compile(
    rf"(?m)^[ \t]*(?:function[ \t]+({_NAME})[ \t]*(?:\([ \t]*\))?|({_NAME})[ \t]*\([ \t]*\))[ \t]*(?:\n[ \t]*)?\{{(?:[ \t]*\n)?"
)


def find_function(code: str, name: str) -> tuple[int, int, int | None] | None:
    """(start of the definition line, start of the body, index of the closing brace) of `name() {`."""
    for match in _FUNCTION.finditer(code):
        if (match.group(1) or match.group(2)) == name:
            return match.start(), match.end(), _closing(code, match.end())
    return None


def top_level_functions(code: str) -> list[tuple[int, int]]:
    """(start, end) of each function defined at the top level (`name() {` ... `}` on their own lines)."""
    spans: list[tuple[int, int]] = []
    pos = 0
    for match in _FUNCTION.finditer(code):
        if match.start() < pos or shell_brace_depth(code[pos : match.start()]) != 0:
            continue
        end = _closing(code, match.end())
        if end is None:
            break
        nl = code.find("\n", end)
        stop = len(code) if nl < 0 else nl + 1
        spans.append((match.start(), stop))
        pos = stop
    return spans
