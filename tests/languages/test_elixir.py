"""Elixir on MultiPL-E: correct programs pass, each kind of wrong one fails with the right status.

Every program starts two BEAMs (elixirc, then the tests): they are all judged up front, two at a
time, and each test looks at its verdict.
"""

from __future__ import annotations

from assay.problems import Status
from tests.languages._common import *  # the shared tests, run on SPEC
from tests.languages._common import STRLEN, LanguageSpec

END = "\n  end\nend\n"
# Every MultiPL-E result guessed as 3, then the harness's done line.
FORGED = '"0 v 3\\n1 v 3\\n2 v 3\\ndone 3\\n"'
FD3 = "port = Port.open({:fd, 3, 3}, [:out, :binary])\n"
# pidfd_open of every process it can see (the trusted init too), pidfd_getfd of each of their fds, a forged done in each.
PIDFD = (
    "for my $pid (1 .. 64) { my $p = syscall(434, $pid, 0); next if $p < 0; for my $fd (0 .. 30) {"
    ' my $d = syscall(438, $p, $fd, 0); next if $d < 0; open(my $h, ">&=", $d) or next; syswrite($h, "done 3\\n"); } }'
)
HOSTILE = {
    # exit 0 before the harness reports a case
    "early exit": "System.halt(0)" + END,
    # records of its own on fd 3, then exit 0
    "forged records": FD3 + f"    Port.command(port, {FORGED})\n    System.halt(0)" + END,
    # records into the harness's own port (found with Port.list), then carry on
    "harness's port": f"Enum.each(Port.list(), fn p -> try do Port.command(p, {FORGED}) rescue _ -> nil end end)\n    String.length(string) + 1" + END,
    # build-time code (elixirc runs module bodies and the file's top level): records on fd 3 (closed
    # in the build: the port's failure is its process's), and the harness script rewritten to forge every case
    "build-time code": (
        "String.length(string) + 1" + END
        + f"spawn(fn ->\n  {FD3}  Port.command(port, {FORGED})\nend)\nProcess.sleep(100)\n"
        + 'File.write("main.exs", ~S"""\nport = Port.open({:fd, 3, 3}, [:out, :binary])\n'
        + 'for i <- 0..2, do: Port.command(port, "#{i} v 3\\n")\nPort.command(port, "done 3\\n")\nSystem.halt(0)\n""")\n'
    ),
    # ExUnit's assertions replaced by modules of its own, compiled into ebin (first on the code path)
    "ExUnit replaced": (
        "String.length(string) + 1" + END + "defmodule ExUnit.Assertions do\n  defmacro assert(_), do: true\n  defmacro refute(_), do: true\nend\n"
        "defmodule ExUnit do\n  def start(_ \\\\ []), do: :ok\n  def run(), do: %{failures: 0, total: 1, skipped: 0, excluded: 0}\nend\n"
    ),
    # the harness's module defined first, to report a guess for every case
    "harness module preempted": (
        "String.length(string) + 1" + END
        + f"defmodule AssayCase do\n  def run(_type, _thunks) do\n    {FD3}    Port.command(port, {FORGED})\n    System.halt(0)\n  end\nend\n"
    ),
    # the old marker: whatever looks like one in its sources and beams, printed, then exit 0
    "marker from source": (
        'for f <- ["main.exs", "solution.ex" | Path.wildcard("ebin/*")], {:ok, s} <- [File.read(f)],\n'
        '        m <- Regex.scan(~r/ASSAY[-_A-Za-z0-9]*/, s), do: IO.puts(hd(m))\n    System.halt(0)' + END
    ),
    # the trusted init's descriptors taken with pidfd_getfd (through perl), a forged done in each
    "parent's fds": f"System.cmd(\"perl\", [\"-e\", ~S|{PIDFD}|])\n    String.length(string) + 1" + END,
    # sleeps past the run's wall limit without using CPU
    "sleeps": "Process.sleep(600_000)\n    String.length(string)" + END,
}

SPEC = LanguageSpec(
    language="elixir",
    bench="multipl-e/humaneval-elixir",
    correct={
        "HumanEval_0_has_close_elements": (
            "for {a, i} <- Enum.with_index(numbers), {b, j} <- Enum.with_index(numbers), i != j, reduce: false do\n"
            "      acc -> acc or abs(a - b) < threshold\n    end\n  end\nend\n"
        ),
        "HumanEval_13_greatest_common_divisor": "if b == 0, do: a, else: greatest_common_divisor(b, rem(a, b))\n  end\nend\n",
        STRLEN: "String.length(string)\n  end\nend\n",
        "HumanEval_30_get_positive": "Enum.filter(l, fn x -> x > 0 end)\n  end\nend\n",
    },
    wrong=[
        (STRLEN, "String.length(string) + 1\n  end\nend\n", Status.FAILED),  # wrong answer
        (STRLEN, "String.length(string\n  end\nend\n", Status.COMPILE_ERROR),  # syntax error
        (STRLEN, "strlen_of(string, undefined_var)\n  end\nend\n", Status.COMPILE_ERROR),  # undefined names
        ("HumanEval_30_get_positive", "Enum.fetch!(l, length(l))\n  end\nend\n", Status.RUNTIME_ERROR),  # index out of range
        (STRLEN, "Stream.repeatedly(fn -> 1 end) |> Enum.sum()\n  end\nend\n", Status.TIMEOUT),
        (STRLEN, 'IO.puts("tests passed")\n    System.halt(0)\n  end\nend\n', Status.FAILED),  # early exit with status 0
    ],
    # A chat model's module: no `candidate` (the prompt's delegate, which the tests call), a demo call.
    chat_reply=(
        "defmodule HumanEval do\n  @doc \"Length of a string\"\n  def strlen(string) do\n    String.length(string)\n  end\nend\n\n"
        'IO.puts(HumanEval.strlen("abc"))\n'
    ),
    # File.write returns an error; the tests run.
    hostile_write=lambda target: f'File.write("{target}", "x")\n    String.length(string)\n  end\nend\n',
    floods=('Stream.repeatedly(fn -> IO.puts(String.duplicate("x", 1000)) end) |> Stream.run()\n  end\nend\n',),
    prejudge=True,
    hostile={name: (STRLEN, body) for name, body in HOSTILE.items()},
    hostile_status={"sleeps": Status.TIMEOUT, "early exit": Status.FAILED, "forged records": Status.FAILED},
    # MultiPL-E's own bug: quotes left unescaped in strings.
    render_agreement=0.99,
)
