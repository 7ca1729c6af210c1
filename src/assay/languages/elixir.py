"""Elixir: elixirc compiles the solution's module (the build phase), then the ExUnit tests run against it.

MultiPL-E runs `elixir prog.exs` on prompt + completion + tests in one file. Assay keeps the same
code and tests but splits the file in two: the code (the `HumanEval` module) is compiled by `elixirc`
in the build phase, so syntax errors and compile errors (undefined functions and variables) are
compile errors, and the test section runs as a script that loads the compiled module.
"""

from __future__ import annotations

import re
import subprocess
from typing import ClassVar

from assay.languages.base import ASSERT_EXIT, GiB, Language, RunLimits
from assay.problems import Problem, test_program

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

MODULE_LINE = re.compile(r"^\s*defmodule\s+HumanEval\s+do\s*$", re.M)
CANDIDATE_LINE = re.compile(r"^\s*def candidate\(.*$", re.M)


class Elixir(Language):
    """Elixir 1.14 on Erlang/OTP 25 (Debian's elixir)."""

    name = "elixir"
    display = "Elixir"
    source = "main.exs"  # the test script; the solution is solution.ex
    tools = ("elixir", "elixirc")
    version_args = ("--version",)
    install_hint = "apt-get install -y elixir"
    build = f'{{elixirc}} --erl "{ERL_FLAGS}" --ignore-module-conflict -o ebin solution.ex'
    run = f'{{elixir}} --erl "{ERL_FLAGS}" -pa ebin main.exs'
    env: ClassVar[dict[str, str]] = {"ERL_CRASH_DUMP_BYTES": "0", "ERL_CRASH_DUMP_SECONDS": "0", "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8"}
    stub = '    raise "stub"\n  end\nend\n'
    limits: ClassVar[RunLimits] = RunLimits(run_memory_bytes=2 * GiB)

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
