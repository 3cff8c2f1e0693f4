"""The API for programs, as a script author and an MCP client use it: six named, typed, documented functions
(elite_ui/app/api.py) with the page's guarantees, their results plain data with citations."""

import ast
import asyncio
import json
import re

import pytest
from gradio_client import Client, handle_file
from gradio_client.exceptions import AppError

from elite_ui.app.api import API_NAMES
from elite_ui.book import load_book, reading_ceiling
from elite_ui.records import ANSWER_SCHEMA
from elite_ui.testing.browser import ROOT, app_log, start_app, stop_app

from .conftest import BOOKS

SCRIPT = str(ROOT / "tests" / "data" / "scripted.json")


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    process, url = start_app("--hosted", "--scripted", SCRIPT, "--mcp", cache=tmp_path_factory.mktemp("cache"))
    yield process, url
    stop_app(process)


@pytest.fixture(scope="module")
def opened(served):
    client = Client(served[1], verbose=False)
    return client, client.predict(file=handle_file(str(BOOKS["pride-and-prejudice.txt"])), api_name="/open_book")


def refusal(client, **kwargs) -> str:
    with pytest.raises(AppError) as refused:
        client.predict(**kwargs)
    said = str(refused.value)
    assert said and "Traceback" not in said and len(said) < 300
    return said


def test_the_api_is_eight_named_documented_functions_and_the_page_is_not_part_of_it(served):
    endpoints = Client(served[1], verbose=False).view_api(print_info=False, return_format="dict")["named_endpoints"]
    assert sorted(endpoints) == sorted(f"/{name}" for name in API_NAMES)
    ask = {p["parameter_name"]: p for p in endpoints["/ask"]["parameters"]}
    assert list(ask) == ["book", "question", "up_to", "options", "method", "about"]
    assert ask["method"]["parameter_default"] == "elite" and not ask["book"]["parameter_has_default"]
    assert endpoints["/ask"]["description"].startswith("Ask a question of a book")
    answer = endpoints["/ask"]["returns"][0]["type"]
    assert set(answer["properties"]) == set(ANSWER_SCHEMA["properties"]), "the answer's schema is the CLI's"


def test_a_book_is_opened_and_asked_with_citations_that_are_its_own_sentences(opened, pride):
    client, book = opened
    assert book["title"] == pride.title and book["sentences"] == len(pride) and "." in book["book"]
    assert [c["number"] for c in book["chapters"]][:3] == [c.ref for c in pride.chapters][:3]
    whole = client.predict(book=book["book"], question="What is Pemberley?", api_name="/ask")
    assert set(whole) == set(ANSWER_SCHEMA["properties"]) and whole["answer"] and whole["up_to"] is None
    for cited in whole["citations"] + whole["quotes"]:
        assert cited["text"] == " ".join(pride.sentence(cited["sentence"]).text.split())
        assert cited["chapter"] == pride.sentence(cited["sentence"]).chapter_ref
    assert whole["costs"]["llm_calls"] >= 2 and whole["costs"]["prompt_tokens"] > 0
    last, _ = reading_ceiling(pride, "chapter 10")
    early = client.predict(book=book["book"], question="What is Pemberley?", up_to="chapter 10", api_name="/ask")
    assert early["up_to"].startswith("chapter 10")
    assert all(c["sentence"] <= last for c in early["citations"] + early["quotes"])
    pinned = next(i for i in range(len(pride)) if "universally acknowledged" in pride.sentence(i).text)
    meant = client.predict(book=book["book"], question="What does this mean?", about=[pinned, "x", len(pride) + 9],
                           api_name="/ask")
    assert meant["quotes"][0]["sentence"] == pinned, "a passage asked about is what the book says first"
    assert "ELITE" in refusal(client, book=book["book"], question="What does this mean?", about=[pinned],
                              method="bm25", api_name="/ask")
    chosen = client.submit(book=book["book"], question="Who owns Pemberley?", up_to="chapter 10",
                           options={"A": "Mr. Bingley", "B": "Mr. Darcy"}, api_name="/ask")
    answer = chosen.result()
    assert answer["done"] and answer["choice"] in ("A", "B") and answer["answer"].startswith(f"({answer['choice']})")
    going = [record["progress"] for record in chosen.outputs()[:-1]]
    assert going and not any(r["done"] for r in chosen.outputs()[:-1]), "a long run says what it is doing"
    assert any("terms" in said or "passages" in said for said in going)


def test_search_passage_recap_and_xray_are_data_up_to_the_ceiling(opened, pride):
    client, book = opened
    last, _ = reading_ceiling(pride, "chapter 10")
    found = client.predict(book=book["book"], words="Pemberley", up_to="chapter 10", api_name="/search")
    everywhere = client.predict(book=book["book"], words="Pemberley", api_name="/search")
    assert 0 < found["total"] < everywhere["total"] and all(o["sentence"] <= last for o in found["occurrences"])
    assert all("pemberley" in o["text"].lower() for o in found["occurrences"])
    around = client.predict(book=book["book"], sentence=300, around=2, api_name="/passage")
    assert [s["sentence"] for s in around] == [298, 299, 300, 301, 302]
    assert "up to the ceiling" in refusal(client, book=book["book"], sentence=last + 5, up_to="chapter 10",
                                          api_name="/passage")
    chapters = client.predict(book=book["book"], up_to="chapter 3", api_name="/recap")
    assert [c["chapter"] for c in chapters] == ["ch. 1", "ch. 2", "ch. 3"]
    assert all(e["sentence"] <= reading_ceiling(pride, "chapter 3")[0] for c in chapters for e in c["extracts"])
    x = client.predict(book=book["book"], name="Lizzy", up_to="chapter 10", api_name="/xray")
    assert x["name"] == "Elizabeth Bennet" and x["first"]["sentence"] <= last
    assert "Wickham" not in json.dumps(x), "Wickham comes in chapter 15"
    assert "no character named" in refusal(client, book=book["book"], name="Wickham", up_to="chapter 10",
                                           api_name="/xray")


