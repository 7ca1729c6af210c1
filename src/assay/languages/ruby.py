"""Ruby: `ruby -c` checks the syntax (a syntax error is a compile error), then `ruby main.rb` runs it, as MultiPL-E does.

MultiPL-E's Ruby tests are a Test::Unit::TestCase of `assert_equal`s, which test-unit runs at exit and
ends with status 1 for failures and errors alike. The test section turns that auto-run off and runs
the suite itself: a failed assertion exits with ASSERT_EXIT, an error (an exception the program
raised) with 1, and only a passing run prints the completion marker. `exit` inside the program still
ends it at once (test-unit lets SystemExit through), so an early `exit 0` prints no marker.
"""

from __future__ import annotations

from typing import ClassVar

from assay.languages.base import ASSERT_EXIT, Language, RunLimits

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


class Ruby(Language):
    """Ruby 3 with its bundled test-unit gem (Debian's ruby)."""

    name = "ruby"
    aliases = ("rb",)
    display = "Ruby"
    source = "main.rb"
    tools = ("ruby",)
    version_args = ("--version",)
    install_hint = "apt-get install -y ruby"
    build = "{ruby} -c main.rb"
    run = "{ruby} main.rb"
    stub = '  raise "assay canary stub"\nend\n'
    limits: ClassVar[RunLimits] = RunLimits(processes=64)

    def wrap_tests(self, tests: str, marker: str) -> str:
        """The tests as written, then a runner that maps failures to ASSERT_EXIT and prints the marker."""
        return tests + "\n" + RUNNER.replace("{assert_exit}", str(ASSERT_EXIT)).replace("{marker}", marker)
