"""Elixir: elixirc compiles the solution's module (the build phase), then the ExUnit tests run against it.

MultiPL-E runs `elixir prog.exs` on prompt + completion + tests in one file. Assay keeps the same
code and tests but splits the file in two: the code (the `HumanEval` module) is compiled by `elixirc`
in the build phase, so syntax errors and compile errors (undefined functions and variables) are
compile errors, and the test section runs as a script that loads the compiled module.

Cases: solution.ex is built the same way; main.exs is then the harness instead of the tests. It calls
each case (MultiPL-E's own `HumanEval.candidate(...)` text) under try/rescue/catch and writes its
result, encoded at the declared type, to fd 3 (an Erlang fd port). Elixir is dynamic: the encoder
reads the type at run time (a union by the value's kind); a value of another shape than the type
(a list where it says tuple, a keyword list where it says dict, a charlist where it says str) is
written as one the trusted side refuses, as MultiPL-E's `==` would not equate them. Elixir's `==`
is Python's here: 1 == 1.0 (a float where the type says int is written as the float, which decodes
where it is whole), a tuple is not a list. elixirc runs module bodies and top-level code at
build time, when fd 3 is closed.
"""

from __future__ import annotations

import math
import re
import subprocess
from collections.abc import Sequence
from typing import Any, ClassVar

from assay import values
from assay.languages.base import ASSERT_EXIT, GiB, Language, PhaseLimits, Unrepresentable
from assay.languages.harness import NotSplittable, balanced
from assay.problems import CaseTests, Problem, test_program
from assay.values import Signature, Type

# The BEAM reserves a 1 GiB literal area by default (a segfault under `ulimit -v`); fixed thread
# counts keep a big host from starting dozens of scheduler threads; no busy-waiting schedulers.
ERL_FLAGS = "+MIscs 64 +S 2:2 +SDcpu 2:2 +SDio 2 +A 1 +sbwt none +sbwtdcpu none +sbwtdio none"

# Runs before the tests' own `ExUnit.start()` (which then changes nothing): ExUnit does not run at
# exit; a formatter records whether any test failed other than by an assertion. The tests then run
# explicitly, and the script ends with the verdict's exit status or the marker.
TEST_PRELUDE = """
defmodule AssayFormatter do
  @moduledoc false
  use GenServer
  def init(_opts), do: {:ok, nil}
  def handle_cast({:test_finished, %ExUnit.Test{state: {:failed, failures}}}, state) do
    if Enum.any?(failures, fn {kind, reason, _stack} -> not (kind == :error and is_struct(reason, ExUnit.AssertionError)) end) do
      :persistent_term.put(:assay_crashed, true)
    end
    {:noreply, state}
  end
  def handle_cast({:test_finished, %ExUnit.Test{state: {:invalid, _}}}, state) do
    :persistent_term.put(:assay_crashed, true)
    {:noreply, state}
  end
  def handle_cast(_event, state), do: {:noreply, state}
end
ExUnit.start(autorun: false, seed: 0, formatters: [ExUnit.CLIFormatter, AssayFormatter])
"""

TEST_EPILOGUE = """
%{failures: assay_failures, total: assay_total} = ExUnit.run()
cond do
  :persistent_term.get(:assay_crashed, false) -> System.halt(1)
  assay_failures > 0 -> System.halt({assert_exit})
  assay_total == 0 -> System.halt(1)
  true -> IO.puts("\\n{marker}")
end
"""

