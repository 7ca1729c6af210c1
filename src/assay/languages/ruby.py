"""Ruby: `ruby -c` checks the syntax (a syntax error is a compile error), then `ruby main.rb` runs it, as MultiPL-E does.

MultiPL-E's Ruby tests are a Test::Unit::TestCase of `assert_equal(expected, candidate.call(...))`s.
Judged as cases, the program is the sample followed by a harness that binds `candidate` as the tests
do (`candidate = method(:name)`), runs each call in order and writes its result, encoded at the
declared result type, to fd 3 (assay.judging.records); an exception the call raises is that case's
error record (what test-unit counts as an error), an `exit` ends the program as it does under test-unit.

Equality: test-unit's assert_equal is Ruby's `==`, which agrees with Python's on the decoded values
(1 == 1.0, NaN unequal to itself, hashes unordered), so `equal` is the plain one. Where Ruby's `==`
is stricter than Python's, the harness refuses the value (writes a record that does not decode):
true is not 1, a Symbol is not a String, a Set is not an Array, under MultiPL-E's own (exact) rule.

The test-program path (a problem judged as a program) keeps MultiPL-E's suite: the auto-run is
turned off and the suite is run here, a failed assertion exits with ASSERT_EXIT, an error with 1,
and only a passing run prints the completion marker.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from typing import Any, ClassVar

from assay.languages.base import ASSERT_EXIT, Language, PhaseLimits, Unrepresentable
from assay.languages.harness import NotSplittable, balanced, descriptor_json, numbered
from assay.problems import CaseTests, Problem, test_program
from assay.values import Type

# Runs after the tests' TestCase is defined. The TestResult of the run is captured by a prepended
# initializer (AutoRunner.run only says passed or not).
RUNNER = """
module AssayTestUnit
  class << self
    attr_accessor :result
  end

  module Capture
    def initialize(*args, &block)
      super
      AssayTestUnit.result = self
    end
  end
end
require "test/unit/testresult"
Test::Unit::TestResult.prepend(AssayTestUnit::Capture)
Test::Unit::AutoRunner.need_auto_run = false
assay_passed = Test::Unit::AutoRunner.run
assay_result = AssayTestUnit.result
if assay_result.nil? || !assay_passed
  $stdout.flush
  $stderr.flush
  exit!(1) if assay_result.nil? || assay_result.error_count > 0
  exit!({assert_exit}) if assay_result.failure_count > 0
  exit!(1)