def test_mistakes_are_one_sentence_and_a_hash_is_no_id(opened, served):
    client, book = opened
    digest = book["book"].partition(".")[0]
    assert "open_book" in refusal(client, book=digest, question="Who?", api_name="/ask")
    assert "open_book" in refusal(client, book=f"{digest}.{'0' * 64}", question="Who?", api_name="/ask")
    assert "empty" in refusal(client, book=book["book"], question="  ", api_name="/ask")
    assert "chapter" in refusal(client, book=book["book"], question="Who?", up_to="chapter 999", api_name="/ask")
    assert "method" in refusal(client, book=book["book"], question="Who?", method="magic", api_name="/ask")
    stranger = Client(served[1], verbose=False)
    answered = stranger.predict(book=book["book"], question="What is Pemberley?", up_to="chapter 3",
                                api_name="/ask")
    assert answered["answer"], "an id is the book's, for whoever holds it (like a citation link)"
    assert "Traceback" not in app_log(served[0]).split("MCP server")[-1]


def test_an_mcp_client_lists_the_tools_with_their_descriptions_and_asks_a_book(opened, served):
    from mcp import ClientSession
    from mcp.client.streamable_http import streamable_http_client

    _, book = opened

    async def session():
        async with streamable_http_client(f"{served[1]}gradio_api/mcp/") as (read, write, _), \
                ClientSession(read, write) as mcp:
            await mcp.initialize()
            tools = {t.name: t for t in (await mcp.list_tools()).tools}
            reply = await mcp.call_tool("ask", {"book": book["book"], "question": "What is Pemberley?",
                                                "up_to": "chapter 10"})
            wrong = await mcp.call_tool("ask", {"book": "0" * 64, "question": "What is Pemberley?"})
            return tools, reply, wrong

    tools, reply, wrong = asyncio.run(session())
    assert set(tools) == set(API_NAMES), "only the API: no tool loads or changes the model, none is the page's"
    assert tools["ask"].description.startswith("Ask a question of a book")
    assert "spoiler ceiling" in tools["ask"].inputSchema["properties"]["up_to"]["description"]
    answer = ast.literal_eval(reply.content[0].text)  # Gradio's MCP server writes the record as a Python literal
    assert answer["answer"] and answer["up_to"].startswith("chapter 10")
    assert answer["citations"] or answer["sentences_left_out"], "cited, or the demo model's claim was left out"
    assert wrong.isError and "open_book" in wrong.content[0].text


@pytest.fixture(scope="module")
def pride():
    return load_book(BOOKS["pride-and-prejudice.txt"])


def test_a_book_named_by_a_web_address_is_refused_in_a_sentence_and_never_fetched(served):
    """Issue 36 item 7: a file given as an address (which Gradio would fetch) is refused before Gradio reads the
    request, by every door: gradio_client, the REST call, MCP; a book given as base64 data over MCP opens."""
    import base64
    import threading
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    import httpx
    from gradio_client.exceptions import ValidationError
    from mcp import ClientSession
    from mcp.client.streamable_http import streamable_http_client

    from elite_ui.app.fetching import REFUSED

    fetched = []

    class Book(BaseHTTPRequestHandler):
        def do_GET(self):
            fetched.append(self.path)
            self.send_response(200)
            self.end_headers()
            self.wfile.write(b"CHAPTER I\n\nA book served to the app.\n")

    server = ThreadingHTTPServer(("127.0.0.1", 0), Book)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    address = f"http://127.0.0.1:{server.server_address[1]}/book.txt"
    process, url = served
    try:
        with pytest.raises(ValidationError, match=re.escape(REFUSED)):
            Client(url, verbose=False).predict(file={"path": address, "meta": {"_type": "gradio.FileData"}},
                                               api_name="/open_book")
        rest = httpx.post(f"{url}gradio_api/call/open_book", json={"data": [{"path": address}]})
        assert rest.status_code == 422 and rest.json()["error"] == REFUSED

        async def session():
            async with streamable_http_client(f"{url}gradio_api/mcp/") as (read, write, _), \
                    ClientSession(read, write) as mcp:
                await mcp.initialize()
                data = base64.b64encode(BOOKS["pride-and-prejudice.txt"].read_bytes()).decode()
                return (await mcp.call_tool("open_book", {"file": address}),
                        await mcp.call_tool("open_book", {"file": f"data:text/plain;base64,{data}"}))

        named, given = asyncio.run(session())
        assert named.isError and named.content[0].text == REFUSED
        assert not given.isError and ast.literal_eval(given.content[0].text)["sentences"] > 5000
    finally:
        server.shutdown()
    assert fetched == [], "nothing was fetched"
    assert "Traceback" not in app_log(process).split("MCP server")[-1]
