r"""Bash: `bash main.sh` runs it, as MultiPL-E does; `bash -n` checks the syntax (a syntax error is a compile error) before a
program's run, and after a case run that failed with bash's status at a syntax error (2).

MultiPL-E's Bash tests begin by closing the prompt's function (`}`), define `candidate`, `set -e`, and
run `[[ $(candidate ...) = "expected" ]]` lines in `run_test`: a false one ends the script with status 1.
A function's result is what it prints: the test compares the call's stdout (less its trailing
newlines, as `$(...)` drops them) with the string MultiPL-E's literal stands for, whatever the
call's exit status.

Judged as cases, the program is the sample (spliced as below), the tests' own text up to `set -e`
(the `}` that closes the prompt's function, `candidate`), and a harness that runs each call as
`out=$(candidate ...)` and writes the output as a JSON string to fd 3 (assay.judging.records). A
call the CPU limit killed (status 152 or 137) ends the run with that status: a timeout. A crash
(a fatal shell error, an `exit`) is judged by its output, as the test does.

The trusted side decodes each result as that string (`decode_result`: the declared type is the
Python original's, the wire carries text), and `equal` compares it with the string of MultiPL-E's
expected literal as Bash reads it inside double quotes: `\"`, `\\`, `\$` lose their backslash,
any other backslash stays (MultiPL-E writes a newline as `\n`, nested lists' rows and dict items
joined by `\n`, a `!` as `\!`: all of them reach the comparison with the backslash). The literal
is the case's hint, read from the test line; where there is none it is rendered from the expected
value as MultiPL-E renders it (lists space-separated, True as `true`, None as `None`). Under
EvalPlus's rule the output is read back as a value of the declared type (`normalize`) and Python compares.

The test-program path (a problem judged as a program) keeps that text and adds, before the final `run_test`:

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

import math
import re
from collections.abc import Sequence
from typing import Any, ClassVar

from assay import values
from assay.languages.base import ASSERT_EXIT, SIGXCPU_EXIT, PhaseLimits, Unrepresentable
from assay.languages.braces import BraceLanguage
from assay.languages.harness import NotSplittable, balanced, numbered
from assay.problems import CaseTests, Problem, test_program
from assay.sandbox.base import SandboxResult
from assay.values import Signature, Type

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


# The case harness, after the tests' own `}` and `candidate`. Each call's output is written as a
# JSON string; a rendered value (a quoted word, not a call: the round trip) is printed as it is.
# The string is encoded in the shell itself, into __assay_j: a `$(...)` around the encoder would
# fork a subshell per case (about 0.7 ms of CPU each), as many as the calls themselves.
CASE_HARNESS = r"""
__assay_json() {
    local LC_ALL=C s=$1 out="" ch i code
    s=${s//"\\"/"\\\\"}
    s=${s//'"'/'\"'}
    s=${s//$'\n'/'\n'}
    s=${s//$'\r'/'\r'}
    s=${s//$'\t'/'\t'}
    if [[ $s == *[$'\x01'-$'\x1f'$'\x7f']* ]]; then
        for (( i = 0; i < ${#s}; i++ )); do
            ch=${s:i:1}
            if [[ $ch == [$'\x01'-$'\x1f'$'\x7f'] ]]; then
                printf -v code '%d' "'$ch"
                printf -v ch '\\u%04x' "$code"
            fi
            out+=$ch
        done
        s=$out
    fi
    __assay_j="\"$s\""
}
__assay_record() {
    if [ "$2" -eq __SIGXCPU__ ] || [ "$2" -eq 137 ]; then
        echo "case $1: killed at the CPU limit" >&2
        exit "$2"
    fi
    __assay_json "$3"
    printf '%s v %s\n' "$1" "$__assay_j" >&3
}
__CASES__
printf 'done __COUNT__\n' >&3
exit 0
"""


def after_tests(marker: str) -> str:
    """After the tests' final `run_test`: no more trap, then the marker on a line of its own."""
    return f'trap - EXIT\necho\necho "{marker}"\n'


class Bash(BraceLanguage):
    """GNU Bash 5."""

    name = "bash"
    aliases = ("sh",)
    display = "Bash"
    multipl_e = "sh"
    fence_tags = ("shell",)
    stops = ("\n}",)
    source = "main.sh"
    tools = ("bash",)
    version_args = ("--version",)
    install_hint = "apt-get install -y bash"
    build = "{bash} -n main.sh"
    # Case runs skip `bash -n` (MultiPL-E runs `bash f.sh` alone): bash reads and runs a script a command at a time and
    # ends with status 2 at the first syntax error it meets, so the check runs only for a failed run that exited with 2
    # (check_may_explain). `bash -n` is not bash either: it runs
    # no `shopt`, so a sample that sets extglob and uses `@(a|b)` was a compile error there and passes here.
    build_checks_only = True
    run = "{bash} main.sh"
    stub = "    echo assay-stub >&2\n    kill -TERM $$\n"  # a call's status is no error: the stub ends the run
    line_comment = "#"
    limits: ClassVar[PhaseLimits] = PhaseLimits(processes=64)

    def check_may_explain(self, result: SandboxResult, reported: bool) -> bool:
        """A failed run that exited with status 2, as bash does at a syntax error, whatever it reported first (bash
        parses as it goes: a sample's top-level code runs, and may write records, before a syntax error further on).
        A run killed by a signal, or one that exited otherwise, ended before it met one, and is judged as the run it was."""
        run = next((p for p in result.phases if p.name == "run"), None)
        return run is None or run.exit_code == 2

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

    # ------------------------------------------------------------ cases

    def test_calls(self, tests: str) -> list[tuple[str, str]] | None:
        """The `candidate ...` inside each `[[ $(candidate ...) = "expected" ]]`; the hint is the string
        the expected literal stands for (`sh ` and that string)."""
        calls: list[tuple[str, str]] = []
        try:
            for line in tests.splitlines():
                stripped = line.strip()
                if not stripped.startswith("[[ $(candidate"):
                    continue
                end = balanced(stripped, 4, quotes='"')
                rest = stripped[end:].strip()
                if not (rest.startswith("= ") and rest.endswith(" ]]")):
                    raise NotSplittable(f"not a comparison: {stripped[:80]!r}")
                calls.append((stripped[5 : end - 1], HINT + double_quoted(rest[2:-3].strip())))
        except NotSplittable:
            return None
        return calls

    def render_value(self, value: Any, t: Type) -> str:
        """A word as MultiPL-E passes a value: quoted; lists space-separated, nested lists' rows and
        dict items (`k,v`) joined by `\\n`, True as `true`, None as `None`."""
        return '"' + sh_text(value) + '"'

    def render_call(self, signature: Signature, args: tuple[Any, ...]) -> str:
        """`candidate "a" "b"`, as the command inside MultiPL-E's `$(...)`."""
        return " ".join(["candidate", *(self.render_value(a, t) for a, t in zip(args, signature.param_types, strict=False))])

    def case_files(self, problem: Problem, code: str, calls: Sequence[str]) -> dict[str, bytes]:
        """The spliced sample, the tests up to `set -e` (the closing `}`, `candidate`), then the harness."""
        tests = problem.tests
        assert isinstance(tests, CaseTests) and tests.signature is not None
        text = test_program(problem).code
        head, sep, _ = text.partition("\nset -e\n")
        prefix = head if sep else "}\n\ncandidate() {\n    " + problem.entry_point + ' "$@"\n}\n'

        def case(i: int, call: str) -> str:
            command = f"printf '%s' {call}" if call.startswith('"') else call
            return f"if __assay_out=$({command}); then __assay_rc=0; else __assay_rc=$?; fi; __assay_record {i} \"$__assay_rc\" \"$__assay_out\""

        harness = (CASE_HARNESS.replace("__SIGXCPU__", str(SIGXCPU_EXIT)).replace("__CASES__", numbered(calls, case))
                   .replace("__COUNT__", str(len(calls))))
        return {self.source: (self.as_completion(problem, code) + "\n" + prefix.rstrip("\n") + "\n" + harness).encode()}

    def decode_result(self, payload: str, t: Type) -> Any:
        """A call's output, whatever the declared type: the wire carries the text it printed."""
        data = values.parse_wire(payload)
        if not isinstance(data, str):
            raise values.WireError(f"not a string: {payload[:80]!r}")
        return data

    def normalize(self, value: Any, t: Type) -> Any:
        """An output read back as a value of type t, as MultiPL-E writes one (EvalPlus's rule compares values)."""
        if isinstance(value, str) and t.kind not in ("str", "any"):
            return read_sh(value, t)
        return value

    def equal(self, actual: Any, expected: Any, t: Type, hint: str) -> bool:
        """The output equals the string of MultiPL-E's expected literal (the hint, else rendered)."""
        if not isinstance(actual, str):
            return values.equal(actual, expected)  # a result not read as text (no decode_result hook)
        if hint.startswith(HINT):
            return actual == hint[len(HINT) :]
        try:
            return actual == double_quoted('"' + sh_text(expected) + '"')
        except Unrepresentable:
            return values.equal(self.normalize(actual, t), expected)


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


# ------------------------------------------------------------ MultiPL-E's Bash values

HINT = "sh "  # a case's hint: the string its expected literal stands for
WHITESPACE = (" ", "\t", "\n", "\r")


def double_quoted(word: str) -> str:
    """The string a double-quoted word stands for: `\\"`, `\\\\`, `\\$`, `\\``  lose their backslash,
    other backslashes stay (an unquoted word is taken as it is)."""
    if not (len(word) >= 2 and word[0] == '"' and word[-1] == '"'):
        return word
    return re.sub(r'\\([\\"$`])', r"\1", word[1:-1])


def _scalar_text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "None"
    if isinstance(value, str):
        return value.replace("\\", "\\\\").replace("\n", "\\n").replace('"', '\\"').replace("$", "\\$").replace("`", "\\`")
    if isinstance(value, (int, float)):
        return repr(value)
    raise Unrepresentable(f"{type(value).__name__} values: {value!r}"[:200])


def sh_text(value: Any) -> str:
    """The text between the quotes of the word MultiPL-E writes for a value (its py_to_bash)."""
    if isinstance(value, (list, tuple)):
        items = list(value)
        if not items:
            return ""
        if any(isinstance(v, str) and any(w in _scalar_text(v) for w in WHITESPACE) for v in items):
            raise Unrepresentable(f"a list item with whitespace: {value!r}"[:200])
        if all(isinstance(v, dict) for v in items):
            raise Unrepresentable(f"a list of dicts: {value!r}"[:200])
        if all(isinstance(v, (list, tuple)) for v in items):
            if all(isinstance(w, (list, tuple)) for v in items for w in v):
                raise Unrepresentable(f"lists nested more than two deep: {value!r}"[:200])
            return "\\n".join(sh_text(v) for v in items)
        return " ".join(sh_text(v) for v in items)
    if isinstance(value, (set, frozenset)):
        return sh_text(sorted(value, key=repr))
    if isinstance(value, dict):
        if any(isinstance(v, (list, tuple, dict, set)) for v in value.values()):
            raise Unrepresentable(f"a dict of containers: {value!r}"[:200])
        pairs = [(_scalar_text(k), _scalar_text(v)) for k, v in value.items()]
        if any(any(w in x for w in WHITESPACE) for pair in pairs for x in pair):
            raise Unrepresentable(f"a dict item with whitespace: {value!r}"[:200])
        return "\\n".join(f"{k},{v}" for k, v in pairs)
    return _scalar_text(value)


def read_sh(text: str, t: Type) -> Any:
    """An output read as a value of type t the way MultiPL-E writes one; the text itself where it is not one."""
    k = t.kind
    try:
        if k == "optional":
            return None if text.strip() in ("None", "") else read_sh(text, t.args[0])
        if k == "union":
            for alt in t.args:
                got = read_sh(text, alt)
                if not isinstance(got, str) or alt.kind == "str":
                    return got
            return text
        if k == "int":
            return int(text.strip())
        if k == "float":
            number = float(text.strip())
            return number if math.isfinite(number) or text.strip() in ("inf", "-inf", "nan") else text
        if k == "bool":
            return {"true": True, "false": False}.get(text.strip(), text)
        if k == "none":
            return None if text.strip() == "None" else text
        if k in ("list", "vtuple", "set", "tuple"):
            inner = t.args[0] if k != "tuple" else None
            nested = inner is not None and inner.kind in ("list", "tuple", "vtuple", "set")
            parts = re.split(r"\\n|\n", text.strip()) if nested else text.split()
            if not text.strip():
                parts = []
            if k == "tuple":
                return tuple(read_sh(p, a) for p, a in zip(parts, t.args, strict=False)) if len(parts) == len(t.args) else text
            assert inner is not None
            items = [read_sh(p, inner) for p in parts]
            return items if k == "list" else tuple(items) if k == "vtuple" else set(items)
        if k == "dict":
            out = {}
            for row in re.split(r"\\n|\n", text.strip()) if text.strip() else []:
                key, _, val = row.partition(",")
                out[read_sh(key, t.args[0])] = read_sh(val, t.args[1])
            return out
    except (ValueError, TypeError):
        return text
    return text
