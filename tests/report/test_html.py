"""The HTML report: one self-contained file, untrusted sample code escaped, deterministic, and working in a real browser."""

from __future__ import annotations

import base64
import hashlib
import json
import re
import shutil
from collections import Counter
from collections.abc import Sequence
from html.parser import HTMLParser
from pathlib import Path

import pytest

from assay.problems import Status, Verdict
from assay.problems import TestDetail as Detail
from assay.report import CATEGORY_COLOURS, Report, build_report
from assay.report.html import render_html, script_json
from assay.report.plots import anatomy_svg, clean_svg, scatter_svg
from assay.samples import Sample
from assay.store import RunStore
from tests.conftest import shared_data
from tests.report import FASTEVAL_MODELS, config, plus_verdict

PAYLOAD = "</script><img src=x onerror=alert(1)>"
EVIL_CODE = f'def f():\n    return "{PAYLOAD}"  # <!-- & \u2028 --> http://example.com/x.js\n'
HUMANEVAL_PLUS = shared_data() / "evalplus" / "HumanEvalPlus.jsonl.gz"
FASTEVAL = shared_data() / "samples" / "fasteval"
CHROMEDRIVER = Path("/usr/bin/chromedriver")
SCREENSHOT = Path("/tmp/assay-report-screenshot.png")


def write_samples(run_dir: Path, samples: Sequence[tuple[str, str, Verdict]], cfg: dict[str, object]) -> Path:
    """A run directory holding (task id, code, verdict) samples, written through the real RunStore; indexes count per problem."""
    store = RunStore(run_dir)
    store.set_meta("config", cfg)
    seen: Counter[str] = Counter()
    rows, verdicts = [], {}
    for task_id, code, verdict in samples:
        index = seen[task_id]
        seen[task_id] += 1
        key = f"{run_dir.name}|{task_id}|{index}"
        rows.append(Sample(task_id, index, code, None, program_hash=key))
        verdicts[key] = verdict
    store.add_samples(rows)
    for key, verdict in verdicts.items():
        store.put(key, verdict)
    store.close()
    return run_dir


def failing(status: Status, message: str) -> Verdict:
    """A verdict with a message, one failing test, output and a duration: everything a panel shows."""
    return Verdict(status, message=message, tests=[Detail("case 1", status, f"{message} <detail>")], duration_s=0.25,
                   stdout="printed <out>", stderr="Traceback: <err>")


def toy_runs(root: Path) -> list[Path]:
    """Three models on two small benchmarks with every kind of failure; one sample is hostile, one name has markup and a `$`."""
    kinds = [Status.COMPILE_ERROR, Status.RUNTIME_ERROR, Status.FAILED, Status.TIMEOUT, Status.MEMORY_EXCEEDED]
    dirs = []
    for bench in ("toy", "toy2"):
        for m, model in enumerate(("alpha", "beta <i>$x$", "gamma")):
            samples = []
            for p in range(1, 7):
                for i in range(2):
                    ok = (p + i + m + (bench == "toy2")) % 3 == 0 and p != 6  # toy/6 and toy2/6 are solved by no model
                    code = EVIL_CODE if (model == "gamma" and p == 3 and i == 0) else f"def f{p}():\n    return {p + i}\n"
                    samples.append((f"{bench}/{p}", code, Verdict(Status.PASSED, "passed", duration_s=0.1) if ok else
                                    failing(kinds[(p + i + m) % len(kinds)], f"{kinds[(p + i + m) % len(kinds)].value} in f{p}")))
            toolchain = {"python": "3.11", "driver": "d", "swift": "6.0"} if model == "gamma" else None
            cfg = config(bench, version="2025.1", content_hash=("a" if bench == "toy" else "b") * 64, n_problems=6,
                         samples_path=f"/data/{bench}/{model}.jsonl", toolchain=toolchain)
            dirs.append(write_samples(root / f"{bench}-{m}", samples, cfg))
    return dirs


