"""Perl on MultiPL-E: correct programs pass, each kind of wrong one fails with the right status."""

from __future__ import annotations

from assay.problems import Status
from tests.languages._common import *  # the shared tests, run on SPEC
from tests.languages._common import STRLEN, LanguageSpec

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
        ("HumanEval_23_strlen", '    return length($string) . ".0";\n}\n', Status.FAILED),  # "3.0" ne "3"
        ("HumanEval_0_has_close_elements", "    return 0;\n}\n", Status.FAILED),  # 0 ne "": not Perl's false for eq_deeply
        ("HumanEval_30_get_positive", "    return grep { $_ > 0 } @$l;\n}\n", Status.FAILED),  # a list, not an array ref
    ],
    chat_reply=(
        "use strict;\nuse warnings;\n\n# Length of a string\nsub strlen {\n    my ($string) = @_;\n    return length($string);\n}\n\n"
        'print strlen("abc"), "\\n";\n\n__END__\n\n=head1 strlen\n\nReturns the length.\n'
    ),
    hostile_write=lambda target: f'    if (open(my $fh, ">", "{target}")) {{ print $fh "x"; close($fh); }}\n    return length($string);\n}}\n',
    floods=('    while (1) { print "x" x 1000, "\\n"; }\n}\n',),
    hostile={
        # the old completion marker, looked for in its own source, printed, then exit 0
        "marker from source": (STRLEN, '    open(my $fh, "<", $0) or die;\n    local $/;\n    my $src = <$fh>;\n'
                                       '    print "$_\\n" for $src =~ /(ASSAY[-_A-Za-z0-9]*)/g;\n    exit 0;\n}\n'),
        "early exit": (STRLEN, "    exit 0;\n}\n"),
        # records of its own on fd 3, guessed from the prompt's examples, and the done line
        "forged records": (STRLEN, '    open(my $o, ">&=", 3) or die;\n    syswrite($o, "0 v 0\\n1 v 3\\n2 v 3\\ndone 3\\n");\n    exit 0;\n}\n'),
        # a BEGIN block: at build time (`perl -c`) fd 3 is closed; at run time it forges records before the harness
        "BEGIN block": (STRLEN, '    return -1;\n}\nBEGIN {\n    if (open(my $o, ">&=", 3)) { syswrite($o, "0 v 0\\n1 v 3\\n2 v 3\\ndone 3\\n"); exit 0; }\n}\n'),
        # exit stubbed through CORE::GLOBAL, and an END block that writes a done line
        "stubbed exit": (STRLEN, '    return -1;\n}\nBEGIN { *CORE::GLOBAL::exit = sub { 1 }; }\n'
                                 'END { if (open(my $o, ">&=", 3)) { syswrite($o, "done 3\\n"); } }\n'),
        # an object that is equal to and the string of anything, and eq_deeply made to agree with anything
        "always equal": (STRLEN, "    no warnings;\n    require Test::Deep;\n    *Test::Deep::eq_deeply = sub { 1 };\n    *main::eq_deeply = sub { 1 };\n"
                                 "    return bless {}, 'Assay::Same';\n}\npackage Assay::Same;\n"
                                 "use overload q(\"\") => sub { 0 }, q(eq) => sub { 1 }, q(==) => sub { 1 }, bool => sub { 1 }, q(0+) => sub { 0 };\n"
                                 "package main;\n"),
        # the harness's own encoder replaced at run time, answering what the prompt's examples suggest
        "harness replaced": (STRLEN, "    no warnings;\n    *AssayCases::enc = sub { 3 };\n    return -1;\n}\n"),
        # the parent's descriptors through pidfd_open/pidfd_getfd, a forged done on each
        "pidfd": (STRLEN, "    my $pidfd = syscall(434, getppid(), 0);\n    for my $fd (0 .. 15) {\n"
                          "        my $n = $pidfd >= 0 ? syscall(438, $pidfd, $fd, 0) : -1;\n"
                          '        if ($n >= 0 && open(my $o, ">&=", $n)) { syswrite($o, "done 3\\n0\\n"); }\n    }\n    exit 0;\n}\n'),
        "sleeps": (STRLEN, "    sleep 600;\n    return length($string);\n}\n"),
    },
    hostile_status={"sleeps": Status.TIMEOUT, "forged records": Status.FAILED, "early exit": Status.FAILED},
    round_trip_skip={"mbpp_237_check_occurences": "a Perl hash cannot have arrays as keys"},
    render_agreement=0.99,  # 2346/2357: MultiPL-E leaves `"`, `$` and `@` unescaped in strings
)


def test_scalars_compare_as_perl_strings() -> None:
    from assay.languages.perl import perl_equal

    assert perl_equal(0.1 + 0.2, 0.3) and perl_equal("1", 1) and perl_equal(True, 1) and perl_equal(False, "")
    assert not perl_equal(0, "") and not perl_equal(None, "") and not perl_equal(1e20, 100000000000000000001)
    assert perl_equal({1: [1.0, "x"]}, {"1": [1, "x"]}) and not perl_equal([1], [1, 2])
