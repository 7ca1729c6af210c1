"""PHP: `php -l` checks the syntax (a parse error is a compile error), then `php main.php` runs it, as MultiPL-E does.

MultiPL-E's PHP tests are `if (candidate(...) !== expected) { throw new Exception("Test failed!"); }`
inside a `test()` function. That exact throw is routed to a function that exits with ASSERT_EXIT, so a
wrong answer is told apart from the program's own uncaught exceptions and fatal errors (exit 255).
Debian's CLI configuration (/etc/php: its conf.d loads ctype, iconv, tokenizer...) is shown
to the sandbox, so programs see the same extensions as `php` outside it.
"""

from __future__ import annotations

import re
from typing import ClassVar

from assay.languages.base import ASSERT_EXIT, Language, RunLimits
from assay.problems import Problem, test_program

TEST_FAILED = 'throw new Exception("Test failed!");'
FAIL_CALL = "assay_test_failed(__LINE__);"
FAIL_SHIM = f"""
function assay_test_failed(int $line): void {{
    fwrite(STDERR, "assertion failed: test on line $line\\n");
    exit({ASSERT_EXIT});
}}
"""


class Php(Language):
    """PHP 8 CLI (Debian's php-cli)."""

    name = "php"
    display = "PHP"
    source = "main.php"
    tools = ("php",)
    version_args = ("--version",)
    install_hint = "apt-get install -y php-cli"
    build = "{php} -l main.php"
    run = "{php} main.php"
    stub = '    throw new Exception("stub");\n}\n'
    limits: ClassVar[RunLimits] = RunLimits(processes=64)
    config_dirs = ("/etc/php",)  # Debian's php.ini and the conf.d that loads its shared extensions

    def program(self, problem: Problem, code: str, marker: str) -> str:
        """The sample in PHP mode (a whole program may close its `<?php` block with `?>`), then the tests."""
        return php_mode(code) + "\n" + self.wrap_tests(test_program(problem).code, marker)

    def wrap_tests(self, tests: str, marker: str) -> str:
        """The tests' failed-test throw exits with ASSERT_EXIT; the marker is printed after `test();`."""
        return FAIL_SHIM + tests.replace(TEST_FAILED, FAIL_CALL) + f'\necho PHP_EOL, "{marker}", PHP_EOL;\n'


_OPEN = re.compile(r"<\?php\b", re.IGNORECASE)


def php_mode(code: str) -> str:
    """The code, ending in PHP mode: an opening tag if it has none, a final `?>` dropped (tests follow it)."""
    if not _OPEN.search(code):
        code = "<?php\n" + code
    stripped = code.rstrip()
    return stripped[:-2] if stripped.endswith("?>") else code
