"""The command line: clear one-line errors and the report it prints."""

import subprocess
import sys

import pytest

from elite_ui.ask import main, parse_args, parse_options, report, with_citations
from elite_ui.errors import EliteError
from elite_ui.methods.elite import Elite, Settings
from elite_ui.models import ScriptedLLM
from elite_ui.settings import made

from .conftest import ROOT, trigram_embed


@pytest.mark.parametrize(("args", "message"), [
    (["missing.txt", "Who?"], "error: missing.txt: no such file."),
    (["book.mobi", "Who?"], "error: book.mobi: unsupported file type .mobi; use .txt, .epub or .pdf."),
])
def test_user_errors_print_one_line_and_exit_2(args, message, capsys):
    assert main(args) == 2
    assert capsys.readouterr().err.strip().splitlines()[-1] == message


def test_a_bad_ceiling_or_language_is_one_line_before_any_model_loads(tmp_path, capsys):
    book = tmp_path / "book.txt"
    book.write_text("CHAPTER I\n\nToad lived at Toad Hall. He loved motor-cars.\n", encoding="utf-8")
    assert main([str(book), "Who?", "--up-to", "chapter 900"]) == 2
    assert capsys.readouterr().err.strip().splitlines()[-1].startswith("error: chapter 900 is not in this book")
    assert main([str(book), "Who?", "--language", "klingon"]) == 2
    assert capsys.readouterr().err.strip().splitlines()[-1].startswith("error: unknown language 'klingon'")


def test_options_may_come_between_the_book_and_the_question():
    """``ask BOOK --up-to "chapter 3" "QUESTION"``, as a reader types it, reads the question (argparse alone had
    stopped at the book and refused the question)."""
    args = parse_args(["book.txt", "--up-to", "chapter 3", "--model", "m.gguf", "Where does Badger live?"])
    assert (args.book, args.question, args.up_to, args.model) == ("book.txt", "Where does Badger live?", "chapter 3",
                                                                  "m.gguf")


def test_bad_option_syntax_is_explained():
    with pytest.raises(EliteError, match='must look like A="text"'):
        parse_options(["Darcy"])
    assert parse_options(['a="Mr. Darcy"', "B=Bingley"]) == {"A": "Mr. Darcy", "B": "Bingley"}


def test_a_missing_model_file_is_reported_without_traceback(tmp_path):
    book = tmp_path / "b.txt"
    book.write_text("The fox ran away. The dog slept.")
    done = subprocess.run([sys.executable, "-m", "elite_ui.ask", str(book), "Who ran?", "--model",
                           str(tmp_path / "none.gguf")], capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert done.stderr.strip().endswith("none.gguf")


def test_report_expands_citations_with_chapters(pride):
    replies = {"terms": ["Longbourn"], "judge": ["yes"], "importance": ["x"],
               "answer": ["The Bennets live at Longbourn."]}
    trace = Elite(ScriptedLLM(replies), made(Settings, recall_index=3, importance_samples=0), embed=trigram_embed).run(
        pride, "Where do the Bennets live?")
    text = report(trace, pride)
    assert text.startswith("What the book says:\n  \"") and "Longbourn" in text.splitlines()[1]
    assert "The model's answer:\nThe Bennets live at Longbourn." in text
    assert "\nCitations:" in text and ", ch. " in text, "cited by the sentence that says it (the grounding check)"
    assert with_citations("see [S10]", pride) == f"see [{pride.sentence(10).citation}]"


def test_report_says_what_the_grounding_check_did(pride):
    """An answer its evidence does not support is marked on the command line as on the page."""
    replies = {"terms": ["Longbourn"], "answer": ["The Bennets live in Bath [S3]."]}
    trace = Elite(ScriptedLLM(replies), made(Settings, recall_index=3, importance_samples=0), embed=trigram_embed).run(
        pride, "Where do the Bennets live?")
    note = trace.answer.grounding_note
    assert "marked" in note and f"({note})" in report(trace, pride).splitlines()


def test_pip_install_gives_the_commands(tmp_path):
    """The package builds as a wheel with the four commands, its data files, and requirements.txt's pins."""
    import zipfile

    subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation", str(ROOT),
                    "-w", str(tmp_path)], check=True, capture_output=True, timeout=300)
    wheel = zipfile.ZipFile(next(tmp_path.glob("elite_reader-*.whl")))
    names = wheel.namelist()
    info = next(n for n in names if n.endswith(".dist-info/entry_points.txt")).rsplit("/", 1)[0]
    scripts = wheel.read(f"{info}/entry_points.txt").decode()
    for command in ("elite-reader = app:main", "elite-ask = ", "elite-bench = ", "elite-models = "):
        assert command in scripts
    assert {"app.py", "elite_ui/models/catalogue.toml", "elite_ui/app/static/style.css"} <= set(names)
    metadata = wheel.read(f"{info}/METADATA").decode()
    assert "Requires-Dist: gradio[mcp]==6.31.0" in metadata and "Requires-Dist: mcp==1.30.0" in metadata
