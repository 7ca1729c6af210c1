"""R: `parse()` checks the syntax (a parse error is a compile error), then `Rscript main.r` runs it, as MultiPL-E does.

MultiPL-E's R tests are `stopifnot(isTRUE(all.equal(candidate(...), expected)))` lines in a
`test_humaneval` function. Judged as cases, the program is the sample followed by a harness that
binds `candidate` as the tests do, in an environment of its own, runs each call in order under
tryCatch and writes its result, encoded at the declared result type, to fd 3 (through a `cat` it
starts: R cannot write to a descriptor it did not open); an error is that case's error record. The
harness's functions are byte-compiled once per machine and read back by each program (`readRDS`
from a support directory; its source in the program where that cannot be built or is turned off),
and each case is a top-level line of its own: R's REPL reparses an expression from its first line for
each line it adds, so a block of cases cost parse time quadratic in their number.

Equality is all.equal's, MultiPL-E's own (target: the result, current: MultiPL-E's literal):

- numbers compare with its tolerance: a numeric vector (`c(...)`, a scalar) passes when the mean
  relative difference of its differing elements is at most sqrt(.Machine$double.eps) (absolute when
  their mean size is below it); ints too (1000000003 equals 1000000002), integer equals double;
  `equal` does that on the decoded values, vector by vector as MultiPL-E's literal groups them.
  Where an int is declared, a double within that tolerance of an integer is written as the integer.
- structure is strict: a list is not a vector, names and other attributes count (a named vector
  from sapply is not `c(...)`), an empty result must be NULL as `c()` is (not integer(0) nor list()),
  TRUE is not 1, "1" is not 1, NA equals nothing MultiPL-E writes. MultiPL-E writes a list as
  `c(...)` when its items' literals are all numbers, all strings or all booleans (a float written
  with an exponent, 1e-05, counts as a string there) and as `list(...)` otherwise; the harness asks
  of the result the form MultiPL-E would have written for the result's own value, and refuses (a
  JSON object, which decodes as nothing: a failed case) any other. A dict is a named list, in order.

Under EvalPlus's rule (HumanEval+ inputs) the harness reads R values leniently (any vector or list,
names dropped, empty vectors empty) and Python compares. The test-program path (a problem judged
as a program) runs the tests in a `local()` environment with its own `stopifnot`: a condition that
is not all TRUE exits with ASSERT_EXIT. Debian keeps R's configuration (R_HOME/etc) in /etc/R,
which the sandbox is shown.
"""

from __future__ import annotations

import dataclasses
import functools
import math
import os
import re
import subprocess
from collections.abc import Sequence
from pathlib import Path
from typing import Any, ClassVar

from assay.languages.base import ASSERT_EXIT, Language, PhaseLimits, Toolchain, Unrepresentable
from assay.languages.harness import NotSplittable, calls_after, descriptor_json, numbered
from assay.languages.support import digest, file_stamp, run_host, support_dir, switched_off
from assay.problems import CaseTests, Problem, test_program
from assay.values import Signature, Type

STOPIFNOT = f"""    stopifnot <- function(...) {{
        conditions <- list(...)
        for (i in seq_along(conditions)) {{
            ok <- conditions[[i]]
            if (!(is.logical(ok) && !anyNA(ok) && all(ok))) {{
                call <- sys.call()
                cat("assertion failed:", deparse(call[[i + 1L]])[1L], "\\n", file = stderr())
                quit(save = "no", status = {ASSERT_EXIT})
            }}
        }}
        invisible()
    }}
"""

