"""Nothing beyond the reader's ceiling reaches any surface (the leak harness, on a few questions; the benchmark
``benchmarks/leaks.py`` asks 500)."""


from elite_ui.methods.elite import PRESETS
from elite_ui.settings import with_overrides
from elite_ui.testing.leaks import scan

QUESTIONS = ["Who does Elizabeth marry?", "What happens to Mr. Darcy in the end?", "Where does Mr. Bingley live?",
             "Who is Wickham?"]
SURFACES = {"answer", "conversation", "trace", "markdown export", "json export", "charts", "api", "names", "x-ray",
            "story"}


def test_no_surface_shows_a_sentence_or_a_name_from_beyond_the_ceiling(pride, willows):
    leaks = scan(pride, "chapter 10", QUESTIONS)
    scan(pride, "chapter 30", QUESTIONS, leaks)
    scan(willows, "chapter 3", ["Who is Toad?", "What happens to Toad's car?"], leaks)
    assert set(leaks.scanned) == SURFACES and leaks.scanned["answer"] == 10
    assert leaks.total == 0, leaks.examples


def test_the_harness_finds_what_a_model_without_the_check_lets_through(pride):
    leaks = scan(pride, "chapter 10", QUESTIONS[:2], settings=with_overrides(PRESETS["laptop"], grounding=False))
    assert leaks.beyond["answer"] == 2 and leaks.beyond["trace"] == 2 and leaks.beyond["json export"] == 2
    assert any("Wickham" in example or "Collins" in example for example in leaks.examples)
