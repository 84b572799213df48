"""The HTML report as a reader sees it: opened in headless Chromium (`make test` installs it)."""

from __future__ import annotations

import shutil

import pytest

import analyzer
from analyzer.reporting.balance_report import CHARTS


@pytest.fixture(scope="module")
def browser():
    from playwright.sync_api import sync_playwright

    executable = shutil.which("chromium")
    assert executable, "Chromium is missing: `make test` installs Debian's chromium package"
    with sync_playwright() as playwright:
        instance = playwright.chromium.launch(executable_path=executable,
                                              args=["--no-sandbox"])
        yield instance
        instance.close()


def test_the_report_page_shows_the_headline_and_loads_every_image(browser, tmp_path):
    results = []
    for policy in ("greedy", "weighted"):
        path = tmp_path / f"{policy}.parquet"
        analyzer.simulate(games=2000, seed=9, policy=policy, out=path)
        results.append(path)
    out = analyzer.report(results, tmp_path / "rep")
    page = browser.new_page(viewport={"width": 1200, "height": 900})
    page.goto((out / "index.html").as_uri())
    rows = page.locator("#headline tr")
    assert rows.count() == 3
    assert "weighted / base / seed 9" in rows.nth(2).inner_text()
    assert page.locator("#headline").is_visible()
    images = page.evaluate("Array.from(document.images).map(i => i.complete && "
                           "i.naturalWidth > 0)")
    assert images == [True] * len(CHARTS)
    shot = tmp_path / "screenshot.png"
    page.screenshot(path=str(shot), full_page=True)
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and shot.stat().st_size > 50_000
    page.close()


def test_a_comparison_of_every_set_fits_the_window_it_is_read_in(browser, tmp_path):
    """The play-again command listed all 128 sets on one unbreakable line, and a set's
    name of seven expansions would not break either: the page was 46,000 pixels wide."""
    analyzer.compare(sets="all", games=20, out=tmp_path / "all")
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    page.goto((tmp_path / "all" / "index.html").as_uri())
    assert page.evaluate("document.documentElement.scrollWidth") <= 1280
    assert "urbion compare --sets all --games 20" in page.locator("#provenance").inner_text()
    page.close()


def test_a_card_change_page_of_many_sets_fits_the_window_and_loads_its_chart(browser,
                                                                            tmp_path):
    """compare --against: thirteen columns and sets of seven expansions on one page."""
    from tests.test_card_change import _weak_chaos

    analyzer.compare(sets="pairs", games=20, cards=_weak_chaos(tmp_path), against="r14",
                     out=tmp_path / "change")
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    page.goto((tmp_path / "change" / "index.html").as_uri())
    assert page.evaluate("document.documentElement.scrollWidth") <= 1280
    assert page.locator("#card-change tbody tr").count() == 29
    assert page.evaluate("Array.from(document.images).map(i => i.complete && "
                         "i.naturalWidth > 0)") == [True]
    page.close()