# The case harness (see the module's doc): R code whose value is a function of the result type (a
# descriptor as an R list: "int", or list(kind, args...)) and the rule (TRUE: exact); it opens the channel
# and returns the environment the cases run in (a child of the global one, where `candidate` is bound,
# holding `run` and `done`). Its own functions live in an environment whose parent is base's: a sample's
# global definitions do not reach them.
HARNESS_DEFS = r"""base::local({
assay_out <- NULL
assay_type <- "any"
assay_strict <- TRUE
assay_tol <- sqrt(.Machine$double.eps)
a_kind <- function(t) if (is.list(t)) t[[1]] else t
a_str <- function(s) {
  s <- enc2utf8(as.character(s))
  s <- gsub("\\", "\\\\", s, fixed = TRUE, useBytes = TRUE)
  s <- gsub("\"", "\\\"", s, fixed = TRUE, useBytes = TRUE)
  s <- gsub("\n", "\\n", s, fixed = TRUE, useBytes = TRUE)
  s <- gsub("\r", "\\r", s, fixed = TRUE, useBytes = TRUE)
  s <- gsub("\t", "\\t", s, fixed = TRUE, useBytes = TRUE)
  if (grepl("[\001-\037\177]", s, useBytes = TRUE)) {
    chars <- strsplit(s, "", useBytes = TRUE)[[1]]
    codes <- vapply(chars, function(ch) as.integer(charToRaw(ch))[1], 0L, USE.NAMES = FALSE)
    ctl <- codes < 32L | codes == 127L
    chars[ctl] <- sprintf("\\u%04x", codes[ctl])
    s <- paste(chars, collapse = "")
  }
  paste0("\"", s, "\"")
}
a_bad <- function(v) paste0("{\"unexpected\": ", a_str(paste(c(class(v), names(attributes(v))), collapse = " ")), "}")
a_num <- function(x, k) {
  if (is.integer(x)) return(as.character(x))
  if (is.nan(x)) return("NaN")
  if (is.infinite(x)) return(if (x > 0) "Infinity" else "-Infinity")
  if (k == "int" && assay_strict && x != round(x) && abs(x - round(x)) <= assay_tol * abs(x)) x <- round(x)
  if (x == round(x) && abs(x) < 1e300) return(sprintf("%.0f", x))
  sprintf("%.17g", x)
}
a_na <- function(v) is.na(v) && !(is.double(v) && is.nan(v))
a_scalar <- function(v, k) {
  if (k == "none") return(if (is.null(v)) "null" else a_bad(v))
  if (assay_strict) {
    if (!is.atomic(v) || length(v) != 1L || !is.null(attributes(v)) || a_na(v)) return(a_bad(v))
  } else {
    if (is.list(v) && length(v) == 1L) v <- v[[1]]
    if (is.factor(v)) v <- as.character(v)
    if (!is.atomic(v) || length(v) < 1L) return(a_bad(v))
    v <- v[[1]]
    if (a_na(v)) return("null")
  }
  if (k == "int" || k == "float") {
    if (is.numeric(v)) return(a_num(v, k))
    if (!assay_strict && is.logical(v)) return(a_num(as.integer(v), k))
    return(a_bad(v))
  }
  if (k == "bool") return(if (is.logical(v)) (if (v) "true" else "false") else a_bad(v))
  if (k == "str") return(if (is.character(v)) a_str(v) else a_bad(v))
  a_bad(v)
}
a_alt <- function(v, t) {
  want <- if (is.list(v) && !is.null(names(v))) c("dict", "list", "tuple", "vtuple", "set")
          else if (is.list(v) || length(v) != 1L) c("list", "tuple", "vtuple", "set", "dict")
          else if (is.character(v) || is.factor(v)) "str" else if (is.logical(v)) "bool"
          else if (is.numeric(v)) (if (is.finite(v) && v == round(v)) c("int", "float") else c("float", "int"))
          else character(0)
  for (w in want) for (a in t[-1]) if (a_kind(a) == w) return(a)
  "any"
}
a_category <- function(x, t) {  # what MultiPL-E's literal of this item is, for c(...) or list(...)
  if (is.null(x)) return("null")
  k <- a_kind(t)
  if (k == "optional") return(a_category(x, t[[2]]))
  if (k == "union") { t <- a_alt(x, t); k <- a_kind(t) }
  if (k %in% c("list", "tuple", "vtuple", "set") || (k == "any" && (is.list(x) || length(x) != 1L))) return("vector")
  if (k == "dict") return("list")
  if (length(x) != 1L) return("other")
  if (is.character(x)) return("string")
  if (is.logical(x)) return("boolean")
  if (is.numeric(x)) {
    if (k == "float" && (!is.finite(x) || (x != 0 && (abs(x) < 1e-4 || abs(x) >= 1e16)))) return("string")
    return("numeric")
  }
  "other"
}
a_seq <- function(v, t, k) {
  et <- function(i) if (k == "tuple") (if (i + 1L <= length(t)) t[[i + 1L]] else "any") else t[[2]]
  if (is.null(v)) return("[]")
  if (is.factor(v) && !assay_strict) v <- as.character(v)
  if (!(is.atomic(v) || is.list(v))) return(a_bad(v))
  if (assay_strict && (!is.null(attributes(v)) || length(v) == 0L)) return(a_bad(v))
  n <- length(v)
  items <- if (is.list(v)) v else as.list(v)
  if (assay_strict) {
    cats <- vapply(seq_len(n), function(i) a_category(items[[i]], et(i)), "")
    atomic <- length(unique(cats)) == 1L && cats[1] %in% c("numeric", "string", "boolean")
    if (atomic != is.atomic(v)) return(a_bad(v))
  }
  parts <- vapply(seq_len(n), function(i) a_enc(items[[i]], et(i)), "")
  paste0("[", paste(parts, collapse = ","), "]")
}
a_key <- function(s, kt) if (a_kind(kt) %in% c("int", "float") && grepl("^-?(0|[1-9][0-9]*)$", s)) s else a_str(s)
a_dict <- function(v, t) {
  if (assay_strict) {
    if (!is.list(v)) return(a_bad(v))
    if (length(v) == 0L) return(if (is.null(attributes(v))) "[]" else a_bad(v))
    if (!identical(names(attributes(v)), "names") || anyNA(names(v))) return(a_bad(v))
  } else {
    if (length(v) == 0L) return("[]")
    if (!(is.list(v) || is.atomic(v)) || is.null(names(v))) return(a_bad(v))
  }
  nm <- names(v)
  parts <- vapply(seq_along(nm), function(i) paste0("[", a_key(nm[i], t[[2]]), ",", a_enc(v[[i]], t[[3]]), "]"), "")
  paste0("[", paste(parts, collapse = ","), "]")
}
a_any <- function(v) {
  if (is.null(v)) return("null")
  if (is.list(v) || length(v) != 1L) {
    items <- if (is.list(v)) v else as.list(v)
    return(paste0("[", paste(vapply(items, a_any, "", USE.NAMES = FALSE), collapse = ","), "]"))
  }
  if (a_na(v)) return("null")
  if (is.logical(v)) return(if (v) "true" else "false")
  if (is.numeric(v)) return(a_num(v, "float"))
  if (is.character(v) || is.factor(v)) return(a_str(as.character(v)))
  a_bad(v)
}
a_enc <- function(v, t) {
  k <- a_kind(t)
  if (k == "optional") return(if (is.null(v)) "null" else a_enc(v, t[[2]]))
  if (k == "union") {
    if (is.null(v)) return("null")
    t <- a_alt(v, t)
    k <- a_kind(t)
  }
  if (k %in% c("int", "float", "bool", "str", "none")) return(a_scalar(v, k))
  if (k %in% c("list", "tuple", "vtuple", "set")) return(a_seq(v, t, k))
  if (k == "dict") return(a_dict(v, t))
  a_any(v)
}
run <- function(i, f) {
  r <- tryCatch(list(ok = TRUE, value = f()), error = function(e) list(ok = FALSE, value = conditionMessage(e)))
  line <- if (isTRUE(r$ok)) {
    paste0(i, " v ", tryCatch(a_enc(r$value, assay_type), error = function(e) a_bad(NULL)))
  } else {
    paste0(i, " e ", substr(gsub("[\r\n]+", " ", paste(r$value, collapse = " ")), 1L, 300L))
  }
  writeLines(line, assay_out)
  flush(assay_out)
  invisible(NULL)
}
done <- function(n) {
  writeLines(paste0("done ", n), assay_out)
  close(assay_out)
  invisible(NULL)
}
function(type, strict) {
  assay_type <<- type
  assay_strict <<- strict
  assay_out <<- pipe("exec cat >&3", open = "w")
  cases <- new.env(parent = globalenv())
  cases$run <- run
  cases$done <- done
  cases
}
}, envir = base::new.env(parent = base::baseenv()))
"""

