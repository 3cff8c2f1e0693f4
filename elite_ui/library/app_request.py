"""What a reading app's "Ask AI" sends a model server, read: the book it names (title and author), the passage the
reader highlighted, how far they say they have read (or the passages the app says they have read), and the
question. The shapes are those of KOReader's AskGPT and assistant plugins, Calibre's viewer (OpenAI's chat
completions) and Readest (Ollama's chat); their request bodies, recorded, are replayed by
``tests/test_reading_apps_server.py``. Anything else is read as a plain chat: the last user message is the
question."""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..errors import EliteError

MAX_MESSAGES = 64
MAX_CHARS = 50_000
"""The most messages, and characters in all, a request may hold (a reading app sends a few hundred)."""

TITLED = re.compile(
    r"(?:reading|about|from)\s+(?:something\s+titled|the\s+book(?:\s+titled)?:?|a\s+book\s+(?:called|titled))\s*"
    r"[\"'“‘]?(?P<title>[^\"“”\n]{1,200}?)[\"'”’]?(?:,?\s+by\s+(?P<author>[^.\n]{1,120}?))?\s*(?:[.\n]|$)", re.I)
"""'I'm reading something titled 'Emma' by Jane Austen.' (AskGPT); 'I am currently reading the book: Emma by Jane
Austen.' (Calibre)."""
PASSAGE = re.compile(
    r"(?:highlighted\s+text|selected\s+text|text\s+to\s+analy[sz]e|word\s+to\s+analy[sz]e|the\s+passage)\s*:\s*"
    r"(?:```(?P<fenced>.+?)```|(?P<passage>.+))", re.I | re.S)
"""The highlight, between backticks or to the end of its message: '... the following highlighted text: ```...```.'
(KOReader's assistant plugin), '... highlighted text: ...' (AskGPT), 'Text to analyze: ...' (Calibre)."""
READEST = re.compile(r"on page \d+ of \"(?P<title>[^\"\n]{1,200})\"(?: by (?P<author>[^\n]{1,120}?))?\s*$", re.M)
"""Readest's system prompt: 'You are currently on page 42 of "Emma" by Jane Austen'."""
READ_PASSAGES = re.compile(r"<BOOK_PASSAGES[^>]*>(?P<passages>.*?)</BOOK_PASSAGES>", re.S)
"""The passages Readest found in the pages read so far, each after a '[Chapter, Page N]' line."""
SEPARATOR = "\n\n------\n\n"
"""What Calibre's viewer puts between an action's prompt and the selected text."""
SHARE = re.compile(
    r"\bI(?:'m|’m|\s+am|\s+have\s+read)\s+(?:about\s+|now\s+)?(?P<percent>\d{1,3}(?:\.\d+)?)\s*%"
    r"|\b(?:I(?:'m|’m|\s+am)\s+(?:on|at|in)|up\s+to|(?:I've|I\s+have)\s+(?:read|reached|finished))\s+"
    r"(?P<place>(?:chapter|page|part|book|letter|stave)\s+[\divxlcdm]+)\b", re.I)
"""How far the reader says they are: "I am 35% through", "up to chapter 12", "I'm on page 80"."""
SENTENCES = re.compile(r"(?<=[.!?])\s+")
"""Where a message's sentences part."""


class RequestError(EliteError):
    """A request that is not a chat completion we can answer: said in one sentence."""


@dataclass(frozen=True)
class AppAsked:
    """A reading app's request, read."""

    question: str
    model: str = ""
    stream: bool = False
    title: str = ""
    author: str = ""
    passage: str = ""
    share: str = ""
    """How far the reader says they are, as a spoiler ceiling ("35%", "chapter 12"); empty when they say nothing."""
    read: tuple[str, ...] = ()
    """Passages the app says the reader has read (Readest's, from the pages before theirs)."""

    def mentions(self) -> str:
        """The book as the request names it, for matching a library's titles ("Emma Jane Austen")."""
        return f"{self.title} {self.author}".strip()


def read_request(body: object, stream: bool = False) -> AppAsked:
    """``body`` (a parsed JSON request) read, or a :class:`RequestError` saying what is wrong with it; ``stream``:
    whether the reply is streamed when the body does not say (OpenAI's default is no, Ollama's yes)."""
    if not isinstance(body, dict):
        raise RequestError("the request is not a JSON object.")
    messages = body.get("messages")
    if not isinstance(messages, list) or not messages:
        raise RequestError("'messages' must be a non-empty list of {role, content} objects.")
    if len(messages) > MAX_MESSAGES:
        raise RequestError(f"at most {MAX_MESSAGES} messages are read.")
    said = [(message.get("role"), content(message.get("content")))
            for message in messages if isinstance(message, dict)]
    if len(said) != len(messages) or any(not isinstance(role, str) for role, _ in said):
        raise RequestError("every message must be an object with a 'role' and a 'content'.")
    if sum(len(text) for _, text in said) > MAX_CHARS:
        raise RequestError(f"the messages hold more than {MAX_CHARS:,} characters.")
    users = [text for role, text in said if role == "user" and text.strip()]
    if not users:
        raise RequestError("no user message holds a question.")
    model, stream = body.get("model", ""), body.get("stream", stream)
    if not isinstance(model, str) or not isinstance(stream, bool):
        raise RequestError("'model' must be a string and 'stream' true or false.")
    everything = "\n".join(text for role, text in said if role in ("system", "user"))
    titled = TITLED.search(everything) or READEST.search(everything)
    read = [chunk.split("\n", 1)[-1].strip() for found in READ_PASSAGES.finditer(everything)
            for chunk in found.group("passages").strip().split("\n\n") if chunk.strip()]
    passage = next((found.group("fenced") or found.group("passage")
                    for text in reversed(users) if (found := PASSAGE.search(text))), "")
    shares = [m.group("percent") + "%" if m.group("percent") else m.group("place") for m in SHARE.finditer(everything)]
    return AppAsked(question_in(users[-1]), model, stream,
                    " ".join(titled.group("title").split()) if titled else "",
                    " ".join((titled.group("author") or "").split()) if titled else "",
                    " ".join(passage.split()).strip("\"“”"), shares[-1] if shares else "",
                    tuple(" ".join(r.split())[:2000] for r in read[:20]))


def content(value) -> str:
    """A message's text: a string, or OpenAI's list of parts (their text parts joined)."""
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        return "\n".join(part["text"] for part in value
                         if isinstance(part, dict) and isinstance(part.get("text"), str))
    return ""


def question_in(text: str) -> str:
    """The question of the last user message: what it says before a highlighted passage it carries (a Calibre
    action's prompt, "Explain the following text..."), else all of it; less a sentence that only says how far the
    reader is ("I am 35% through.": the ceiling, not something to search the book for)."""
    before = text.split(SEPARATOR)[0]
    found = PASSAGE.search(before)
    question = " ".join((before[:found.start()] if found else before).split())
    asked = " ".join(piece for piece in SENTENCES.split(question)
                     if not (SHARE.search(piece) and not piece.endswith("?")))
    return asked or question or " ".join(text.split())