def toy_meta(root: Path) -> Path:
    """Sizes for two of the three models (the third is of unknown size)."""
    path = root / "models.yaml"
    path.write_text("models:\n  - {name: Alpha 7B, match: alpha, size: 7B, family: A}\n  - {name: Gamma 13B, match: gamma, size: 13}\n")
    return path


@pytest.fixture(scope="module")
def toy(tmp_path_factory: pytest.TempPathFactory) -> tuple[Report, str]:
    root = tmp_path_factory.mktemp("toy")
    report = build_report(toy_runs(root), models_meta=toy_meta(root), generated_at="2025-01-01T00:00:00+00:00")
    return report, render_html(report, assay_commit="0123456789abcdef")


class _Tags(HTMLParser):
    """Every start tag with its attributes."""

    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str | None]]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))


def tags(html: str) -> list[tuple[str, dict[str, str | None]]]:
    """The page's start tags (script and style contents are not parsed as markup)."""
    parser = _Tags()
    parser.feed(html)
    return parser.tags


def embedded(html: str, element_id: str) -> object:
    """The JSON of one `<script type="application/json">` block."""
    match = re.search(rf'<script type="application/json" id="{element_id}">(.*?)</script>', html, re.S)
    assert match, element_id
    return json.loads(match.group(1))


def test_the_report_is_one_file_with_no_external_url(toy: tuple[Report, str]) -> None:
    _, html = toy
    for tag, attrs in tags(html):
        assert tag not in ("link", "script", "img", "iframe") or not (attrs.get("src") or "").strip(), tag
        if tag == "link":
            assert attrs.get("rel") == "icon" and attrs.get("href") == "data:,"  # an empty icon: the browser asks for nothing
        for name in ("src", "href", "xlink:href", "action", "data", "poster", "srcset"):
            value = (attrs.get(name) or "").strip()
            assert not value or value.startswith(("#", "data:")), (tag, name, value)
    assert "@import" not in html and not re.search(r"url\((?!#)", html)
    # URLs may only appear as text: in the embedded sample data and in preformatted configuration.
    markup = re.sub(r"<script type=\"application/json\"[^>]*>.*?</script>|<pre>.*?</pre>", "", html, flags=re.S)
    assert not re.search(r"https?:", markup), re.search(r".{60}https?:.{60}", markup)
    assert "http://example.com/x.js" in json.dumps(embedded(html, "assay-data"))  # the sample's text is kept, as text


def test_untrusted_sample_code_and_names_are_escaped(toy: tuple[Report, str]) -> None:
    _, html = toy
    assert PAYLOAD not in html and "<img" not in html and "onerror=alert" not in html.replace("onerror=alert(1)\\u003e", "")
    assert html.count("</script>") == html.count("<script")  # no sample closes a script element early
    data = embedded(html, "assay-data")
    problem = data["benchmarks"]["toy"]["problems"]["toy/3"]  # type: ignore[index]
    assert EVIL_CODE in problem["codes"]  # the exact text survives the escaping
    assert "beta &lt;i&gt;$x$" in html and "beta <i>" not in html
    assert script_json({"a": "</script>&\u2028"}) == '{"a":"\\u003c/script\\u003e\\u0026\\u2028"}'