# After the sample, each line a top-level expression of its own: R's REPL parses a file's expression
# again from its first line for each line it adds, so one expression over all the cases cost time
# quadratic in their number (1600 one-line cases in one block: 3 s of parsing; apart: 30 ms).
CASE_MAIN = """.assay_cases <- __MAKER__(__TYPE__, __STRICT__)
base::evalq(__BIND__, .assay_cases)
__CASES__
base::evalq(done(__COUNT__L), .assay_cases)
base::quit(save = "no", status = 0L, runLast = FALSE)
"""

# The harness built once per machine: HARNESS_DEFS byte-compiled and serialized (support directory
# r-<key>), so that no program parses it nor compiles it again at run time; R reads back byte code
# without the compiler package. Off with ASSAY_R_HARNESS_RDS=0, or where it cannot be built: the
# program parses HARNESS_DEFS from one string literal (one line for the REPL).
HARNESS_RDS_ENV = "ASSAY_R_HARNESS_RDS"
HARNESS_RDS = "assay_harness.rds"
BUILD_RDS = """h <- base::eval(base::parse(file = "assay_harness.r", keep.source = FALSE)[[1L]], base::globalenv())
e <- base::environment(h)
for (n in base::ls(e, all.names = TRUE)) {
  f <- base::get(n, envir = e)
  if (base::is.function(f)) base::assign(n, compiler::cmpfun(f), envir = e)
}
h <- compiler::cmpfun(h)
base::saveRDS(h, "assay_harness.rds")
g <- base::readRDS("assay_harness.rds")
base::stopifnot(base::is.function(g), base::typeof(.Internal(bodyCode(g))) == "bytecode")
"""


