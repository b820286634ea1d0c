"""``supersede view`` in a real browser: Debian's Chromium, headless, driven by Playwright (opt-in:
``make test-browser``; the marker ``browser`` keeps it out of ``make test``).

The page is opened as a file and as served by ``--serve``; the test checks what a user sees: the
result and the plots drawn, one block per episode and condition, the two menus hiding what they do not
select, the model's markup shown as text and never run, and no request leaving the page.
"""

import os
import shutil
import threading
from pathlib import Path

import pytest

from tests.eval_support import run_cli
from tests.test_view import HOSTILE, hostile_run

pytestmark = pytest.mark.browser

CHROMIUM = os.environ.get("SUPERSEDE_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
# what a closed machine needs (the browser's own background traffic is refused here, and slow)
QUIET = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
         "--disable-component-update", "--disable-sync"]


@pytest.fixture(scope="module")
def run_page(tmp_path_factory):
    out = hostile_run(tmp_path_factory.mktemp("view"), 6)
    assert run_cli("view", str(out))[0] == 0
    return out / "view.html"


@pytest.fixture(scope="module")
def browser():
    sync_api = pytest.importorskip("playwright.sync_api", reason="make test-browser installs Playwright")
    if not Path(CHROMIUM).is_file():
        pytest.fail(f"no Chromium at {CHROMIUM}: apt-get install chromium (or set SUPERSEDE_CHROMIUM)")
    with sync_api.sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=QUIET)
        yield chromium
        chromium.close()


def _open(browser, url):
    page = browser.new_page()
    requests, dialogs, errors = [], [], []
    page.on("request", lambda r: requests.append(r.url))
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(url)
    page.wait_for_load_state("load")
    return page, requests, dialogs, errors


def _visible(page, selector):
    return page.eval_on_selector_all(selector, "els => els.filter(e => e.offsetParent !== null)"
                                               ".map(e => [e.dataset.cond, e.dataset.verdict])")


def _check_page(page, requests, dialogs, errors, origin):
    assert page.title().startswith("supersede run")
    assert "memo:300" in page.inner_text("table")
    # every plot embedded and drawn (a broken data: URL has no natural width)
    widths = page.eval_on_selector_all("img", "imgs => imgs.map(i => i.complete ? i.naturalWidth : 0)")
    assert widths and all(w > 0 for w in widths)
    assert len(_visible(page, ".episode")) == 6
    everything = _visible(page, ".cond")
    assert len(everything) == 12 and {c for c, _ in everything} == {"full", "memo:300"}
    # the model's markup is on the page as text; its script never ran and its image never loaded
    assert HOSTILE in page.inner_text("body") and dialogs == []
    assert errors == []

    page.select_option("#cond", "memo:300")
    shown = _visible(page, ".cond")
    assert shown and all(c == "memo:300" for c, _ in shown) and len(shown) == 6
    page.select_option("#verdict", "stale")
    shown = _visible(page, ".cond")
    assert shown and all(v == "stale" for _, v in shown)
    assert len(_visible(page, ".episode")) == len(shown)  # an episode with nothing selected is hidden
    page.select_option("#cond", "*")
    page.select_option("#verdict", "*")
    assert len(_visible(page, ".cond")) == 12
    assert [u for u in requests if not u.startswith(origin)] == []  # nothing fetched from anywhere else
    assert len(requests) == 1  # the page itself: plots and script are inside it


def test_the_page_works_in_chromium_from_a_file(run_page, browser):
    page, requests, dialogs, errors = _open(browser, run_page.as_uri())
    _check_page(page, requests, dialogs, errors, run_page.as_uri())
    page.screenshot(path=str(run_page.with_suffix(".png")), full_page=False)


def test_the_served_page_works_in_chromium_and_serves_nothing_else(run_page, browser):
    from supersede_env.evaluation.view_server import page_server

    server = page_server(run_page.read_bytes(), 0)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    origin = f"http://127.0.0.1:{server.server_address[1]}/"
    try:
        page, requests, dialogs, errors = _open(browser, origin)
        _check_page(page, requests, dialogs, errors, origin)
        assert page.goto(origin + "records.jsonl").status == 404
    finally:
        server.shutdown()
        server.server_close()