def test_the_report_has_every_section_the_issue_asks_for(toy: tuple[Report, str]) -> None:
    report, html = toy
    ids = re.findall(r'\sid="([^"]+)"', html)
    assert len(ids) == len(set(ids)), [i for i, n in Counter(ids).items() if n > 1]  # several figures, one page: ids stay unique
    for table in ("t-leaderboard-0", "t-comparison-0", "t-size-0", "t-failures", "t-matrix-0", "t-provenance"):
        assert f'id="{table}"' in html, table
    assert html.count('<svg class="plot"') == len(report.scatters) + 1  # a size scatter per suite and the failure anatomy
    assert re.search(r"<td[^>]*>=1</td>", html)  # ties shown as ties
    assert "critical drop: Δ ≤ −15 points" in html and "same: |Δ| &lt; 1 points" in html  # thresholds stated beside the colours
    comparison = report.comparisons[0]
    for row in comparison.rows:  # each change cell carries its category's colour
        category = comparison.category(row)
        assert category is None or f'style="background:#{CATEGORY_COLOURS[category]}">{category}</td>' in html, row.model
    # Provenance: runs, Assay version and commit, benchmark versions and hashes, settings; every note visible.
    assert "made by Assay 0.1.0 (commit 0123456789ab) at 2025-01-01T00:00:00+00:00" in html
    assert "toy 2025.1" in html and "a" * 12 in html and "timeout auto" in html and "gamma_settings" not in html
    for note in report.notes + [n for lb in report.leaderboards for n in lb.notes] + [n for r in report.runs for n in r.notes]:
        assert note.replace("<", "&lt;").replace(">", "&gt;") in html.replace("&#39;", "'"), note
    assert "the prompts are unavailable: toy was not found here" in json.dumps(embedded(html, "assay-data"))
    matrix = report.matrices[0]
    assert matrix.unsolved == ["toy/6"] and html.index('data-problem="toy|toy/6"') < html.index('data-problem="toy|toy/1"')


def test_the_report_is_deterministic(toy: tuple[Report, str], tmp_path: Path) -> None:
    report, html = toy
    again = build_report([r.run_dir for r in report.runs], models_meta=toy_meta(tmp_path), generated_at="2025-01-01T00:00:00+00:00")
    assert render_html(again, assay_commit="0123456789abcdef") == html


def test_a_report_without_samples_says_so(toy: tuple[Report, str]) -> None:
    report, _ = toy
    matrices = build_report([r.run_dir for r in report.runs], sections=("solve_matrix",), generated_at="2025-01-01T00:00:00+00:00")
    html = render_html(matrices, include_samples=False, assay_commit="")
    data = embedded(html, "assay-data")
    problems = [p for b in data["benchmarks"].values() for p in b["problems"].values()]  # type: ignore[attr-defined]
    assert len(problems) == 12 and all(not p["samples"] and not p["codes"] for p in problems)
    assert "samples not included in this report" in html and "(commit" not in html and "<svg" not in html
    leaderboard_only = render_html(build_report([report.runs[0].run_dir], sections=("leaderboard",)), assay_commit="")
    assert embedded(leaderboard_only, "assay-data") == {"runs": [], "benchmarks": {}}  # nothing opens a problem: nothing embedded


def test_figures_inline_cleanly_and_survive_odd_input(toy: tuple[Report, str]) -> None:
    report, _ = toy
    (scatter,) = [s for s in report.scatters if s.suite == "toy"]
    assert scatter.fit.n == 2 and [r.display_name for r, _ in scatter.unknown_size] == ["beta <i>$x$"]
    svg = scatter_svg(scatter, "s")
    assert svg.startswith('<svg class="plot" id="s" role="img"') and "<?xml" not in svg and "<!DOCTYPE" not in svg
    assert "xmlns" not in svg and "<metadata" not in svg and "<!--" not in svg and "<style" not in svg
    assert all(i.startswith("s-") for i in re.findall(r'\sid="([^"]+)"', svg)[1:])
    assert set(re.findall(r'href="#([^"]+)"', svg)) <= set(re.findall(r'\sid="([^"]+)"', svg))  # every reference resolves
    scatter.log_size = True
    assert scatter_svg(scatter, "s") != svg
    scatter.log_size = False
    assert anatomy_svg(report.anatomy, "a").count("<path") > 5  # type: ignore[arg-type]
    cleaned = clean_svg('<?xml version="1.0"?>\n<svg xmlns="http://www.w3.org/2000/svg" width="1pt"><g id="x"/><use xlink:href="#x"/></svg>', "p")
    assert cleaned == '<svg class="plot" id="p" stroke-linejoin="round" stroke-linecap="butt" width="1pt"><g id="p-x"/><use xlink:href="#p-x"/></svg>\n'