def _build_harness_rds(work: Path, rscript: str) -> None:
    """assay_harness.rds from HARNESS_DEFS, compiled by the toolchain's own R."""
    (work / "assay_harness.r").write_text(HARNESS_DEFS)
    (work / "build.r").write_text(BUILD_RDS)
    run_host([rscript, "--vanilla", "--default-packages=NULL", "build.r"], work, timeout=120)
    (work / "assay_harness.r").unlink()
    (work / "build.r").unlink()


def r_text(text: str) -> str:
    """An R string literal on one line for ASCII text."""
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


_BIND = re.compile(r"(?m)^[ \t]*candidate <- [A-Za-z_.][\w.]*[ \t]*$")
MAX_EXACT = 2**53
TOLERANCE = math.sqrt(2.220446049250313e-16)  # all.equal's default, sqrt(.Machine$double.eps)


class R(Language):
    """GNU R (Debian's r-base-core)."""

    whole_floats_are_ints = True  # one number type: 3.0 is 3

    name = "r"
    display = "R"
    multipl_e = "r"
    stops = ("\n#", "\n```")
    source = "main.r"
    tools = ("Rscript",)
    version_args = ("--version",)
    install_hint = "apt-get install -y r-base-core"
    build = "{Rscript} --vanilla --default-packages=NULL -e 'invisible(parse(file = \"main.r\"))'"
    build_checks_only = True  # a syntax check: case runs skip it unless they fail before any case
    run = "{Rscript} main.r"
    stub = '  stop("stub")\n}\n'
    limits: ClassVar[PhaseLimits] = PhaseLimits(processes=64)
    config_dirs = ("/etc/R",)  # Debian's R_HOME/etc (Renviron, ldpaths) is a link to it

    @classmethod
    @functools.cache
    def toolchain(cls) -> Toolchain:
        """Rscript, plus the case harness byte-compiled once into a support directory (r-<key>), whose
        path is in the environment as ASSAY_R_HARNESS. Off with ASSAY_R_HARNESS_RDS=0, or where it cannot
        be built: the program carries the harness's source."""
        base = super().toolchain()
        if switched_off(HARNESS_RDS_ENV):
            return base
        rscript = os.path.realpath(base.tools["Rscript"])
        key = digest(base.version, rscript, file_stamp(rscript), HARNESS_DEFS, BUILD_RDS)
        try:
            support = support_dir("r", key, lambda work: _build_harness_rds(work, base.tools["Rscript"]))
        except (OSError, subprocess.SubprocessError):
            return base
        rds = support / HARNESS_RDS
        if not rds.exists() or not re.fullmatch(r"[\w./+-]+", str(rds)):
            return base
        env = {**base.env, "ASSAY_R_HARNESS": str(rds)}
        return dataclasses.replace(base, ro_binds=tuple(sorted({*base.ro_binds, str(support)})), env=env)

    def wrap_tests(self, tests: str, marker: str) -> str:
        """The tests in a local environment whose stopifnot exits with ASSERT_EXIT; the marker after them."""
        return "local({\n" + STOPIFNOT + tests.rstrip("\n") + "\n})\n" + f'cat("\\n{marker}\\n", sep = "")\n'

    # ------------------------------------------------------------ cases

    def test_calls(self, tests: str) -> list[tuple[str, str]] | None:
        """The `candidate(...)` of each `stopifnot(isTRUE(all.equal(candidate(...), expected)))`."""
        try:
            return [(call, "") for call in calls_after(tests, "stopifnot(")]
        except NotSplittable:
            return None

    def render_value(self, value: Any, t: Type) -> str:
        """MultiPL-E's R literals: `c(...)` for a list whose items' literals are alike, else `list(...)`;
        a dict is a named list, None is NULL."""
        return r_literal(value)

    def render_call(self, signature: Signature, args: tuple[Any, ...]) -> str:
        """`candidate(a, b)`; as MultiPL-E does, an argument declared a list of scalars is always `c(...)`."""
        rendered = []
        for a, t in zip(args, signature.param_types, strict=False):
            text = self.render_value(a, t)
            if t.kind == "list" and t.args[0].kind in ("int", "float", "str", "bool") and text.startswith("list("):
                text = "c(" + text[len("list(") :]
            rendered.append(text)
        return f"candidate({', '.join(rendered)})"

    def case_files(self, problem: Problem, code: str, calls: Sequence[str]) -> dict[str, bytes]:
        """The sample, then the harness: the built one read back, else its source; each case a line of its own."""
        tests = problem.tests
        assert isinstance(tests, CaseTests) and tests.signature is not None
        found = _BIND.search(test_program(problem).code)
        bind = found.group(0).strip() if found else f"candidate <- {problem.entry_point}"
        cases = numbered(calls, lambda i, call: f"base::evalq(run({i}L, function() {call}), .assay_cases)")
        descriptor = descriptor_json(tests.signature.returns).replace("[", "list(").replace("]", ")")
        rds = self.toolchain().env.get("ASSAY_R_HARNESS")
        maker = f'base::readRDS("{rds}")' if rds else f"base::eval(base::parse(text = {r_text(HARNESS_DEFS)}, keep.source = FALSE)[[1L]])"
        harness = (CASE_MAIN.replace("__MAKER__", maker).replace("__TYPE__", descriptor).replace("__STRICT__", "TRUE" if tests.rule == "exact" else "FALSE")
                   .replace("__BIND__", bind).replace("__CASES__", cases).replace("__COUNT__", str(len(calls))))
        return {self.source: (code + "\n" + harness).encode()}

    def equal(self, actual: Any, expected: Any, t: Type, hint: str) -> bool:
        """all.equal's: numbers within its tolerance, vector by vector as MultiPL-E's literal groups them."""
        return r_equal(actual, expected, t)


