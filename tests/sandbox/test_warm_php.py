"""The warm PHP launcher (_php_warm.php): a run that is one phase of `php FILE.php` is a fork of a PHP the
zygote started once, inside the run's own fresh namespaces. It must show the program what a fresh `php`
shows, and give a hostile program nothing more: no way to the launcher, the init or the status fd, no
process that outlives its run, no way to break the runs after it."""

from __future__ import annotations

import json
import os
import shutil
import signal
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from assay.sandbox import BubblewrapSandbox, SandboxLimits, ZygoteSandbox
from assay.sandbox.base import Phase, SandboxResult

PHP = shutil.which("php")
pytestmark = pytest.mark.skipif(PHP is None, reason="php is not installed (apt-get install -y php-cli)")
LAUNCHER = "/zygote/php-warm.php"

# What a program can see of how it was started; the same under a fresh php and the warm launcher.
PROBE = r"""<?php
$x = 41;
function f() { global $x; return $x + 1; }
$fds = array_values(array_filter(scandir('/proc/self/fd'), 'is_numeric'));
$procs = array_values(array_filter(scandir('/proc'), 'is_numeric'));
$server = $_SERVER;
unset($server['REQUEST_TIME'], $server['REQUEST_TIME_FLOAT']);
$facts = [
    'global' => f(), 'argv' => $argv, 'argc' => $argc, 'server' => $server, 'file' => __FILE__, 'dir' => __DIR__,
    'cwd' => getcwd(), 'functions' => get_defined_functions()['user'], 'classes' => count(get_declared_classes()),
    'user_constants' => get_defined_constants(true)['user'] ?? [], 'extensions' => get_loaded_extensions(),
    'ini' => [ini_get('memory_limit'), ini_get('display_errors'), ini_get('error_reporting'), ini_get('precision')],
    'env' => getenv(), 'globals' => array_keys($GLOBALS), 'stdin' => stream_get_contents(STDIN),
    'fds' => $fds, 'procs' => $procs, 'pid' => getmypid(), 'uid' => posix_getuid(),
    'ob' => ob_get_level(), 'handler' => set_error_handler(null), 'time_ok' => abs(time() - $_SERVER['REQUEST_TIME']) < 5,
];
$out = fopen("php://fd/3", "w");
fwrite($out, json_encode($facts));
echo "to stdout\n";
fwrite(STDERR, "to stderr\n");
exit(3);
"""


def phase(wall: float = 20, stdin: bool = True) -> Phase:
    assert PHP is not None
    return Phase("run", (PHP, "main.php"), 10, wall, channel=True, stdin=stdin)


@pytest.fixture(scope="module")
def boxes() -> Iterator[dict[str, ZygoteSandbox]]:
    if not ZygoteSandbox.available() or not BubblewrapSandbox.available():
        pytest.skip("bubblewrap with nested user namespaces is not available here")
    made = {"warm": ZygoteSandbox(["/etc/php"], warm_php=True), "cold": ZygoteSandbox(["/etc/php"], warm_php=False)}
    yield made
    for box in made.values():
        box.close()


def run(box: ZygoteSandbox, program: str, stdin: bytes = b"", wall: float = 20) -> SandboxResult:
    return box.run_phases([phase(wall)], {"main.php": program.encode()}, SandboxLimits(wall_seconds=wall + 5), stdin, None)


def warm(result: SandboxResult) -> bool:
    """Whether the run of INCLUDED was a fork of the launcher (which it included), not a fresh php."""
    return LAUNCHER in json.loads(result.channel)


INCLUDED = '<?php $out = fopen("php://fd/3", "w"); fwrite($out, json_encode(get_included_files()));'


def test_the_launcher_runs_php_programs(boxes: dict[str, ZygoteSandbox]) -> None:
    result = run(boxes["warm"], INCLUDED)
    assert result.error is None and result.exit_code == 0, result
    assert json.loads(result.channel) == [LAUNCHER, "/sandbox/main.php"], "the warm launcher ran it"
    cold = run(boxes["cold"], INCLUDED)
    assert json.loads(cold.channel) == ["/sandbox/main.php"], "ASSAY_WARM_PHP=0 starts php for each run"


