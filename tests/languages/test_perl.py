"""Perl on MultiPL-E: correct programs pass, each kind of wrong one fails with the right status."""

from __future__ import annotations

from assay.problems import Status
from tests.languages._common import *  # the shared tests, run on SPEC
from tests.languages._common import LanguageSpec

SPEC = LanguageSpec(
    language="perl",
    bench="multipl-e/humaneval-pl",
    correct={
        "HumanEval_0_has_close_elements": (
            "    for my $i (0 .. $#$numbers) {\n        for my $j (0 .. $#$numbers) {\n"
            "            return 1 if $i != $j && abs($numbers->[$i] - $numbers->[$j]) < $threshold;\n"
            '        }\n    }\n    return "";\n}\n'
        ),
        "HumanEval_13_greatest_common_divisor": "    ($a, $b) = ($b, $a % $b) while $b;\n    return $a;\n}\n",
        "HumanEval_23_strlen": "    return length($string);\n}\n",
        "HumanEval_30_get_positive": "    return [grep { $_ > 0 } @$l];\n}\n",
    },
    wrong=[
        ("HumanEval_23_strlen", "    return length($string) + 1;\n}\n", Status.FAILED),  # wrong answer
        ("HumanEval_30_get_positive", "    return [grep { $_ >= 0 } @$l];\n}\n", Status.FAILED),
        ("HumanEval_23_strlen", "    return length($string;\n}\n", Status.COMPILE_ERROR),  # syntax error
        ("HumanEval_23_strlen", "    my $x;\n    return $x->method();\n}\n", Status.RUNTIME_ERROR),  # method call on undef
        ("HumanEval_13_greatest_common_divisor", "    return $a / 0;\n}\n", Status.RUNTIME_ERROR),  # division by zero
        ("HumanEval_23_strlen", '    $! = 97;\n    die "no\\n";\n}\n', Status.RUNTIME_ERROR),  # a die that would exit 97
        ("HumanEval_23_strlen", "    while (1) {}\n}\n", Status.TIMEOUT),
        ("HumanEval_23_strlen", '    print "tests passed\\n";\n    exit 0;\n}\n', Status.FAILED),  # early exit with status 0
    ],
    chat_reply=(
        "use strict;\nuse warnings;\n\n# Length of a string\nsub strlen {\n    my ($string) = @_;\n    return length($string);\n}\n\n"
        'print strlen("abc"), "\\n";\n\n__END__\n\n=head1 strlen\n\nReturns the length.\n'
    ),
    hostile_write=lambda target: f'    if (open(my $fh, ">", "{target}")) {{ print $fh "x"; close($fh); }}\n    return length($string);\n}}\n',
    floods=('    while (1) { print "x" x 1000, "\\n"; }\n}\n',),
)