# ---------------------------------------------------------------- all.equal on the trusted side


def _is_number(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def numbers_equal(target: Sequence[Any], current: Sequence[Any]) -> bool:
    """all.equal.numeric(target, current) is TRUE: the same NAs (NaN), then the mean relative
    difference of the differing elements at most the tolerance (absolute when they are near 0)."""
    if len(target) != len(current):
        return False
    try:
        t = [float(x) for x in target]
        c = [float(x) for x in current]
    except OverflowError:
        return list(target) == list(current)
    if any(math.isnan(x) != math.isnan(y) for x, y in zip(t, c, strict=False)):
        return False
    differ = [(x, y) for x, y in zip(t, c, strict=False) if not math.isnan(x) and x != y]
    if not differ:
        return True
    n = len(differ)
    scale = sum(abs(x) for x, _ in differ) / n
    if not (math.isfinite(scale) and scale > TOLERANCE):
        scale = 1.0
    xy = sum(abs(x - y) for x, y in differ) / (n * scale)
    return not (math.isnan(xy) or xy > TOLERANCE)


def category(value: Any, t: Type) -> str:
    """What MultiPL-E's R literal of an item is (its `_get_r_type`): numeric, string, boolean, null, vector, list."""
    if value is None:
        return "null"
    k = t.kind
    if k == "optional":
        return category(value, t.args[0])
    if k in ("list", "tuple", "vtuple", "set") or isinstance(value, (list, tuple, set, frozenset)):
        return "vector"
    if k == "dict" or isinstance(value, dict):
        return "list"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, str):
        return "string"
    if isinstance(value, float):
        return "numeric" if re.fullmatch(r"-?\d+\.\d+", repr(value)) else "string"  # 1e-05, inf: not digits
    return "numeric"


