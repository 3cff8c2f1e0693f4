"""Hostile books (see elite_ui/testing/hostile.py): every one ends in a Book or in our one-sentence BookError."""

import re

import pytest

from elite_ui.book import load_book
from elite_ui.errors import BookError
from elite_ui.testing.hostile import variants

EXPECTED_ERRORS = {
    "epub-zip-bomb": "far more than any book",
    "epub-not-a-zip": "not a readable EPUB",
    "epub-opf-binary": "not a readable EPUB",
    "pdf-header-only": "not a readable PDF",
    "pdf-negative-page-count": "not a readable PDF",
    "txt-nul-bytes": "binary file",
    "txt-only-punctuation": "no readable text",
}
EXPECTED_BOOKS = {"epub-without-mimetype", "epub-without-ch1.xhtml", "epub-without-nav.xhtml",
                  "epub-spine-to-missing-items", "epub-chapter-deeply-nested", "pdf-xref-removed",
                  "pdf-xref-offsets-garbled", "pdf-trailer-removed", "pdf-startxref-beyond-end", "txt-utf16-no-bom",
                  "txt-one-line-3mb", "txt-no-punctuation-1mb", "txt-zero-width-and-rtl", "txt-one-character"}


@pytest.fixture(scope="module")
def hostile(tmp_path_factory):
    return variants(tmp_path_factory.mktemp("hostile"))


def test_every_hostile_book_ends_in_a_book_or_one_clear_sentence(hostile):
    outcomes = {}
    for name, path in hostile:
        try:
            book = load_book(path)
        except BookError as exc:
            message = str(exc)
            assert message and "\n" not in message and len(message) < 200, name
            outcomes[name] = message
        else:
            assert len(book) >= 1 and book.text.strip(), name
            outcomes[name] = book
    assert len(outcomes) >= 45
    for name, fragment in EXPECTED_ERRORS.items():
        assert fragment in str(outcomes[name]), name
    for name in EXPECTED_BOOKS:
        assert not isinstance(outcomes[name], str), (name, outcomes[name])
    assert "Door two opened" in outcomes["pdf-xref-removed"].text, "repaired, pages alike or not"
    assert "The key opened the door." in outcomes["txt-utf16-no-bom"].text
    torn = outcomes["epub-without-ch2.xhtml"]
    assert torn.stats["missing"] == ["ch2.xhtml"] and "red door" not in torn.text and "garden grew" in torn.text
    assert "missing" not in outcomes["epub-without-nav.xhtml"].stats, "the navigation document is no chapter"


def test_coverage_guided_fuzzing_of_the_loaders_finds_no_crash(tmp_path):
    """A short atheris run from seeds of each format (run it longer by hand: python -m tests.fuzz_loaders)."""
    import subprocess
    import sys
    from pathlib import Path

    pytest.importorskip("atheris")
    from elite_ui.testing.files import make_epub, make_pdf

    seeds = tmp_path / "corpus"
    seeds.mkdir()
    (seeds / "txt").write_bytes(b"\x00CHAPTER I\n\nAlice found a key. The key opened the door.\n")
    (seeds / "epub").write_bytes(b"\x01" + make_epub(tmp_path / "s.epub", [("One", "<p>Alice.</p>")]).read_bytes())
    (seeds / "pdf").write_bytes(b"\x02" + make_pdf(tmp_path / "s.pdf", [["Alice found a key."]]).read_bytes())
    done = subprocess.run([sys.executable, "-m", "tests.fuzz_loaders", "-seed=1", "-runs=2000", "-max_total_time=120",
                           "-rss_limit_mb=3000",
                           f"-artifact_prefix={tmp_path}/", str(seeds)], capture_output=True, text=True,
                          timeout=300, cwd=Path(__file__).resolve().parents[1], check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    assert re.search(r"Done \d+ runs", done.stderr)
