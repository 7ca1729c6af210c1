"""The result channel's record format, and its strict reader on the trusted side.

A case harness, in any language, writes one line per case to fd 3, in case order, then a last line:

    <i> v <wire value>      case i returned this value (JSON under the declared type: assay.values)
    <i> e <message>         case i raised (an exception, a panic the harness could catch)
    done <n>                all n cases ran

The channel is not a secret, and needs not be one: what it carries are outputs, and the trusted side
compares them with expected outputs that never enter the sandbox. A sample that writes records of
its own gains nothing unless they hold the right outputs. What the reader refuses is any deviation
from the shape above: a line no harness writes, a case out of order, a case twice, a case that was
not asked, a count that is not the number of cases, anything after `done`. Each is a failed run,
never a partial pass. A run cut short (a crash, a timeout) leaves a prefix of the records, and an
unfinished last line is dropped.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

_RECORD = re.compile(rb"(0|[1-9][0-9]{0,8}) ([ve]) (.*)", re.S)
_DONE = re.compile(rb"done (0|[1-9][0-9]{0,8})")


@dataclass
class Records:
    """What a case run reported: per case, ("v", wire text) or ("e", message), in case order."""

    results: list[tuple[str, str]] = field(default_factory=list)
    done: bool = False
    forged: str = ""  # why the channel cannot have come from the harness alone ("" when it could)


def read_records(channel: bytes, cases: int) -> Records:
    """Read the channel strictly: a prefix of the records of cases 0..n-1, optionally `done n`, nothing else."""
    out = Records()
    lines = channel.split(b"\n")
    if lines and lines[-1] != b"":
        lines.pop()  # an unfinished last line: the run was cut short while writing it
    else:
        lines = lines[:-1]
    for number, line in enumerate(lines, 1):
        if out.done:
            out.forged = f"line {number}: data after the last record"
            return out
        done = _DONE.fullmatch(line)
        if done:
            if int(done.group(1)) != cases or len(out.results) != cases:
                out.forged = f"line {number}: `done {done.group(1).decode()}` after {len(out.results)} of {cases} cases"
                return out
            out.done = True
            continue
        match = _RECORD.fullmatch(line)
        if not match:
            out.forged = f"line {number}: not a record: {line[:80]!r}"
            return out
        index = int(match.group(1))
        if index != len(out.results):
            what = "twice" if index < len(out.results) else "out of order"
            out.forged = f"line {number}: case {index} {what} (expected case {len(out.results)})"
            return out
        if index >= cases:
            out.forged = f"line {number}: case {index} was not asked ({cases} cases)"
            return out
        out.results.append((match.group(2).decode(), match.group(3).decode("utf-8", "surrogateescape")))
    return out