# ---------------------------------------------------------------- a real browser on real runs


def chromium() -> tuple[str, str] | None:
    """Paths of Debian's chromium and chromedriver, or None when either is missing."""
    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    driver = str(CHROMEDRIVER) if CHROMEDRIVER.is_file() else shutil.which("chromedriver")
    return (browser, driver) if browser and driver else None


def fasteval_runs(root: Path) -> list[Path]:
    """FastEval's five models on HumanEval+ with their real code and published verdicts, recorded against the local HumanEval+ file."""
    content_hash = hashlib.sha256(HUMANEVAL_PLUS.read_bytes()).hexdigest()  # as the loader hashes it: prompts can be shown
    dirs = []
    for model in FASTEVAL_MODELS:
        path = FASTEVAL / model / "samples.jsonl"
        rows = sorted((json.loads(line) for line in path.read_text().splitlines()), key=lambda r: r["sample_index"])
        samples = [(r["task_id"], r["completion"], plus_verdict(r["published_base_pass"], r["published_plus_pass"])) for r in rows]
        cfg = config("humaneval-plus", version="v0.1.10", content_hash=content_hash, n_problems=164, samples_path=str(path), source=str(HUMANEVAL_PLUS))
        dirs.append(write_samples(root / model, samples, cfg))
    kinds = [failing(Status.COMPILE_ERROR, "SyntaxError: invalid syntax"), failing(Status.RUNTIME_ERROR, "ZeroDivisionError"),
             failing(Status.TIMEOUT, "timed out after 3 s"), failing(Status.MEMORY_EXCEEDED, "memory limit"), Verdict(Status.PASSED, "passed")]
    hostile = [(f"HumanEval/{p}", EVIL_CODE, kinds[p % len(kinds)]) for p in range(10)]
    cfg = config("humaneval-plus", version="v0.1.10", content_hash=content_hash, n_problems=164, samples_path="/data/hostile-model.jsonl",
                 source=str(HUMANEVAL_PLUS))
    return [*dirs, write_samples(root / "hostile", hostile, cfg)]