def _item_types(value: Any, t: Type) -> list[Type]:
    if t.kind == "tuple":
        return list(t.args)
    if t.kind in ("list", "vtuple", "set"):
        return [t.args[0]] * len(value)
    return [Type("any")] * len(value)


def atomic(value: Sequence[Any], t: Type) -> bool:
    """Whether MultiPL-E writes this list or tuple as `c(...)` (else `list(...)`)."""
    cats = {category(v, a) for v, a in zip(value, _item_types(value, t), strict=False)}
    return len(cats) <= 1 and not cats - {"numeric", "string", "boolean"}


def r_equal(a: Any, e: Any, t: Type) -> bool:
    """all.equal(a, e) on decoded values of type t (the harness has checked the R structure)."""
    k = t.kind
    if a is None or e is None:
        return a is None and e is None
    if k == "optional":
        return r_equal(a, e, t.args[0])
    if k == "union":
        if _is_number(a) and _is_number(e):
            return numbers_equal([a], [e])
        alt = next((x for x in t.args if _fits_shape(e, x)), Type("any"))
        return r_equal(a, e, alt)
    if k in ("int", "float"):
        return _is_number(a) and _is_number(e) and numbers_equal([a], [e])
    if k in ("list", "tuple", "vtuple") or (k == "any" and isinstance(e, (list, tuple))):
        if not isinstance(a, (list, tuple)) or not isinstance(e, (list, tuple)) or len(a) != len(e):
            return False
        if e and atomic(e, t) and all(_is_number(x) for x in e):
            return all(_is_number(x) for x in a) and numbers_equal(a, e)
        return all(r_equal(x, y, s) for x, y, s in zip(a, e, _item_types(e, t), strict=False))
    if k == "dict":
        return isinstance(a, dict) and list(a) == list(e) and all(r_equal(a[key], e[key], t.args[1]) for key in e)
    return bool(a == e)


def _fits_shape(value: Any, t: Type) -> bool:
    from assay.values import fits

    return fits(value, t)


# ---------------------------------------------------------------- literals


def r_string(s: str) -> str:
    """An R string as Python's repr writes it (MultiPL-E's), with escapes R reads the same."""
    text = repr(s)
    return re.sub(r"\\x([89a-f][0-9a-f])", lambda m: f"\\u00{m.group(1)}", text)


def r_literal(value: Any) -> str:
    """An R literal for a plain value (ints beyond 2**53 are not exact as R's doubles: refused)."""
    if value is None:
        return "NULL"
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, int):
        if abs(value) > MAX_EXACT:
            raise Unrepresentable(f"int beyond 2**53: {value}")
        return str(value)
    if isinstance(value, float):
        if math.isnan(value):
            return "NaN"
        if math.isinf(value):
            return "Inf" if value > 0 else "-Inf"
        return repr(value)
    if isinstance(value, str):
        return r_string(value)
    if isinstance(value, (list, tuple, set, frozenset)):
        items = sorted(value, key=repr) if isinstance(value, (set, frozenset)) else list(value)
        rendered = [r_literal(v) for v in items]
        return ("c(" if _multipl_e_atomic(rendered) else "list(") + ", ".join(rendered) + ")"
    if isinstance(value, dict):
        return "list(" + ", ".join(f"{_r_name(k)} = {r_literal(v)}" for k, v in value.items()) + ")"
    raise Unrepresentable(f"{type(value).__name__} values: {value!r}"[:200])


def _r_name(key: Any) -> str:
    if isinstance(key, str):
        return r_string(key)
    if isinstance(key, (int, float)) and not isinstance(key, bool):
        return f"`{key}`"  # MultiPL-E writes `1 = ...`, which R cannot parse
    raise Unrepresentable(f"a dict key other than a string or a number: {key!r}"[:200])


def _r_kind(text: str) -> str:
    """MultiPL-E's `_get_r_type` of a rendered item."""
    if text.startswith("c("):
        return "vector"
    if text.startswith("list("):
        return "list"
    if text == "NULL":
        return "null"
    if text in ("TRUE", "FALSE"):
        return "boolean"
    return "numeric" if text.replace("-", "", 1).replace(".", "", 1).isdigit() else "string"


def _multipl_e_atomic(rendered: list[str]) -> bool:
    kinds = {_r_kind(r) for r in rendered}
    return not kinds & {"null", "vector", "list"} and len(kinds) <= 1