end
$stdout.flush
puts
puts "{marker}"
$stdout.flush
"""

# The case harness. Each result is encoded under the declared type (a descriptor: "int", or
# [kind, *args]); what Ruby's == could never find equal to a value of that type is written as a JSON
# object, which decodes as nothing (a failed case). Exceptions test-unit lets through end the run.
CASE_HARNESS = r"""
module AssayCases
  OUT = IO.for_fd(3, "w")
  OUT.sync = true
  TYPE = __TYPE__
  STRICT = __STRICT__

  def self.bad(v)
    '{"unexpected": ' + str(v.class.name.to_s) + '}'
  end

  def self.kind(t)
    t.is_a?(Array) ? t[0] : t
  end

  def self.str(s)
    b = s.to_s.b
    '"' + b.gsub(/[\x00-\x1f"\\\x7f]/n) { |c| c == '"' ? '\\"' : c == '\\' ? '\\\\' : format('\\u%04x', c.ord) } + '"'
  end

  def self.float(v)
    return "NaN" if v.nan?
    return (v > 0 ? "Infinity" : "-Infinity") if v.infinite?
    v.to_s
  end

  def self.number(v, k)
    return v.to_s if v.is_a?(Integer)
    return float(v) if v.is_a?(Float)
    return bad(v) unless v.is_a?(Numeric) && v.real?
    k == "int" && v == v.to_i ? v.to_i.to_s : float(v.to_f)
  end

  def self.alt(v, t)
    want = case v
           when Array then %w[list tuple vtuple set]
           when Hash then %w[dict]
           when Integer then %w[int float]
           when Numeric then %w[float int]
           when String, Symbol then %w[str]
           when true, false then %w[bool]
           else []
           end
    want.each { |w| t[1..].each { |a| return a if kind(a) == w } }
    "any"
  end

  def self.enc(v, t)
    k = kind(t)
    return "null" if v.nil?
    return enc(v, t[1]) if k == "optional"
    if k == "union"
      t = alt(v, t)
      k = kind(t)
    end
    case k
    when "int", "float"
      return bad(v) if true.equal?(v) || false.equal?(v)
      number(v, k)
    when "bool"
      true.equal?(v) ? "true" : false.equal?(v) ? "false" : bad(v)
    when "str"
      return str(v) if v.is_a?(String)
      STRICT || !v.is_a?(Symbol) ? bad(v) : str(v)
    when "none"
      bad(v)
    when "list", "vtuple", "tuple", "set"
      items = if v.is_a?(Array) then v
              elsif !STRICT && v.respond_to?(:to_a) && !v.is_a?(Hash) then v.to_a
              elsif k == "set" && defined?(::Set) && v.is_a?(::Set) then v.to_a
              else return bad(v)
              end
      "[" + items.each_with_index.map { |x, i| enc(x, k == "tuple" ? (t[i + 1] || "any") : t[1]) }.join(",") + "]"
    when "dict"
      return bad(v) unless v.is_a?(Hash)
      "[" + v.map { |a, b| "[" + enc(a, t[1]) + "," + enc(b, t[2]) + "]" }.join(",") + "]"
    else
      any(v)
    end
  end

  def self.any(v)
    case v
    when nil then "null"
    when true then "true"
    when false then "false"
    when Integer, Float then number(v, "float")
    when String, Symbol then str(v)
    when Array then "[" + v.map { |x| any(x) }.join(",") + "]"
    when Hash then "[" + v.map { |a, b| "[" + any(a) + "," + any(b) + "]" }.join(",") + "]"
    else bad(v)
    end
  end

  def self.run(i)
    line = begin
      "#{i} v #{enc(yield, TYPE)}"
    rescue NoMemoryError, SignalException, SystemExit
      raise
    rescue Exception => e
      m = begin
        "#{e.class}: #{e.message}"
      rescue Exception
        "an exception"
      end
      "#{i} e " + m.b.gsub(/[\r\n]+/n, " ")[0, 300]
    end
    OUT.syswrite(line.b + "\n")
  end
end
__BIND__
__CASES__
AssayCases::OUT.syswrite("done __COUNT__\n")
exit!(0)
"""

_ASSERT = re.compile(r"(?m)^[ \t]*assert_equal\(")
_BIND = re.compile(r"(?m)^[ \t]*candidate = method\(:[A-Za-z_]\w*[?!]?\)[ \t]*$")


class Ruby(Language):
    """Ruby 3 with its bundled test-unit gem (Debian's ruby)."""

    name = "ruby"
    aliases = ("rb",)
    display = "Ruby"
    multipl_e = "rb"
    stops = ("\nclass", "\ndef", "\n#", "\n\n")
    source = "main.rb"
    tools = ("ruby",)
    version_args = ("--version",)
    install_hint = "apt-get install -y ruby"
    build = "{ruby} -c main.rb"
    build_checks_only = True  # a syntax check: case runs skip it unless they fail before any case
    run = "{ruby} main.rb"
    stub = '  raise "assay canary stub"\nend\n'
    limits: ClassVar[PhaseLimits] = PhaseLimits(processes=64)

    def wrap_tests(self, tests: str, marker: str) -> str:
        """The tests as written, then a runner that maps failures to ASSERT_EXIT and prints the marker."""
        return tests + "\n" + RUNNER.replace("{assert_exit}", str(ASSERT_EXIT)).replace("{marker}", marker)

    # ------------------------------------------------------------ cases

    def test_calls(self, tests: str) -> list[tuple[str, str]] | None:
        """The `candidate.call(...)` of each `assert_equal(expected, candidate.call(...))` (strings may span lines)."""
        calls: list[tuple[str, str]] = []
        try:
            for match in _ASSERT.finditer(tests):
                close = balanced(tests, match.end() - 1)  # the whole assertion, its strings may hold newlines
                at = _outside_strings(tests[:close], match.end(), "candidate.call(")
                end = balanced(tests, at + len("candidate.call"))
                calls.append((tests[at:end], ""))
        except NotSplittable:
            return None
        return calls

    def render_value(self, value: Any, t: Type) -> str:
        """MultiPL-E's Ruby literals (arrays for lists and tuples, `=>` hashes, nil), strings escaped."""
        return rb_literal(value)

    def render_call(self, signature: Any, args: tuple[Any, ...]) -> str:
        """`candidate.call(a, b)`, as MultiPL-E's tests call the method object."""
        rendered = [self.render_value(a, t) for a, t in zip(args, signature.param_types, strict=False)]
        return f"candidate.call({', '.join(rendered)})"

    def case_files(self, problem: Problem, code: str, calls: Sequence[str]) -> dict[str, bytes]:
        """The sample, then the harness: `candidate` bound as the tests bind it, each call's result to fd 3."""
        tests = problem.tests
        assert isinstance(tests, CaseTests) and tests.signature is not None
        found = _BIND.search(test_program(problem).code)
        bind = found.group(0).strip() if found else f"candidate = method(:{problem.entry_point})"
        cases = numbered(calls, lambda i, call: f"AssayCases.run({i}) {{ {call} }}")
        harness = (CASE_HARNESS.replace("__TYPE__", descriptor_json(tests.signature.returns))
                   .replace("__STRICT__", "true" if tests.rule == "exact" else "false")
                   .replace("__BIND__", bind).replace("__CASES__", cases).replace("__COUNT__", str(len(calls))))
        return {self.source: (code + "\n" + harness).encode()}


def _outside_strings(text: str, start: int, needle: str) -> int:
    """Index of the first `needle` at or after start that is not inside a string literal."""
    i, n = start, len(text)
    while i < n:
        if text.startswith(needle, i):
            return i
        ch = text[i]
        if ch in "\"'":
            j = i + 1
            while j < n and text[j] != ch:
                j += 2 if text[j] == "\\" else 1
            i = j + 1
            continue
        i += 1
    raise NotSplittable(f"no {needle!r} after {start}")


def rb_literal(value: Any) -> str:
    """A Ruby literal for a plain value (MultiPL-E writes strings in double quotes, unescaped: here escaped)."""
    if value is None:
        return "nil"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if math.isnan(value):
            return "Float::NAN"
        if math.isinf(value):
            return "Float::INFINITY" if value > 0 else "-Float::INFINITY"
        return repr(value)
    if isinstance(value, str):
        return '"' + re.sub(r'["\\]|#(?=[{$@])', lambda m: "\\" + m.group(0), value) + '"'
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(rb_literal(v) for v in value) + "]"
    if isinstance(value, (set, frozenset)):
        return "Set[" + ", ".join(rb_literal(v) for v in sorted(value, key=repr)) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{rb_literal(k)} => {rb_literal(v)}" for k, v in value.items()) + "}"
    raise Unrepresentable(f"{type(value).__name__} values: {value!r}"[:200])
