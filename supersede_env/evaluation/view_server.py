"""``supersede view RUN --serve``: the run's page served on 127.0.0.1, that one file and nothing else.

The page is self-contained, so a file opened in a browser is enough on a desktop; serving it is for a
run on a remote machine, reached by a tunnel (``ssh -L 8765:127.0.0.1:8765 host``). The server binds
the loopback address only, answers ``GET /`` with the page read once at start (a later
``supersede view`` writes a new page: serve again), and ``404`` for every other path, so no other
file of the run or of the machine is reachable. Its Content-Security-Policy lets the page run its own
inline filter and show its embedded plots, and load nothing from anywhere.
"""

from __future__ import annotations

import errno
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from supersede_env.core.errors import ConfigError

HOST = "127.0.0.1"
# the page's own inline style and script, its data: plots, and nothing else (no request leaves the page)
CONTENT_SECURITY_POLICY = ("default-src 'none'; img-src data:; style-src 'unsafe-inline'; "
                           "script-src 'unsafe-inline'; base-uri 'none'; form-action 'none'")


def page_server(page: bytes, port: int) -> ThreadingHTTPServer:
    """A server (not yet serving) that answers ``GET /`` with ``page``; port 0 takes any free port."""

    class OnePage(BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802 (http.server's name)
            if self.path.split("?", 1)[0] not in ("/", "/view.html"):
                self.send_error(HTTPStatus.NOT_FOUND, "only the run's page is served here: /")
                return
            self.send_response(HTTPStatus.OK)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(page)))
            self.send_header("Content-Security-Policy", CONTENT_SECURITY_POLICY)
            self.send_header("Cache-Control", "no-store")
            self.end_headers()
            self.wfile.write(page)

        def log_message(self, format: str, *args: object) -> None:  # noqa: A002 (http.server's name)
            pass  # one line per request would bury the address the user needs

    try:
        return ThreadingHTTPServer((HOST, port), OnePage)
    except OSError as exc:
        if exc.errno == errno.EADDRINUSE:
            raise ConfigError(f"--port: {port} is in use on {HOST} (choose another, or --port 0 for any)") from exc
        raise


def serve_page(path: Path, port: int) -> None:
    """Serve the page at ``path`` until Ctrl-C (which ends it quietly)."""
    server = page_server(path.read_bytes(), port)
    print(f"serving {path} on http://{HOST}:{server.server_address[1]}/ (Ctrl-C stops)", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        print("view: stopped serving", flush=True)
    finally:
        server.server_close()
