"""Perl: `perl -c` checks the syntax (a syntax error is a compile error), then `perl main.pl` runs it, as MultiPL-E does.

`perl -c` compiles the program, which also runs its BEGIN blocks and `use` imports: it does so inside
the sandbox, like the run. MultiPL-E's Perl tests compare with Test::Deep's `eq_deeply` and `exit 1;`
on a mismatch; that exact statement is routed to a function that exits with ASSERT_EXIT. An END block
keeps any other exit with that status (a `die` whose $! happens to be 97) a runtime error.
Test::Deep is Debian's libtest-deep-perl package.
"""

from __future__ import annotations

import re
from typing import ClassVar

from assay.languages.base import ASSERT_EXIT, Language, RunLimits
from assay.problems import Problem, test_program

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


class Perl(Language):
    """Perl 5 with Test::Deep (Debian's perl and libtest-deep-perl)."""

    name = "perl"
    aliases = ("pl",)
    display = "Perl"
    source = "main.pl"
    tools = ("perl",)
    version_args = ("--version",)
    install_hint = "apt-get install -y perl libtest-deep-perl"
    build = "{perl} -c main.pl"
    run = "{perl} main.pl"
    stub = '    die "stub\\n";\n}\n'
    limits: ClassVar[RunLimits] = RunLimits(processes=64)
    library_probe = ("perl", ("-MTest::Deep", "-e", "1"), "the Test::Deep module")  # every MultiPL-E test `use`s it

    def program(self, problem: Problem, code: str, marker: str) -> str:
        """The sample, then the tests; before a whole program's __END__/__DATA__ section, which would hide them."""
        tests = self.wrap_tests(test_program(problem).code, marker)
        match = _DATA.search(code)
        if match:
            return code[: match.start()] + "\n" + tests + "\n" + code[match.start() :]
        return code + "\n" + tests

    def wrap_tests(self, tests: str, marker: str) -> str:
        """The tests' `exit 1;` exits with ASSERT_EXIT; the marker is printed after the last test."""
        body = TEST_FAILED.sub(lambda m: m.group(1) + "assay_test_failed(__LINE__);", tests)
        return FAIL_SHIM + body + f'\nprint "\\n{marker}\\n";\n'
