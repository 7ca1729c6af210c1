"""Ruby on MultiPL-E: correct programs pass, each kind of wrong one fails with the right status."""

from __future__ import annotations

from assay.problems import Status
from tests.languages._common import *  # the shared tests, run on SPEC
from tests.languages._common import LanguageSpec

STRLEN = "HumanEval_23_strlen"

SPEC = LanguageSpec(
    language="ruby",
    bench="multipl-e/humaneval-rb",
    correct={
        "HumanEval_0_has_close_elements": "  numbers.combination(2).any? { |a, b| (a - b).abs < threshold }\nend\n",
        "HumanEval_13_greatest_common_divisor": "  a.gcd(b)\nend\n",
        STRLEN: "  string.length\nend\n",
        "HumanEval_30_get_positive": "  l.select { |x| x > 0 }\nend\n",
        "HumanEval_8_sum_product": "  [numbers.sum, numbers.reduce(1, :*)]\nend\n",
    },
    wrong=[
        (STRLEN, "  string.length + 1\nend\n", Status.FAILED),  # wrong answer
        ("HumanEval_30_get_positive", "  l.select { |x| x >= 0 }\nend\n", Status.FAILED),
        (STRLEN, "  string.length\n", Status.COMPILE_ERROR),  # missing `end`
        (STRLEN, "  nil.length\nend\n", Status.RUNTIME_ERROR),  # NoMethodError on nil
        ("HumanEval_30_get_positive", "  l.fetch(l.length)\nend\n", Status.RUNTIME_ERROR),  # IndexError
        (STRLEN, "  loop {}\nend\n", Status.TIMEOUT),
        (STRLEN, '  puts "tests passed"\n  exit 0\nend\n', Status.FAILED),  # early exit with status 0
        (STRLEN, "  string.length == 0\nend\n", Status.FAILED),  # true is not 0 for Ruby's ==
        ("HumanEval_30_get_positive", "  l.select { |x| x > 0 }.map(&:to_s)\nend\n", Status.FAILED),  # "1" is not 1
    ],
    chat_reply="# Length of a string\ndef strlen(string)\n  string.length\nend\n\nif __FILE__ == $0\n  puts strlen('abc')\nend\n",
    hostile_write=lambda target: f'  File.write("{target}", "x") rescue nil\n  string.length\nend\n',
    floods=('  loop { puts "x" * 1000 }\nend\n',),
    hostile={
        # the old completion marker, looked for in its own source, printed, then exit 0
        "marker from source": (STRLEN, '  File.read(__FILE__).scan(/ASSAY[-_A-Za-z0-9]*/) { |m| puts m }\n  exit!(0)\nend\n'),
        "early exit": (STRLEN, "  exit 0\nend\n"),
        # records of its own on fd 3, every case "right" as far as it can guess, and the done line
        "forged records": (STRLEN, '  out = IO.for_fd(3, "w")\n  3.times { |i| out.syswrite("#{i} v 3\\n") }\n'
                                   '  out.syswrite("done 3\\n")\n  exit!(0)\nend\n'),
        # the harness's writes swallowed (IO#syswrite patched), then a done line at exit
        "silenced channel": (STRLEN, "  unless $assay_patched\n    $assay_patched = true\n    IO.prepend(Module.new { def syswrite(s) = fileno == 3 ? s.size : super })\n"
                                     '    at_exit { IO.for_fd(3, "w").write("done 3\\n") }\n  end\n  3\nend\n'),
        # an object equal to everything, test-unit's assert_equal and Integer#== made to agree with anything
        "always equal": (STRLEN, "  require 'test/unit'\n  Test::Unit::Assertions.define_method(:assert_equal) { |*| true }\n"
                                 "  Integer.define_method(:==) { |*| true }\n  o = Object.new\n  def o.==(*) = true\n  o\nend\n"),
        "equal integer": (STRLEN, "  Integer.define_method(:==) { |*| true }\n  Integer.define_method(:to_s) { |*| '0' }\n  -1\nend\n"),
        # exit! stubbed, so that the harness could not end the run, and the process told to exit 0 at_exit
        "stubbed exit": (STRLEN, "  Kernel.define_method(:exit!) { |*| nil }\n  Object.define_method(:exit!) { |*| nil }\n  -1\nend\n"),
        # a BEGIN block runs before the harness: records guessed from the prompt's examples and done, then exit
        "BEGIN block": (STRLEN, '  -1\nend\nBEGIN {\n  o = IO.for_fd(3, "w")\n  o.syswrite("0 v 0\\n1 v 3\\n2 v 3\\ndone 3\\n")\n  exit!(0)\n}\ndef assay_unused\n  nil\nend\n'),
        # the parent's descriptors through pidfd_open/pidfd_getfd, then a forged status on each
        "pidfd": (STRLEN, "  pid = syscall(434, Process.ppid, 0) rescue -1\n"
                          "  (3..20).each { |fd| n = (syscall(438, pid, fd, 0) rescue -1); IO.for_fd(n).syswrite(\"done 3\\n0\\n\") rescue nil if n >= 0 } if pid >= 0\n"
                          "  exit!(0)\nend\n"),
        "sleeps": (STRLEN, "  sleep 600\n  string.length\nend\n"),
    },
    hostile_status={"sleeps": Status.TIMEOUT, "forged records": Status.FAILED, "early exit": Status.FAILED},
    render_agreement=0.995,  # 2353/2360: MultiPL-E leaves `"` and `#$` unescaped in strings
)