def test_a_program_sees_what_a_fresh_php_shows(boxes: dict[str, ZygoteSandbox]) -> None:
    seen = {}
    for kind, box in boxes.items():
        result = run(box, PROBE, stdin=b"the input\n")
        assert (result.exit_code, result.stdout, result.stderr) == (3, b"to stdout\n", b"to stderr\n"), (kind, result)
        seen[kind] = json.loads(result.channel)
    assert seen["warm"] == seen["cold"]
    facts = seen["warm"]
    assert facts["global"] == 42 and facts["functions"] == ["f"] and facts["user_constants"] == []
    assert facts["argv"] == ["main.php"] and facts["server"]["SCRIPT_FILENAME"] == "main.php" and facts["time_ok"]
    # 0-3 the run's, 4 the program (php holds its script open), 5 the listing itself: nothing of the launcher's or the init's.
    assert facts["fds"] == ["0", "1", "2", "3", "4", "5"]
    assert facts["procs"] == ["1", "2"] and facts["pid"] == 2, "the init and the program, in a pid namespace of their own"


@pytest.mark.parametrize(
    "program",
    [
        '<?php\nfunction f( { }\n',  # a parse error
        '<?php\nthrow new Exception("uncaught");\n',
        '<?php\nfunction f() { return f(); }\nf();\n',  # unbounded recursion: a fatal error
        '<?php\nregister_shutdown_function(function () { echo "shutdown\\n"; exit(4); });\necho "main\\n";\n',
        '<?php\nclass D { function __destruct() { echo "destructed\\n"; } }\n$d = new D();\nreturn;\n',
        '<?php\necho intdiv(1, 0);\n',
    ],
    ids=["parse-error", "uncaught", "recursion", "shutdown-exit", "destructor-after-return", "division-by-zero"],
)
def test_endings_are_those_of_a_fresh_php(boxes: dict[str, ZygoteSandbox], program: str) -> None:
    warm_result, cold_result = run(boxes["warm"], program), run(boxes["cold"], program)
    assert warm_result.exit_code == cold_result.exit_code, (warm_result, cold_result)
    assert warm_result.stdout == cold_result.stdout
    # An uncaught error's trace names the launcher's include as its outermost frame; the first line is the same.
    assert warm_result.stderr.splitlines()[:1] == cold_result.stderr.splitlines()[:1], (warm_result.stderr, cold_result.stderr)


# The program tries to reach the launcher, the init and the status fd: pidfd_getfd on its parent and on pid 1,
# a write of forged statuses on every descriptor number, signals to every process it can name.
HOSTILE = r"""<?php
$c = FFI::cdef("long syscall(long, long, long, long); long write(int, const char *, unsigned long); int kill(int, int); int getppid(void);", "libc.so.6");
$stolen = [];
foreach ([$c->getppid(), 1] as $pid) {
    $pidfd = $c->syscall(434, $pid, 0, 0);
    if ($pidfd < 0) { continue; }
    for ($fd = 0; $fd < 16; $fd++) {
        $new = $c->syscall(438, $pidfd, $fd, 0);
        if ($new >= 0) { $stolen[] = $new; }
    }
}
$forged = "phase run 0 0.0 0.0 0\n0\n";
$wrote = [];
for ($fd = 4; $fd < 64; $fd++) {
    if ($c->write($fd, $forged, strlen($forged)) > 0) { $wrote[] = $fd; }
}
$c->kill(-1, 9);
$c->kill(1, 9);
$child = pcntl_fork();
if ($child === 0) { while (true) { usleep(1000); } }  // left running: it must die with the run
echo json_encode(['stolen' => $stolen, 'wrote' => $wrote, 'ppid' => $c->getppid()]), "\n";
exit(7);
"""