# The case harness (see assay.judging.records). A type is an atom (:int, :float, :str, :bool, :none,
# :any) or a tuple ({:list, t}, {:tuple, [t, ...]}, {:dict, k, v}, {:optional, t}, {:union, [t, ...]}...).
# What does not fit its type is written as {"wrong type": "..."}, which no type decodes.
CASE_HARNESS = r"""
defmodule AssayCase do
  @moduledoc false
  def enc(v, :int) when is_integer(v), do: Integer.to_string(v)
  def enc(v, :int) when is_float(v), do: Float.to_string(v)
  def enc(v, :float) when is_float(v), do: Float.to_string(v)
  def enc(v, :float) when is_integer(v), do: Integer.to_string(v)
  def enc(v, :str) when is_binary(v), do: if(String.valid?(v), do: str(v), else: wrong(v))
  def enc(v, :bool) when is_boolean(v), do: to_string(v)
  def enc(nil, :none), do: "null"
  def enc(nil, {:optional, _}), do: "null"
  def enc(v, {:optional, t}), do: enc(v, t)
  def enc(v, {kind, t}) when kind in [:list, :vtuple] and is_list(v), do: items(Enum.map(v, &enc(&1, t)))
  def enc(v, {:vtuple, t}) when is_tuple(v), do: enc(Tuple.to_list(v), {:list, t})
  def enc(%MapSet{} = v, {:set, t}), do: enc(MapSet.to_list(v), {:list, t})
  def enc(v, {:set, t}) when is_list(v), do: enc(v, {:list, t})
  def enc(v, {:tuple, ts}) when is_tuple(v) and tuple_size(v) == length(ts),
    do: items(Enum.zip_with(Tuple.to_list(v), ts, &enc/2))
  def enc(v, {:dict, kt, vt}) when is_map(v) and not is_struct(v),
    do: items(Enum.map(v, fn {k, x} -> items([enc(k, kt), enc(x, vt)]) end))
  def enc(v, {:union, ts}), do: enc(v, pick(v, ts))
  def enc(v, :any), do: dyn(v)
  def enc(v, _), do: wrong(v)

  defp kind(t) when is_tuple(t), do: elem(t, 0)
  defp kind(t), do: t
  defp first(ts, kinds), do: Enum.find(ts, fn t -> kind(t) in kinds end)
  defp pick(v, ts) do
    cond do
      is_integer(v) -> first(ts, [:int]) || first(ts, [:float])
      is_float(v) -> first(ts, [:float]) || first(ts, [:int])
      is_binary(v) -> first(ts, [:str])
      is_boolean(v) -> first(ts, [:bool])
      is_list(v) -> first(ts, [:list, :vtuple, :set])
      is_tuple(v) -> first(ts, [:tuple, :vtuple])
      is_map(v) -> first(ts, [:dict, :set])
      true -> nil
    end || :any
  end

  def dyn(v) when is_integer(v) or is_float(v) or is_boolean(v), do: enc(v, if(is_boolean(v), do: :bool, else: :float))
  def dyn(nil), do: "null"
  def dyn(v) when is_binary(v), do: enc(v, :str)
  def dyn(v) when is_list(v), do: items(Enum.map(v, &dyn/1))
  def dyn(v) when is_tuple(v), do: dyn(Tuple.to_list(v))
  def dyn(%MapSet{} = v), do: dyn(MapSet.to_list(v))
  def dyn(v) when is_map(v) and not is_struct(v), do: items(Enum.map(v, fn {k, x} -> items([dyn(k), dyn(x)]) end))
  def dyn(v), do: wrong(v)

  defp wrong(v), do: "{\"wrong type\": " <> str(inspect(v, limit: 20, printable_limit: 200)) <> "}"

  defp items(parts), do: "[" <> Enum.join(parts, ",") <> "]"

  defp str(s) do
    body =
      for <<c::utf8 <- s>>, into: "" do
        case c do
          ?" -> "\\\""
          ?\\ -> "\\\\"
          ?\n -> "\\n"
          c when c < 0x20 or c == 0x7F -> "\\u" <> String.pad_leading(Integer.to_string(c, 16), 4, "0")
          c -> <<c::utf8>>
        end
      end
    "\"" <> body <> "\""
  end

  defp message(kind, reason) do
    text =
      try do
        case kind do
          :error -> Exception.message(Exception.normalize(:error, reason, []))
          _ -> "#{kind}: #{inspect(reason, limit: 20)}"
        end
      rescue
        _ -> "exception"
      catch
        _, _ -> "exception"
      end
    text |> String.replace(["\r", "\n"], " ") |> String.slice(0, 300)
  end

  def line(i, type, thunk) do
    try do
      "#{i} v " <> enc(thunk.(), type)
    catch
      kind, reason -> "#{i} e " <> message(kind, reason)
    end
  end

  def run(type, thunks) do
    port = :erlang.open_port({:fd, 3, 3}, [:out, :binary])
    thunks
    |> Enum.with_index()
    |> Enum.each(fn {thunk, i} -> :erlang.port_command(port, line(i, type, thunk) <> "\n") end)
    :erlang.port_command(port, "done #{length(thunks)}\n")
    :erlang.halt(0, flush: true)
  end
end
"""

MODULE_LINE = re.compile(r"^\s*defmodule\s+HumanEval\s+do\s*$", re.M)
CANDIDATE_LINE = re.compile(r"^\s*def candidate\(.*$", re.M)


