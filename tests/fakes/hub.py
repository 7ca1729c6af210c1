"""A Hugging Face Hub on loopback: one dataset repository at a pinned commit, as the Hub's HTTP API serves it
(`/api/datasets/<repo>/revision/<rev>` and `/datasets/<repo>/resolve/<sha>/<file>`), recording what it was asked."""

from __future__ import annotations

import contextlib
import json
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


@dataclass
class Hub:
    """What the server holds and was asked; `garbage` makes it answer every request with an HTML page."""

    repo: str
    sha: str
    files: dict[str, bytes]
    listed: tuple[str, ...] = ()  # files the listing names beyond those it serves (a README)
    requests: list[str] = field(default_factory=list)
    garbage: bool = False


@contextlib.contextmanager
def serve_hub(state: Hub) -> Iterator[str]:
    """Serve `state` on 127.0.0.1; yields the base URL (what HF_ENDPOINT would be)."""

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: object) -> None:
            pass

        def do_GET(self) -> None:
            state.requests.append(self.path)
            resolve = f"/datasets/{state.repo}/resolve/{state.sha}/"
            if state.garbage:
                self._send(200, b"<html>a captive portal</html>")
            elif self.path in (f"/api/datasets/{state.repo}/revision/main", f"/api/datasets/{state.repo}/revision/{state.sha}"):
                siblings = [{"rfilename": n} for n in [*state.files, *state.listed]]
                self._send(200, json.dumps({"id": state.repo, "sha": state.sha, "siblings": siblings}).encode())
            elif self.path.startswith(resolve) and self.path[len(resolve):] in state.files:
                self._send(200, state.files[self.path[len(resolve):]])
            else:
                self._send(404, b'{"error": "Entry not found"}')

        def _send(self, code: int, body: bytes) -> None:
            self.send_response(code)
            self.send_header("content-length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join()