@pytest.mark.slow
@pytest.mark.skipif(chromium() is None, reason="needs Debian's chromium and chromium-driver (apt-get install chromium chromium-driver)")
@pytest.mark.skipif(not (FASTEVAL.is_dir() and HUMANEVAL_PLUS.is_file()), reason=f"needs the shared data directory ({shared_data()}), absent here")
def test_the_report_works_in_a_real_browser(tmp_path: Path) -> None:
    from selenium import webdriver
    from selenium.common.exceptions import NoAlertPresentException
    from selenium.webdriver.chrome.service import Service
    from selenium.webdriver.common.by import By

    from tests.report.test_tables import docs_example

    report = build_report(fasteval_runs(tmp_path / "runs"), models_meta=docs_example(tmp_path), generated_at="2025-01-01T00:00:00+00:00")
    page = tmp_path / "report.html"
    page.write_text(render_html(report), encoding="utf-8")
    assert page.stat().st_size < 4_000_000  # 5,000 samples with their code

    browser, driver_path = chromium()  # type: ignore[misc]
    options = webdriver.ChromeOptions()
    options.binary_location = browser
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--window-size=1400,1000"):
        options.add_argument(arg)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(driver_path), options=options)
    try:
        driver.get(page.as_uri())
        assert driver.execute_script("return document.readyState") == "complete"
        load_ms = driver.execute_script("const t = performance.getEntriesByType('navigation')[0]; return t.loadEventEnd - t.startTime")
        assert load_ms < 15_000, load_ms

        for table in ("t-leaderboard-0", "t-comparison-0", "t-failures", "t-matrix-0", "t-provenance"):
            assert driver.find_element(By.ID, table).is_displayed(), table
        plots = driver.find_elements(By.CSS_SELECTOR, "svg.plot")
        assert len(plots) == 3 and all(p.size["width"] > 300 and p.size["height"] > 150 for p in plots)
        canvas = driver.find_element(By.CSS_SELECTOR, "canvas.overview")
        assert canvas.size["width"] > 300 and driver.execute_script(
            "const c = arguments[0]; return c.getContext('2d').getImageData(c.width - 2, 2, 1, 1).data[3]", canvas) == 255  # drawn

        def click(selector: str) -> None:
            element = driver.find_element(By.CSS_SELECTOR, selector)
            driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", element)  # clear of the sticky headers
            element.click()

        def column(table: str, index: int) -> list[str]:
            return [td.text for td in driver.find_elements(By.CSS_SELECTOR, f"#{table} tbody tr td:nth-child({index})")]

        board = "t-leaderboard-0"
        assert column(board, 1)[:3] == ["1", "=2", "=2"]  # ties shown as ties
        click(f"#{board} th:nth-child(2) button")
        models = column(board, 2)
        assert models == sorted(models, key=str.lower) and models[0] == "gpt-3.5-turbo-0613"
        click(f"#{board} th:nth-child(2) button")
        assert column(board, 2) == models[::-1]
        click(f"#{board} th:nth-child(5) button")  # pass@1: best first
        scores = [float(s) for s in column(board, 5)]
        assert scores == sorted(scores, reverse=True)

        click('button[data-problem="humaneval-plus|HumanEval/21"]')
        panel = driver.find_element(By.ID, "panel")
        assert panel.is_displayed()
        assert "def rescale_to_unit" in driver.find_element(By.CSS_SELECTOR, "#panel pre.prompt").text
        code = driver.find_elements(By.CSS_SELECTOR, "#panel pre.code")
        assert code and "def rescale_to_unit" in code[0].text and "samples passed" in panel.text
        driver.save_screenshot(str(tmp_path / "panel.png"))
        shutil.copyfile(tmp_path / "panel.png", SCREENSHOT.with_name("assay-report-panel.png"))

        click("#panel-close")
        assert not panel.is_displayed()
        click('#t-matrix-0 button[data-problem="humaneval-plus|HumanEval/3"]')
        texts = [e.get_attribute("textContent") for e in driver.find_elements(By.CSS_SELECTOR, "#panel pre.code")]
        assert any(PAYLOAD in t for t in texts)  # the hostile code shown as text ...
        assert not driver.find_elements(By.CSS_SELECTOR, "#panel img, body > img")  # ... and never as markup
        with pytest.raises(NoAlertPresentException):
            driver.switch_to.alert.text  # noqa: B018 - the payload's alert(1) never ran
        assert "hostile-model: 0 of 1 samples passed" in panel.text and "memory exceeded" in panel.text
        click("#panel-close")

        severe = [e for e in driver.get_log("browser") if e["level"] == "SEVERE"]
        assert not severe, severe
        # Sections off screen are not painted (content-visibility: auto) until a reader scrolls to them; paint them all for the picture.
        driver.execute_script("window.scrollTo(0, 0); document.querySelectorAll('section').forEach(s => s.style.contentVisibility = 'visible')")
        size = driver.execute_cdp_cmd("Page.getLayoutMetrics", {})["cssContentSize"]
        clip = {"x": 0, "y": 0, "width": size["width"], "height": min(size["height"], 12_000), "scale": 1}
        shot = tmp_path / "report.png"  # the whole page, as a reader scrolls through it
        shot.write_bytes(base64.b64decode(driver.execute_cdp_cmd("Page.captureScreenshot", {"format": "png", "captureBeyondViewport": True, "clip": clip})["data"]))
        assert shot.stat().st_size > 50_000
        shutil.copyfile(shot, SCREENSHOT)
    finally:
        driver.quit()
