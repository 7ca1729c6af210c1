"""Perl: `perl -c` checks the syntax (a syntax error is a compile error), then `perl main.pl` runs it, as MultiPL-E does.

`perl -c` compiles the program, which also runs its BEGIN blocks and `use` imports: it does so inside
the sandbox, like the run, and without the result channel (fd 3 is closed in the build phase).
MultiPL-E's Perl tests are `if(eq_deeply($candidate->(...),expected)) {...} else { exit 1; }`.
Judged as cases, the program is the sample followed by a harness (before a whole program's
__END__/__DATA__) that binds `$candidate` as the tests do, runs each call in order, in list context
as eq_deeply's argument list does, and writes its result, encoded at the declared result type, to
fd 3 (assay.judging.records); a `die` is that case's error record.

Equality is Test::Deep's eq_deeply, MultiPL-E's own: scalars compare as strings (`eq`), undef only
equals undef, arrays and hashes deeply (hashes unordered). So:

- the harness writes a scalar where an int is declared only when its string is an int's ("3", not
  "3.0" nor "03"), a float only when its string is its number's own ("0.5", not "0.50"), a bool
  only as "1" or "" (Perl's true and false: 0 is not false for `eq`); anything else is written
  as a string, which does not decode at that type (a failed case);
- `equal` compares the strings Perl makes of both values: numbers as Perl prints them, with 15
  significant digits (0.1 + 0.2 eq 0.3), True as "1", False as "".

Under EvalPlus's rule (HumanEval+ inputs) the harness writes numbers and truth values as Perl reads
them, and Python compares. Test::Deep is Debian's libtest-deep-perl package. The test-program path
(a problem judged as a program) routes the tests' `exit 1;` to a function that exits with ASSERT_EXIT; an END block
keeps any other exit with that status (a `die` whose $! happens to be 97) a runtime error.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Sequence
from typing import Any, ClassVar

from assay.languages.base import ASSERT_EXIT, Language, PhaseLimits, Unrepresentable
from assay.languages.harness import NotSplittable, balanced, descriptor_json, numbered
from assay.problems import CaseTests, Problem, test_program
from assay.values import Type

TEST_FAILED = re.compile(r"(?m)^(\s*)exit 1;")
FAIL_SHIM = f"""
sub assay_test_failed {{
    my ($line) = @_;
    print STDERR "\\nassertion failed: test on line $line\\n";
    $Assay::test_failed = 1;
    exit {ASSERT_EXIT};
}}
END {{ $? = 1 if $? == {ASSERT_EXIT} && !$Assay::test_failed; }}
"""
_DATA = re.compile(r"(?m)^__(?:END|DATA)__\s*$")

# The case harness (see the module's doc). The type is a descriptor ("int", or [kind, args...]), a
# Perl literal as JSON writes it. A JSON object naming what was refused decodes as nothing.
CASE_HARNESS = r"""
{
package AssayCases;
our $OUT;
open($OUT, ">&=", 3) or die "the result channel: $!\n";
our $TYPE = __TYPE__;
our $STRICT = __STRICT__;
sub kind { return ref $_[0] ? $_[0][0] : $_[0]; }
sub str {
    my $s = defined $_[0] ? "$_[0]" : "";
    utf8::encode($s) if utf8::is_utf8($s);
    $s =~ s/(["\\])/\\$1/g;
    $s =~ s/([\x00-\x1f\x7f])/sprintf("\\u%04x", ord($1))/ge;
    return "\"$s\"";
}
sub bad { my ($v) = @_; return '{"unexpected": ' . str(ref $v ? ref $v : defined $v ? "scalar: $v" : "undef") . '}'; }
sub canon_int { return $_[0] =~ /\A-?(?:0|[1-9][0-9]*)\z/; }
sub flt {
    my ($n) = @_;
    return "NaN" if $n != $n;
    return $n > 0 ? "Infinity" : "-Infinity" if $n * 0 != $n * 0;
    return sprintf("%.17g", $n);
}
sub num {
    my ($v, $k) = @_;
    return bad($v) if ref $v || !defined $v;
    no warnings;
    my $s = "$v";
    my $n = 0 + $s;
    if ($STRICT) {
        return canon_int($s) ? $s : str($s) if $k eq "int";
        return str($s) if "$n" ne $s;
        return canon_int($s) ? $s : flt($n);
    }
    return str($s) if $s !~ /\A\s*[-+]?(?:\d+\.?\d*(?:[eE][-+]?\d+)?|\.\d+(?:[eE][-+]?\d+)?|Inf(?:inity)?|NaN)\s*\z/i;
    return canon_int($s) ? $s : $n == int($n) && abs($n) < 2**53 ? sprintf("%.0f", $n) : flt($n);
}
sub alt {
    my ($v, $t) = @_;
    my @alts = @{$t}[1 .. $#$t];
    my @want;
    if (ref $v eq "ARRAY") { @want = qw(list tuple vtuple set); }
    elsif (ref $v eq "HASH") { @want = qw(dict); }
    else {
        no warnings;
        my $s = "$v";
        @want = canon_int($s) ? qw(int float str bool) : "" . (0 + $s) eq $s ? qw(float str) : ($s eq "1" || $s eq "") ? qw(bool str) : qw(str);
    }
    for my $w (@want) { for my $a (@alts) { return $a if kind($a) eq $w; } }
    return "any";
}
sub enc {
    my ($v, $t) = @_;
    my $k = kind($t);
    return "null" if !defined $v;
    return enc($v, $t->[1]) if $k eq "optional";
    if ($k eq "union") { $t = alt($v, $t); $k = kind($t); }
    if ($k eq "int" || $k eq "float") { return num($v, $k); }
    if ($k eq "bool") {
        return bad($v) if ref $v;
        my $s = "$v";
        return $s eq "1" ? "true" : $s eq "" ? "false" : str($s) if $STRICT;
        return $v ? "true" : "false";
    }
    if ($k eq "str") { return ref $v ? bad($v) : str($v); }
    if ($k eq "none") { return bad($v); }
    if ($k eq "list" || $k eq "vtuple" || $k eq "set" || $k eq "tuple") {
        return bad($v) if ref $v ne "ARRAY";
        my @parts;
        for my $i (0 .. $#$v) { push @parts, enc($v->[$i], $k eq "tuple" ? ($t->[$i + 1] // "any") : $t->[1]); }
        return "[" . join(",", @parts) . "]";
    }
    if ($k eq "dict") {
        return bad($v) if ref $v ne "HASH";
        my $kk = kind($t->[1]);
        my @parts;
        for my $a (sort keys %$v) {
            my $key = ($kk eq "int" || $kk eq "float") && canon_int($a) ? $a : str($a);
            push @parts, "[" . $key . "," . enc($v->{$a}, $t->[2]) . "]";
        }
        return "[" . join(",", @parts) . "]";
    }
    return any($v);
}
sub any {
    my ($v) = @_;
    return "null" if !defined $v;
    return "[" . join(",", map { any($_) } @$v) . "]" if ref $v eq "ARRAY";
    return "[" . join(",", map { "[" . str($_) . "," . any($v->{$_}) . "]" } sort keys %$v) . "]" if ref $v eq "HASH";
    return bad($v) if ref $v;
    return canon_int("$v") ? "$v" : str($v);
}
sub run {
    my ($i, $f) = @_;
    my ($line, @r);
    local $@;
    if (eval { @r = $f->(); 1 }) {
        my $text = eval { @r > 1 ? ($STRICT ? bad(\@r) : enc([@r], $TYPE)) : enc($r[0], $TYPE) };
        $line = "$i v " . (defined $text ? $text : bad(undef));
    } else {
        my $err = $@;
        my $e = eval { "" . $err } // "died";
        $e =~ s/[\r\n]+/ /g;
        $line = "$i e " . substr($e, 0, 300);
    }
    syswrite($OUT, "$line\n");
}
}
__BIND__
__CASES__
syswrite($AssayCases::OUT, "done __COUNT__\n");
exit 0;
"""

_ASSERT = re.compile(r"(?m)^[ \t]*if\(eq_deeply\(")
_BIND = re.compile(r"(?m)^[ \t]*my \$candidate = \\&[A-Za-z_][\w:]*;[ \t]*$")
MAX_UV = 2**64


class Perl(Language):
    """Perl 5 with Test::Deep (Debian's perl and libtest-deep-perl)."""

    whole_floats_are_ints = True  # one number type: 3.0 is 3

    name = "perl"
    aliases = ("pl",)
    display = "Perl"
    multipl_e = "pl"
    stops = ("\nsub", "\n#", "\n\n")
    source = "main.pl"
    tools = ("perl",)
    version_args = ("--version",)
    install_hint = "apt-get install -y perl libtest-deep-perl"
    build = "{perl} -c main.pl"
    build_checks_only = True  # a syntax check: case runs skip it unless they fail before any case
    run = "{perl} main.pl"
    stub = '    die "stub\\n";\n}\n'
    limits: ClassVar[PhaseLimits] = PhaseLimits(processes=64)
    library_probe = ("perl", ("-MTest::Deep", "-e", "1"), "the Test::Deep module")  # every MultiPL-E test `use`s it

    def program(self, problem: Problem, code: str, marker: str) -> str:
        """The sample, then the tests; before a whole program's __END__/__DATA__ section, which would hide them."""
        return _before_data(code, self.wrap_tests(test_program(problem).code, marker))

    def wrap_tests(self, tests: str, marker: str) -> str:
        """The tests' `exit 1;` exits with ASSERT_EXIT; the marker is printed after the last test."""
        body = TEST_FAILED.sub(lambda m: m.group(1) + "assay_test_failed(__LINE__);", tests)
        return FAIL_SHIM + body + f'\nprint "\\n{marker}\\n";\n'

    # ------------------------------------------------------------ cases

    def test_calls(self, tests: str) -> list[tuple[str, str]] | None:
        """The `$candidate->(...)` of each `if(eq_deeply($candidate->(...),expected))` (strings may span lines)."""
        calls: list[tuple[str, str]] = []
        try:
            for match in _ASSERT.finditer(tests):
                at = match.end()
                if not tests.startswith("$candidate->(", at):
                    raise NotSplittable(f"no call at {at}")
                end = balanced(tests, at + len("$candidate->"))
                calls.append((tests[at:end], ""))
        except NotSplittable:
            return None
        return calls

    def render_value(self, value: Any, t: Type) -> str:
        """MultiPL-E's Perl literals: array refs for lists and tuples, hash refs for dicts, 1 and "" for booleans."""
        return perl_literal(value)

    def render_call(self, signature: Any, args: tuple[Any, ...]) -> str:
        """`$candidate->(a, b)`, as MultiPL-E's tests call the code ref."""
        rendered = [self.render_value(a, t) for a, t in zip(args, signature.param_types, strict=False)]
        return f"$candidate->({', '.join(rendered)})"

    def case_files(self, problem: Problem, code: str, calls: Sequence[str]) -> dict[str, bytes]:
        """The sample, then the harness, before a whole program's __END__/__DATA__ section."""
        tests = problem.tests
        assert isinstance(tests, CaseTests) and tests.signature is not None
        found = _BIND.search(test_program(problem).code)
        bind = found.group(0).strip() if found else f"my $candidate = \\&{problem.entry_point};"
        cases = numbered(calls, lambda i, call: f"AssayCases::run({i}, sub {{ {call} }});")
        harness = (CASE_HARNESS.replace("__TYPE__", descriptor_json(tests.signature.returns))
                   .replace("__STRICT__", "1" if tests.rule == "exact" else "0")
                   .replace("__BIND__", bind).replace("__CASES__", cases).replace("__COUNT__", str(len(calls))))
        return {self.source: _before_data(code, harness).encode()}

    def equal(self, actual: Any, expected: Any, t: Type, hint: str) -> bool:
        """Test::Deep's eq_deeply: scalars as Perl's strings of them, undef only undef, containers deeply."""
        return perl_equal(actual, expected)


def _before_data(code: str, tail: str) -> str:
    match = _DATA.search(code)
    if match:
        return code[: match.start()] + "\n" + tail + "\n" + code[match.start() :]
    return code + "\n" + tail


def perl_string_of(value: Any) -> str:
    """The string Perl makes of a plain scalar: numbers with 15 significant digits, True "1", False ""."""
    if isinstance(value, bool):
        return "1" if value else ""
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if math.isnan(value):
            return "NaN"
        if math.isinf(value):
            return "Inf" if value > 0 else "-Inf"
        return "0" if value == 0 else f"{value:.15g}"
    return str(value)


def perl_equal(a: Any, e: Any) -> bool:
    """eq_deeply on decoded values."""
    if a is None or e is None:
        return a is None and e is None
    if isinstance(e, (list, tuple)):
        return isinstance(a, (list, tuple)) and len(a) == len(e) and all(perl_equal(x, y) for x, y in zip(a, e, strict=False))
    if isinstance(e, dict):
        if not isinstance(a, dict):
            return False
        mine = {perl_string_of(k): v for k, v in a.items()}
        theirs = {perl_string_of(k): v for k, v in e.items()}
        return mine.keys() == theirs.keys() and all(perl_equal(mine[k], theirs[k]) for k in theirs)
    if isinstance(e, (set, frozenset)):
        return isinstance(a, (set, frozenset)) and {perl_string_of(x) for x in a} == {perl_string_of(x) for x in e}
    if isinstance(a, (list, tuple, dict, set, frozenset)):
        return False
    return perl_string_of(a) == perl_string_of(e)


def perl_string(s: str) -> str:
    """A double-quoted Perl string (MultiPL-E's form; `"`, `\\`, `$` and an `@` that would interpolate
    escaped, which it leaves: a bug)."""
    return '"' + re.sub(r'["\\$]|@(?=[\w{$:])', lambda m: "\\" + m.group(0), s) + '"'


def perl_literal(value: Any) -> str:
    """A Perl literal for a plain value (ints beyond 64 bits would be floats: refused)."""
    if value is None:
        return "undef"
    if isinstance(value, bool):
        return "1" if value else '""'
    if isinstance(value, int):
        if not -(2**63) <= value < MAX_UV:
            raise Unrepresentable(f"int beyond 64 bits: {value}")
        return str(value)
    if isinstance(value, float):
        if math.isnan(value):
            return '"NaN"'
        if math.isinf(value):
            return "9**9**9" if value > 0 else "-9**9**9"
        return repr(value)
    if isinstance(value, str):
        return perl_string(value)
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(perl_literal(v) for v in value) + "]"
    if isinstance(value, (set, frozenset)):
        return "[" + ", ".join(perl_literal(v) for v in sorted(value, key=repr)) + "]"
    if isinstance(value, dict):
        if not all(isinstance(k, (str, int, float)) for k in value):
            raise Unrepresentable(f"a dict key other than a string or a number: {value!r}"[:200])
        return "{" + ", ".join(f"{perl_literal(k)} => {perl_literal(v)}" for k, v in value.items()) + "}"
    raise Unrepresentable(f"{type(value).__name__} values: {value!r}"[:200])


_ = json  # the descriptor is JSON text, which Perl reads as an array ref literal