class Elixir(Language):
    """Elixir 1.14 on Erlang/OTP 25 (Debian's elixir)."""

    name = "elixir"
    display = "Elixir"
    multipl_e = "elixir"
    fence_tags = ("ex", "exs")
    stops = ("\ndefmodule", "\ndefp", "\ndef ", "\n#", "\n\n")
    definition = r"\bdefp?\s+{name}\b"
    source = "main.exs"  # the test script; the solution is solution.ex
    tools = ("elixir", "elixirc")
    version_args = ("--version",)
    install_hint = "apt-get install -y elixir"
    build = f'{{elixirc}} --erl "{ERL_FLAGS}" --ignore-module-conflict -o ebin solution.ex'
    run = f'{{elixir}} --erl "{ERL_FLAGS}" -pa ebin main.exs'
    env: ClassVar[dict[str, str]] = {"ERL_CRASH_DUMP_BYTES": "0", "ERL_CRASH_DUMP_SECONDS": "0", "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8"}
    stub = '    raise "stub"\n  end\nend\n'
    limits: ClassVar[PhaseLimits] = PhaseLimits(run_memory_bytes=2 * GiB)

    @classmethod
    def read_version(cls, tool_path: str) -> str:
        """The Elixir line of `elixir --version` (it prints the Erlang/OTP banner first), with the OTP release."""
        try:
            out = subprocess.run([tool_path, "--version"], capture_output=True, text=True, timeout=60)
        except (OSError, subprocess.SubprocessError) as exc:
            return f"unknown ({exc})"
        lines = [line.strip() for line in (out.stdout + out.stderr).splitlines() if line.strip()]
        elixir = next((line for line in lines if line.startswith("Elixir ")), None)
        otp = next((line.split(" [")[0] for line in lines if line.startswith("Erlang/OTP")), None)
        if elixir is None:
            return lines[0] if lines else "unknown"
        return f"{elixir}; running on {otp}" if otp else elixir

    def code(self, problem: Problem, code: str) -> str:
        """The solution: a whole `defmodule HumanEval` from a chat model gets the prompt's `candidate` if it lacks one."""
        if code.startswith(problem.prompt) or CANDIDATE_LINE.search(code):
            return code
        module = MODULE_LINE.search(code)
        candidate = CANDIDATE_LINE.search(problem.prompt)
        if module and candidate:
            return code[: module.end()] + "\n" + candidate.group(0) + code[module.end() :]
        return code

    def program(self, problem: Problem, code: str, marker: str) -> str:
        """The solution, then the tests (MultiPL-E's one file; Assay builds the two parts apart)."""
        return self.code(problem, code) + "\n" + self.wrap_tests(test_program(problem).code, marker)

    def files(self, problem: Problem, code: str, marker: str) -> dict[str, bytes]:
        """solution.ex (compiled in the build phase) and main.exs (the tests, run against it)."""
        return {
            "solution.ex": self.code(problem, code).encode(),
            self.source: self.wrap_tests(test_program(problem).code, marker).encode(),
        }

    def wrap_tests(self, tests: str, marker: str) -> str:
        """ExUnit runs explicitly; an assertion failure exits ASSERT_EXIT, any other failure 1; then the marker."""
        return TEST_PRELUDE + tests + TEST_EPILOGUE.replace("{assert_exit}", str(ASSERT_EXIT)).replace("{marker}", marker)

    # ------------------------------------------------------------ cases

    def test_calls(self, tests: str) -> list[tuple[str, str]] | None:
        """MultiPL-E's `assert expected == HumanEval.candidate(...)` lines: the call."""
        calls: list[tuple[str, str]] = []
        try:
            for found in _ASSERT.finditer(tests):  # over the whole text: a string literal may hold a newline
                at = tests.find(_CALL, found.end())
                line_end = tests.find("\n", found.end())
                if at < 0 or (0 <= line_end < at and tests.count('"', found.end(), line_end) % 2 == 0):
                    return None  # not on the assert's own line (but for a string that spans lines)
                end = balanced(tests, at + len(_CALL) - 1, quotes='"')
                calls.append((tests[at:end], ""))
        except NotSplittable:
            return None
        return calls

    def render_value(self, value: Any, t: Type) -> str:
        """MultiPL-E's Elixir literals: `[a, b]` lists, `{a, b}` tuples, `%{k => v}` maps, nil."""
        return elixir_literal(value, t)

    def render_call(self, signature: Signature, args: tuple[Any, ...]) -> str:
        """`HumanEval.candidate(a, b)`."""
        if len(args) != len(signature.params):
            raise Unrepresentable(f"arity: {len(args)} arguments for {len(signature.params)} parameters")
        for a, t in zip(args, signature.param_types, strict=True):
            _coerce(a, t)  # it must fit the type; it is written as it is (MultiPL-E keeps 2 an integer where the type says float)
        rendered = [elixir_literal(a, t) for a, t in zip(args, signature.param_types, strict=True)]
        return f"HumanEval.candidate({', '.join(rendered)})"

    def case_files(self, problem: Problem, code: str, calls: Sequence[str]) -> dict[str, bytes]:
        """solution.ex as the program path builds it; main.exs: the harness."""
        assert isinstance(problem.tests, CaseTests) and problem.tests.signature is not None
        thunks = ",\n".join(f"  fn -> {call} end" for call in calls)
        harness = CASE_HARNESS + f"\nAssayCase.run({type_term(problem.tests.signature.returns)}, [\n{thunks}\n])\n"
        return {"solution.ex": self.code(problem, code).encode(), self.source: harness.encode()}

    def normalize(self, value: Any, t: Type) -> Any:
        """Where the type is `any`, a tuple is a list: the wire has no tuples there (a harness writes both
        as arrays), and MultiPL-E's expected tuples are Elixir tuples that the sample's tuples equal."""
        return _any_tuples_as_lists(value, t)


