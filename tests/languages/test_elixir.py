"""Elixir on MultiPL-E: correct programs pass, each kind of wrong one fails with the right status.

Every program starts two BEAMs (elixirc, then the tests): they are all judged up front, two at a
time, and each test looks at its verdict.
"""

from __future__ import annotations

from assay.problems import Status
from tests.languages._common import *  # the shared tests, run on SPEC
from tests.languages._common import STRLEN, LanguageSpec

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
)
