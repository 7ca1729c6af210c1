"""Rust: HumanEval-X's `fn f(v: Vec<i32>, s: &str) -> i32` (i32, u32, f32, &str, Vec<&str>...) in a module of its
own; MultiPL-E's `fn f(v: Vec<isize>, s: String) -> isize` forwards to it.

The program, as a chat model would write it: `mod assay_hx { ... }` holding HumanEval-X's declaration
and canonical solution (its `use` lines but those of crates not available offline, rand, regex and
md5; its function made `pub`), then MultiPL-E's signature line with a body generated from both
signatures: each argument converted to HumanEval-X's parameter type (numbers by `as` where that is
lossless, else by `try_from`, which panics with "adapter: ... does not fit" where HumanEval-X's
narrower type cannot hold the value; String to &str by borrowing; element by element through Vec,
tuples, Option and HashMap; a tuple to a Vec and back), the call, and the result converted back.

Where HumanEval-X's return type cannot say None (MultiPL-E's Option), it returns a sentinel (-1,
-32768, 0, "None", as its own tests check): the wrapper maps that sentinel to None. A solution that
needs a crate (`Regex`, `md5::`) is built as is, and fails to build: `needs_crate` tells those apart.
"""

from __future__ import annotations

import re
from typing import Any

from assay.problems import Problem

Type = tuple[Any, ...]  # ("prim", name) | ("ref", T) | ("Vec", T) | ("Option", T) | ("HashMap", K, V) | ("tuple", *T)

SENTINELS = {"90": "-1", "128": "-32768", "136": "0", "162": '"None"'}
CRATES = re.compile(r"\b(?:Regex|regex::|md5::|rand::|thread_rng)\b|\bRng\b")
CRATE_USE = re.compile(r"^\s*use\s+(?:rand|regex|md5)\b[^;]*;\s*$")

INTS = {"i8": (8, True), "i16": (16, True), "i32": (32, True), "i64": (64, True), "isize": (64, True),
        "u8": (8, False), "u16": (16, False), "u32": (32, False), "u64": (64, False), "usize": (64, False)}
FLOATS = {"f32", "f64"}


def needs_crate(row: dict[str, Any]) -> bool:
    """Whether HumanEval-X's solution uses a crate (rand, regex, md5) that cannot be built offline."""
    return bool(CRATES.search(row["canonical_solution"]))


# ---------------------------------------------------------------- types


def _tokens(text: str) -> list[str]:
    return re.findall(r"'\w+|\w+|&|<|>|\(|\)|,|\[|\]|;", text)


def parse_type(text: str) -> Type:
    tokens = _tokens(text)
    t, _ = _parse(tokens, 0)
    return t


def _parse(tok: list[str], i: int) -> tuple[Type, int]:
    if tok[i] == "&":
        i += 1
        if tok[i].startswith("'"):
            i += 1
        if tok[i] == "mut":
            i += 1
        inner, i = _parse(tok, i)
        return ("ref", inner), i
    if tok[i] == "(":
        items, i = [], i + 1
        while tok[i] != ")":
            item, i = _parse(tok, i)
            items.append(item)
            if tok[i] == ",":
                i += 1
        return ("tuple", *items), i + 1
    name, i = tok[i], i + 1
    if name == "std" or name == "collections":  # std::collections::HashMap
        return _parse(tok, i)
    if i < len(tok) and tok[i] == "<":
        args, i = [], i + 1
        while tok[i] != ">":
            arg, i = _parse(tok, i)
            args.append(arg)
            if tok[i] == ",":
                i += 1
        return (name, *args), i + 1
    return ("prim", name), i


def signature(line: str) -> tuple[str, list[tuple[str, Type]], Type]:
    """(name, [(parameter, type)], return type) of `fn name(params) -> T {`."""
    found = re.search(r"\bfn\s+(\w+)\s*\(", line)
    assert found, line
    depth, at = 1, found.end()
    while depth:
        depth += {"(": 1, ")": -1}.get(line[at], 0)
        at += 1
    inner = line[found.end() : at - 1]
    params = []
    for part in _split(inner):
        pat, _, ty = part.partition(":")
        params.append((pat.split()[-1], parse_type(ty)))
    rest = line[at:].strip()
    ret = parse_type(rest[2:].rsplit("{", 1)[0]) if rest.startswith("->") else ("tuple",)
    return found.group(1), params, ret


def _split(text: str) -> list[str]:
    parts, depth, cur = [], 0, ""
    for ch in text:
        depth += {"<": 1, "(": 1, ">": -1, ")": -1}.get(ch, 0)
        if ch == "," and depth == 0:
            parts.append(cur)
            cur = ""
        else:
            cur += ch
    if cur.strip():
        parts.append(cur)
    return parts


def render(t: Type) -> str:
    kind = t[0]
    if kind == "prim":
        return str(t[1])
    if kind == "ref":
        return "&" + render(t[1])
    if kind == "tuple":
        return "(" + ", ".join(render(a) for a in t[1:]) + ("," if len(t) == 2 else "") + ")"
    return f"{kind}<{', '.join(render(a) for a in t[1:])}>"


# ---------------------------------------------------------------- conversions


def _copy(t: Type) -> bool:
    return t[0] == "ref" or (t[0] == "prim" and t[1] in (*INTS, *FLOATS, "bool", "char"))


