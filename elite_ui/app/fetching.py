"""What the app refuses before Gradio reads a request: a file named by a web address, which Gradio would fetch
(so that any visitor could make the server read an address of their choosing), and a request body too large to be
any call's. A book reaches the app as an uploaded file (the page, ``gradio_client``'s ``handle_file``) or, over
MCP, as base64 data (``data:...``); an address is refused in one sentence."""

from __future__ import annotations

import json
import re

MAX_BODY = 8 * 2**20
"""The largest request body read (uploads aside, which Gradio bounds by ``--max-upload-mb``)."""
ADDRESS = re.compile(r"\s*https?://", re.I)
REFUSED = "a book is given as an uploaded file (or, over MCP, as base64 data), never as a web address to fetch."
TOO_LARGE = f"the request is over {MAX_BODY // 2**20} MB; books are uploaded as files."


def refusal(body: bytes) -> tuple[int, dict] | None:
    """The answer to a request whose JSON names a file by a web address (a file's ``path``: Gradio fetches a path
    that is one; an argument of an MCP call to ``open_book``), as the caller's protocol reads a refusal: an MCP
    tool's error result, else a validation error (``gradio_client`` raises it as ``ValidationError`` with the
    sentence). None for every other body, and for anything that is not JSON."""
    try:
        data = json.loads(body)
    except (ValueError, RecursionError):
        return None
    params = data.get("params") if isinstance(data, dict) else None
    arguments = params.get("arguments") if isinstance(params, dict) and params.get("name") == "open_book" else None
    if isinstance(arguments, dict) and any(isinstance(v, str) and ADDRESS.match(v) for v in arguments.values()):
        return 200, {"jsonrpc": "2.0", "id": data.get("id"),
                     "result": {"content": [{"type": "text", "text": REFUSED}], "isError": True}}
    stack = [data]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            if isinstance(node.get("path"), str) and ADDRESS.match(node["path"]):
                return 422, {"error": REFUSED, "detail": [{"__type__": "validate", "is_valid": False,
                                                           "parameter_name": "file", "message": REFUSED}]}
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
    return None


class NoFetching:
    """ASGI middleware: a POST whose body names a file by a web address is refused (:func:`refusal`), one over
    :data:`MAX_BODY` too (413, ``{"error": ...}``), each in one sentence; uploads pass untouched."""

    def __init__(self, app):
        self.app = app

    async def __call__(self, scope, receive, send):
        content = dict(scope.get("headers") or []).get(b"content-type", b"")
        if scope["type"] != "http" or scope["method"] != "POST" or content.startswith(b"multipart/"):
            await self.app(scope, receive, send)
            return
        body, more = b"", True
        while more:
            message = await receive()
            if message["type"] != "http.request":
                return  # the client left
            body += message.get("body", b"")
            more = message.get("more_body", False)
            if len(body) > MAX_BODY:
                await answer(send, 413, {"error": TOO_LARGE})
                return
        refused = refusal(body)
        if refused:
            await answer(send, *refused)
            return
        given = False

        async def replay():
            nonlocal given
            if given:
                return await receive()
            given = True
            return {"type": "http.request", "body": body, "more_body": False}

        await self.app(scope, replay, send)


async def answer(send, status: int, reply: dict) -> None:
    """Answer with ``status`` and ``reply``, as JSON."""
    payload = json.dumps(reply).encode()
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(payload)).encode())]})
    await send({"type": "http.response.body", "body": payload})
