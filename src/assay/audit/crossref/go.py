"""Go: HumanEval-X's `func PascalCase(...)` (its own types in places: `[2]int` for a pair, `map[rune]int`,
`interface{}` parameters); MultiPL-E's `func snake_case(...)` (a tuple is `[]interface{}`) forwards to it.

The program, as a chat model would write it: MultiPL-E's package clause, one import block (the
prompt's `testing` and `fmt`, HumanEval-X's own imports, and `reflect`), HumanEval-X's declaration and
canonical solution (Go has no namespaces: its function is renamed only where its name is the entry
point's), a reflect-based conversion (`hxConvert`: numbers by kind, a rune to a string, slices and
arrays element by element, maps key by key, interfaces unwrapped) and a function-traits `hxCall` that
converts each argument to the parameter type of HumanEval-X's function and its result to MultiPL-E's
return type; then MultiPL-E's signature line with a three-line body.
"""

from __future__ import annotations

import re
from typing import Any

from assay.problems import Problem

CONVERT = r'''
// hxConvert: v as a value of type t (numbers by kind, a rune to a string, containers element by element).
func hxConvert(v reflect.Value, t reflect.Type) reflect.Value {
	if !v.IsValid() {
		return reflect.Zero(t)
	}
	if v.Kind() == reflect.Interface {
		if v.IsNil() {
			return reflect.Zero(t)
		}
		return hxConvert(v.Elem(), t)
	}
	if t.Kind() == reflect.Interface {
		out := reflect.New(t).Elem()
		out.Set(v)
		return out
	}
	if v.Type() == t {
		return v
	}
	switch t.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64,
		reflect.Float32, reflect.Float64:
		return v.Convert(t)
	case reflect.String:
		if v.Kind() == reflect.Int32 { // a rune
			return reflect.ValueOf(string(rune(v.Int()))).Convert(t)
		}
		return v.Convert(t)
	case reflect.Bool:
		if v.Kind() == reflect.String {
			return reflect.ValueOf(v.String() == "True" || v.String() == "true")
		}
		return v.Convert(t)
	case reflect.Slice:
		if v.Kind() == reflect.Slice && v.IsNil() {
			return reflect.Zero(t)
		}
		out := reflect.MakeSlice(t, v.Len(), v.Len())
		for i := 0; i < v.Len(); i++ {
			out.Index(i).Set(hxConvert(v.Index(i), t.Elem()))
		}
		return out
	case reflect.Array:
		if v.Len() != t.Len() {
			panic(fmt.Sprintf("adapter: %d items for an array of %d", v.Len(), t.Len()))
		}
		out := reflect.New(t).Elem()
		for i := 0; i < v.Len(); i++ {
			out.Index(i).Set(hxConvert(v.Index(i), t.Elem()))
		}
		return out
	case reflect.Map:
		if v.IsNil() {
			return reflect.Zero(t)
		}
		out := reflect.MakeMapWithSize(t, v.Len())
		iter := v.MapRange()
		for iter.Next() {
			out.SetMapIndex(hxConvert(iter.Key(), t.Key()), hxConvert(iter.Value(), t.Elem()))
		}
		return out
	}
	return v.Convert(t)
}

// hxCall calls f with args converted to its parameter types and stores its result, converted, in *result.
func hxCall(f interface{}, result interface{}, args ...interface{}) {
	fn := reflect.ValueOf(f)
	in := make([]reflect.Value, len(args))
	for i, a := range args {
		in[i] = hxConvert(reflect.ValueOf(a), fn.Type().In(i))
	}
	out := fn.Call(in)
	target := reflect.ValueOf(result).Elem()
	target.Set(hxConvert(out[0], target.Type()))
}
'''


def imports(text: str) -> list[str]:
    """Import specs of a Go file: `"math"`, `b "bytes"`."""
    found: list[str] = []
    for block in re.finditer(r"^import\s*\((.*?)\)", text, re.M | re.S):
        found += [line.strip() for line in block.group(1).splitlines() if line.strip()]
    found += [m.group(1).strip() for m in re.finditer(r'^import\s+((?:\w+\s+)?"[^"]+")', text, re.M)]
    return found


def signature_parts(line: str) -> tuple[str, list[str], str]:
    """(name, parameter names, return type) of `func name(a int, b []string) T {`."""
    found = re.match(r"\s*func\s+(\w+)\s*\((.*?)\)\s*(.*?)\s*\{\s*$", line)
    assert found, line
    params = [p.strip().split()[0] for p in found.group(2).split(",") if p.strip()]
    return found.group(1), params, found.group(3)


# The standard packages HumanEval-X's solutions use; like upstream's runner, the program imports those its code names.
PACKAGES = {"math": "math", "strings": "strings", "sort": "sort", "strconv": "strconv", "fmt": "fmt", "regexp": "regexp",
            "bytes": "bytes", "time": "time", "md5": "crypto/md5", "unicode": "unicode", "utf8": "unicode/utf8", "big": "math/big",
            "bits": "math/bits", "hex": "encoding/hex", "errors": "errors"}


def adapt(problem: Problem, row: dict[str, Any]) -> str:
    """MultiPL-E's package and imports, HumanEval-X's solution, then MultiPL-E's function forwarding to it."""
    package = re.search(r"^package\s+\w+", problem.prompt, re.M)
    # HumanEval-X's prompt (its helpers included, as upstream runs it) less its import block, then the solution.
    solution = re.sub(r"^import\s*\(.*?\)[ \t]*$", "", str(row["prompt"]), flags=re.M | re.S) + str(row["canonical_solution"])
    code = re.sub(r"//[^\n]*", "", solution)
    used = [f'"{path}"' for name, path in PACKAGES.items() if re.search(rf"(?<![\w.]){name}\.", code)]
    specs = list(dict.fromkeys([*imports(problem.prompt), *used, '"reflect"']))
    hx_line = [line for line in row["declaration"].splitlines() if line.strip().startswith("func ")][-1]
    name = re.match(r"\s*func\s+(\w+)", hx_line).group(1)  # type: ignore[union-attr]
    signature = problem.prompt.rstrip().splitlines()[-1]
    entry, params, ret = signature_parts(signature)
    if name == entry:
        solution = re.sub(rf"\b{name}\b", f"hx{name}", solution)
        name = f"hx{name}"
    body = (f"\tvar hxResult {ret}\n\thxCall({name}, &hxResult{''.join(', ' + p for p in params)})\n\treturn hxResult\n")
    return ((package.group(0) if package else "package main") + "\n\nimport (\n" + "".join(f"\t{s}\n" for s in specs) + ")\n"
            + solution + "\n" + CONVERT + "\n" + signature + "\n" + body + "}\n")
