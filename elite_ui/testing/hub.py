"""A local stand-in for the Hugging Face Hub's file endpoints (``HEAD``/``GET /{repo}/resolve/{revision}/{file}``
with ranges), so downloads are tested without the network: point ``HF_ENDPOINT`` (or ``endpoint=``) at it.

It can cut its first transfer halfway (``cut``), serve bytes that do not match the checksum it lists
(``corrupt``), and records each request's method, path and range."""

from __future__ import annotations

import hashlib
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import unquote

COMMIT = "0123456789abcdef0123456789abcdef01234567"


class Hub:
    """Serves ``files`` ({"owner/repo/file": bytes}) on a free loopback port until :meth:`close`."""

    def __init__(self, files: dict[str, bytes]):
        self.files = files
        self.cut = False
        self.corrupt = False
        self.requests: list[tuple[str, str, str]] = []
        hub = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_HEAD(self):
                hub.serve(self, body=False)

            def do_GET(self):
                hub.serve(self, body=True)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()

    def serve(self, handler: BaseHTTPRequestHandler, body: bool) -> None:
        wanted = handler.headers.get("Range", "")
        self.requests.append((handler.command, handler.path, wanted))
        repo_path, _, rest = unquote(handler.path.split("?")[0]).lstrip("/").partition("/resolve/")
        data = self.files.get(f"{repo_path}/{rest.partition('/')[2]}")
        if data is None:
            handler.send_response(404)
            handler.send_header("X-Error-Code", "EntryNotFound")
            handler.send_header("Content-Length", "0")
            handler.end_headers()
            return
        sha = hashlib.sha256(data).hexdigest()
        if self.corrupt:
            data = bytes([data[0] ^ 0xFF]) + data[1:]
        start = int(wanted.removeprefix("bytes=").split("-")[0]) if wanted.startswith("bytes=") else 0
        handler.send_response(206 if start else 200)
        handler.send_header("X-Repo-Commit", COMMIT)
        handler.send_header("ETag", f'"{sha}"')
        handler.send_header("X-Linked-Etag", f'"{sha}"')
        handler.send_header("X-Linked-Size", str(len(data)))
        handler.send_header("Accept-Ranges", "bytes")
        handler.send_header("Content-Length", str(len(data) - start))
        if start:
            handler.send_header("Content-Range", f"bytes {start}-{len(data) - 1}/{len(data)}")
        handler.end_headers()
        if not body:
            return
        if self.cut:
            self.cut = False
            handler.wfile.write(data[start : start + (len(data) - start) // 2])
            handler.wfile.flush()
            handler.close_connection = True
            return
        handler.wfile.write(data[start:])
