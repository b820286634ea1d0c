"""``supersede view RUN``: one self-contained page per run, checked structurally (stdlib's HTML parser):
every episode, every condition side by side, the memo after each session beside the gold state with
kept and stale values marked, the verdict and its reason, failures with theirs; model output escaped,
no network reference, one fixed script."""

from html.parser import HTMLParser

from supersede_env.core.records import load_run
from tests.eval_support import run_cli, scripted_reply, write_city_episodes
from tests.fakeserver import Fault, FakeChatServer

HOSTILE = "<script>alert('x')</script><img src=http://evil.example/x.png>"


class Page(HTMLParser):
    def __init__(self):
        super().__init__()
        self.tags, self.blocks, self.scripts, self.urls = [], [], 0, []

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        self.tags.append(tag)
        self.scripts += tag == "script"
        self.urls += [v for k, v in attrs.items() if k in ("src", "href") and v and not v.startswith("data:")]
        if attrs.get("class") == "cond":
            self.blocks.append((attrs["data-cond"], attrs["data-verdict"]))


def reply(prompt):
    if "[q2]" in prompt and "<notes>" in prompt and "<conversation>" not in prompt:
        return HOSTILE  # the answer step of e2 under a memo condition: model output that is markup
    if "[q1]" in prompt and "<notes>" not in prompt:
        return Fault("error", 500)  # e1 under full fails
    return scripted_reply(prompt)


def hostile_run(folder, n):
    """A run of ``n`` city episodes under full and memo:300 (model markup in e2's answer, e1 failed under full)."""
    episodes = write_city_episodes(folder / "eps.jsonl", n)
    out = folder / "run"
    with FakeChatServer(reply=reply) as server:
        code, _, err = run_cli("eval", "--model", f"openai:fake@{server.url}", "--episodes", str(episodes),
                               "--conditions", "full,memo:300", "--out", str(out), "--no-progress", "--retries", "0")
    assert code in (0, 3), err
    return out


def test_the_page_shows_every_episode_side_by_side_and_escapes_the_run(tmp_path):
    out = hostile_run(tmp_path, 4)
    code, stdout, err = run_cli("view", str(out))
    assert code == 0, err
    assert stdout.strip() == f"view: {out / 'view.html'}"
    text = (out / "view.html").read_text()
    page = Page()
    page.feed(text)
    assert page.scripts == 1 and page.urls == []  # the filter script only; plots embedded as data: URLs
    assert text.count("<div class='episode'") == 4
    log = load_run(out)
    expected = {(c, (v.grader.label if v.grader else "failed") if (v := log.verdict_for(f"e{i}", c)) else "not run")
                for i in range(4) for c in ("full", "memo:300")}
    assert set(page.blocks) == expected and len(page.blocks) == 8
    assert "alert(&#x27;x&#x27;)" in text and HOSTILE not in text  # the model's markup is shown, never run
    assert "class='kept'" in text and "after session 3:" in text
    assert "class='stale'>stale held: " in text  # the scripted notes keep the old city too
    (failed,) = [v for v in log.verdicts.values() if v.status == "failed"]
    assert ("full", "failed") in page.blocks and "class='v-failed'>failed: " in text
    assert "500" in failed.error and "500" in text.split("class='v-failed'>failed: ", 1)[1][:300]


def test_view_refuses_a_folder_that_is_not_a_run_and_a_foreign_out_file(tmp_path):
    code, _, err = run_cli("view", str(tmp_path))
    assert code == 2 and "not a run directory" in err


def test_serve_answers_the_page_and_nothing_else(tmp_path):
    """``--serve``: the page on 127.0.0.1 with a policy that lets it load nothing; any other path is 404."""
    import threading
    import urllib.error
    import urllib.request

    from supersede_env.evaluation.view_server import CONTENT_SECURITY_POLICY, page_server

    server = page_server(b"<!doctype html><p>the page", 0)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_address[1]}"
    try:
        with urllib.request.urlopen(base + "/") as answer:
            assert answer.read() == b"<!doctype html><p>the page"
            assert answer.headers["Content-Security-Policy"] == CONTENT_SECURITY_POLICY
        for path in ("/records.jsonl", "/../records.jsonl", "/view.html/x"):
            try:
                urllib.request.urlopen(base + path)
                raise AssertionError(f"{path} was served")
            except urllib.error.HTTPError as exc:
                assert exc.code == 404
    finally:
        server.shutdown()
        server.server_close()


def test_view_refuses_a_port_before_writing_the_page(tmp_path):
    code, _, err = run_cli("view", str(tmp_path / "run"), "--serve", "--port", "70000")
    assert code == 2 and "--port: 70000 is not a port number" in err and not (tmp_path / "run").exists()