_ASSERT = re.compile(r"^[ \t]*assert ", re.M)
_CALL = "HumanEval.candidate("


def _any_tuples_as_lists(value: Any, t: Type) -> Any:
    k = t.kind
    if k == "any":
        return _lists(value)
    if k in ("list", "vtuple", "set") and isinstance(value, (list, tuple, set, frozenset)):
        items = [_any_tuples_as_lists(v, t.args[0]) for v in value]
        return items if isinstance(value, list) else tuple(items) if isinstance(value, tuple) else value
    if k == "tuple" and isinstance(value, tuple) and len(value) == len(t.args):
        return tuple(_any_tuples_as_lists(v, a) for v, a in zip(value, t.args, strict=True))
    if k == "dict" and isinstance(value, dict):
        return {a: _any_tuples_as_lists(b, t.args[1]) for a, b in value.items()}
    if k == "optional" and value is not None:
        return _any_tuples_as_lists(value, t.args[0])
    if k == "union":
        alt = next((a for a in t.args if values.fits(value, a)), None)
        return _any_tuples_as_lists(value, alt) if alt is not None else value
    return value


def _lists(value: Any) -> Any:
    if isinstance(value, (list, tuple)):
        return [_lists(v) for v in value]
    if isinstance(value, dict):
        return {a: _lists(b) for a, b in value.items()}
    return value


def _coerce(value: Any, t: Type) -> Any:
    try:
        return values.coerce(value, t)
    except values.UnsupportedType as exc:
        raise Unrepresentable(f"type: {exc}") from None


def type_term(t: Type) -> str:
    """The type as the harness's encoder reads it (an Elixir term)."""
    k = t.kind
    if k in values.SCALARS or k == "any":
        return f":{k}"
    if k in ("tuple", "union"):
        return "{:" + k + ", [" + ", ".join(type_term(a) for a in t.args) + "]}"
    return "{:" + k + ", " + ", ".join(type_term(a) for a in t.args) + "}"


def elixir_literal(value: Any, t: Type = values.ANY) -> str:
    """An Elixir literal for a plain value, as MultiPL-E writes it (BEAM floats have no nan or infinity)."""
    k = t.kind
    if k == "optional":
        return "nil" if value is None else elixir_literal(value, t.args[0])
    if k == "union":
        alt = next((a for a in t.args if values.fits(value, a)), values.ANY)
        return elixir_literal(value, alt)
    if value is None:
        return "nil"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if math.isnan(value) or math.isinf(value):
            raise Unrepresentable(f"float: the BEAM has no {value}")
        text = repr(value)
        if "e" in text and "." not in text.split("e")[0]:  # 1e-05: Elixir wants a digit after a dot
            mantissa, exponent = text.split("e")
            text = f"{mantissa}.0e{int(exponent)}"
        return text
    if isinstance(value, str):
        return elixir_string(value)
    inner = t.args[0] if k in ("list", "vtuple", "set") else values.ANY
    if isinstance(value, tuple) and k != "list":
        parts = [elixir_literal(v, t.args[i] if k == "tuple" and i < len(t.args) else inner) for i, v in enumerate(value)]
        return "{" + ", ".join(parts) + "}"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(elixir_literal(v, inner) for v in value) + "]"
    if isinstance(value, (set, frozenset)):
        return "MapSet.new([" + ", ".join(elixir_literal(v, inner) for v in sorted(value, key=repr)) + "])"
    if isinstance(value, dict):
        kt, vt = (t.args[0], t.args[1]) if k == "dict" else (values.ANY, values.ANY)
        return "%{" + ", ".join(f"{elixir_literal(a, kt)} => {elixir_literal(b, vt)}" for a, b in value.items()) + "}"
    raise Unrepresentable(f"type: {values._short(value)} is not plain data")


def elixir_string(text: str) -> str:
    """An Elixir string literal: quotes, backslashes, `#{` and control characters but newlines and tabs escaped."""
    out = []
    for i, ch in enumerate(text):
        if ch in '"\\':
            out.append("\\" + ch)
        elif ch == "#" and text.startswith("{", i + 1):
            out.append("\\#")
        elif ch in "\n\t":  # as they are: an Elixir string may span lines (MultiPL-E's do)
            out.append(ch)
        elif ord(ch) < 0x20 or ord(ch) == 0x7F:
            out.append(f"\\u{{{ord(ch):x}}}")
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'