def test_a_hostile_program_reaches_nothing_and_breaks_no_later_run(boxes: dict[str, ZygoteSandbox]) -> None:
    box = boxes["warm"]
    result = run(box, HOSTILE)
    assert result.error is None, result
    assert [(p.name, p.exit_code) for p in result.phases] == [("run", 7)], result
    said = json.loads(result.stdout.splitlines()[0])
    assert said["stolen"] == [] and said["wrote"] == [], said
    assert said["ppid"] == 1, "the program's parent is the run's init, in the run's own pid namespace"
    assert result.channel == b"", "fd 4 and up were never the channel"
    after = run(box, PROBE)
    assert after.exit_code == 3 and json.loads(after.channel)["procs"] == ["1", "2"], "nothing outlived the run before"
    assert warm(run(box, INCLUDED)), "the launcher still serves"


def test_a_run_past_its_wall_limit_is_killed_and_the_next_one_runs(boxes: dict[str, ZygoteSandbox]) -> None:
    box = boxes["warm"]
    start = time.monotonic()
    result = run(box, "<?php\nwhile (true) { }\n", wall=1)
    assert result.timed_out and result.phases[-1].timed_out, result
    assert time.monotonic() - start < 15
    assert warm(run(box, INCLUDED))


def _launchers_under(root: int) -> list[int]:
    """The warm PHP launchers among root's descendants (only this sandbox's: other tests run beside this one)."""
    parents, found = {}, []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                parents[int(entry.name)] = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
                if f"include '{LAUNCHER}'".encode() in (entry / "cmdline").read_bytes():
                    found.append(int(entry.name))
            except (OSError, ValueError, IndexError):
                continue
    def under(pid: int) -> bool:
        while pid > 1:
            if pid == root:
                return True
            pid = parents.get(pid, 0)
        return False
    return [pid for pid in found if under(pid)]


def test_runs_go_to_the_run_init_when_the_launcher_is_gone(boxes: dict[str, ZygoteSandbox]) -> None:
    box = ZygoteSandbox(["/etc/php"], warm_php=True)
    try:
        assert warm(run(box, INCLUDED))
        launchers = _launchers_under(box._all[0].proc.pid)
        assert len(launchers) == 1, launchers
        os.kill(launchers[0], signal.SIGKILL)
        time.sleep(0.2)
        results = [run(box, INCLUDED) for _ in range(3)]
        # The first may find the launcher dead after it was sent the job (a sandbox error, never a verdict);
        # from then on every run is judged, under the run init.
        assert all(r.error is None and r.exit_code == 0 and not warm(r) for r in results[1:]), results
        assert results[0].error is not None or results[0].exit_code == 0
    finally:
        box.close()


def test_a_php_without_ffi_runs_under_the_run_init() -> None:
    if not ZygoteSandbox.available():
        pytest.skip("nested user namespaces are not available here")
    box = ZygoteSandbox(warm_php=True)  # /etc/php not shown: php starts without its shared extensions (FFI, pcntl)
    try:
        result = run(box, '<?php $out = fopen("php://fd/3", "w"); fwrite($out, json_encode([get_included_files(), extension_loaded("FFI")]));')
        assert result.error is None and json.loads(result.channel) == [["/sandbox/main.php"], False], result
    finally:
        box.close()


def test_a_job_larger_than_one_message(boxes: dict[str, ZygoteSandbox]) -> None:
    files = {
        "main.php": b'<?php $o = fopen("php://fd/3", "w"); fwrite($o, json_encode([strlen(file_get_contents("data/big.txt")), get_included_files()]));',
        "data/big.txt": b"x" * 3_000_000,
    }
    result = boxes["warm"].run_phases([phase()], files, SandboxLimits(), b"", None)
    assert result.error is None and json.loads(result.channel) == [3_000_000, [LAUNCHER, "/sandbox/main.php"]], result