def conv(e: str, src: Type, dst: Type, sentinel: str | None = None) -> str:
    """A Rust expression of type dst from `e`, an expression of type &src (borrowing from it where dst borrows)."""
    if src == dst:
        return f"*{e}" if _copy(src) else f"{e}.clone()"
    s, d = src[0], dst[0]
    if d == "ref" and dst[1] == ("prim", "str") and src == ("prim", "String"):
        return f"{e}.as_str()"
    if dst == ("prim", "String"):
        if src == ("ref", ("prim", "str")) or src == ("prim", "char"):
            return f"{e}.to_string()"
        if s == "ref":
            return conv(f"(*{e})", src[1], dst)
    if s == "ref" and d != "ref":
        return conv(f"(*{e})", src[1], dst, sentinel)
    if d == "ref":
        return f"&({conv(e, src, dst[1], sentinel)})"
    if d == "Option" and s != "Option":
        inner = conv(e, src, dst[1])
        if sentinel is not None:
            return f"(if *{e} == {sentinel} {{ None }} else {{ Some({inner}) }})"
        return f"Some({inner})"
    if s == "Option" and d == "Option":
        return f"{e}.as_ref().map(|v| {conv('v', src[1], dst[1])})"
    if s == d == "prim":
        a, b = src[1], dst[1]
        if a in INTS and b in INTS:
            (wa, sa), (wb, sb) = INTS[a], INTS[b]
            if (sa == sb and wb >= wa) or (not sa and sb and wb > wa):
                return f"(*{e} as {b})"
            return f"{b}::try_from(*{e}).unwrap_or_else(|_| panic!(\"adapter: {{}} does not fit in {b}\", *{e}))"
        if (a in INTS or a in FLOATS) and (b in INTS or b in FLOATS):
            return f"(*{e} as {b})"
        if a == "String" and b == "bool":
            return f'(*{e} == "True")'
    if dst == ("prim", "bool") and src == ("ref", ("prim", "str")):
        return f'(*{e} == "True")'
    if s == d == "Vec":
        return f"{e}.iter().map(|v| {conv('v', src[1], dst[1], sentinel)}).collect::<Vec<_>>()"
    if s == "tuple" and d == "tuple" and len(src) == len(dst):
        items = [conv(f"(&({e}).{i})", a, b, sentinel) for i, (a, b) in enumerate(zip(src[1:], dst[1:], strict=True))]
        return "(" + ", ".join(items) + ("," if len(items) == 1 else "") + ")"
    if s == "tuple" and d == "Vec":
        return "vec![" + ", ".join(conv(f"(&({e}).{i})", a, dst[1], sentinel) for i, a in enumerate(src[1:])) + "]"
    if s == "Vec" and d == "tuple":
        items = [conv(f"(&({e})[{i}])", src[1], b, sentinel) for i, b in enumerate(dst[1:])]
        return "(" + ", ".join(items) + ("," if len(items) == 1 else "") + ")"
    if s == d == "HashMap":
        return (f"{e}.iter().map(|(k, v)| ({conv('k', src[1], dst[1])}, {conv('v', src[2], dst[2])}))"
                ".collect::<::std::collections::HashMap<_, _>>()")
    raise ValueError(f"adapter: no conversion from {render(src)} to {render(dst)}")


# ---------------------------------------------------------------- the program


def _norm(line: str) -> str:
    return "".join(line.split())


def _same(a: str, b: str) -> bool:
    return a.replace("_", "").lower() == b.replace("_", "").lower()


def adapt(problem: Problem, row: dict[str, Any]) -> str:
    """HumanEval-X's solution in a module, then MultiPL-E's function converting to and from its types."""
    number = row["task_id"].split("/")[1]
    code = row["declaration"] + row["canonical_solution"]
    names = re.findall(r"\bfn\s+(\w+)", code)
    declared = re.findall(r"\bfn\s+(\w+)", row["declaration"])
    name = next((n for n in names if _same(n, problem.entry_point)), declared[-1] if declared else names[-1])
    sig_line = problem.prompt.rstrip().splitlines()[-1]
    lines = []
    for line in code.splitlines():
        if CRATE_USE.match(line):
            continue
        if _norm(line) == _norm(sig_line):  # the splice would take HumanEval-X's function for the entry point
            line = line.rstrip()[:-1] + "\n{"
        lines.append(line)
    body = "\n".join(lines)
    hx_line = re.search(rf"^[^\n]*\bfn\s+{name}\s*\([^\n]*", body, re.M).group(0)  # type: ignore[union-attr]
    body = re.sub(rf"(?<!pub )\bfn\s+{name}\s*\(", f"pub fn {name}(", body, count=1)
    _, hx_params, hx_ret = signature(hx_line if "{" in hx_line else hx_line + " {")
    _, params, ret = signature(sig_line)
    args = []
    wrapper = []
    for i, ((pname, ptype), (_, htype)) in enumerate(zip(params, hx_params, strict=False)):  # HumanEval-X may drop a parameter
        wrapper.append(f"    let assay_a{i} = {conv('(&' + pname + ')', ptype, htype)};")
        args.append(f"assay_a{i}")
    wrapper.append(f"    let assay_r = assay_hx::{name}({', '.join(args)});")
    wrapper.append(f"    {conv('(&assay_r)', hx_ret, ret, SENTINELS.get(number))}")
    return ("#[allow(unused_imports, dead_code, unused_mut, unused_variables, non_snake_case, deprecated)]\nmod assay_hx {\n"
            + body + "\n}\n\n" + sig_line + "\n" + "\n".join(wrapper) + "\n}\n")
