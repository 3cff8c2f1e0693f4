"""Reading what a weak model writes."""

from elite_ui.methods.parsing import (
    clean_answer,
    parse_choice,
    parse_decision,
    parse_sentence_ids,
    parse_terms,
    parse_verdict,
    written_after_copy,
)


def test_terms_from_numbered_lists_commas_and_broken_json():
    assert parse_terms("1. Mr. Darcy\n2. letter, Pemberley\n- 'Wickham'", 10) == [
        "Mr. Darcy", "letter", "Pemberley", "Wickham"]
    assert parse_terms('["Darcy", "letter", "Pemb', 10) == ["Darcy", "letter", "Pemb"]


def test_junk_terms_are_dropped_and_duplicates_merged():
    junk = ("The answer is: Elizabeth\nELIZABETH\nand the various things\nThe answer is\n\n\n"
            "Elizabeth Bennet went to the ball and danced with Mr. Darcy all night\n???\nof the")
    assert parse_terms(junk, 10) == ["Elizabeth"]


def test_term_limit_and_endless_repetition():
    assert parse_terms("Darcy\n" * 500 + "Bingley", 10) == ["Darcy", "Bingley"]
    assert len(parse_terms("\n".join(f"word{i}" for i in range(50)), 10)) == 10


def test_verdicts():
    assert parse_verdict("Yes, the letter explains it.") == (True, "the letter explains it.")
    assert parse_verdict("No. The passages never name her husband.")[0] is False
    assert parse_verdict("The evidence is not sufficient")[0] is False
    assert parse_verdict("Elizabeth walks to Netherfield.")[0] is None
    assert parse_verdict("")[0] is None


def test_choices():
    options = {"A": "Mr. Collins", "B": "Mr. Darcy", "C": "Mr. Bingley", "D": "Mr. Wickham"}
    assert parse_choice("(B)", options) == "B"
    assert parse_choice("The answer is C because", options) == "C"
    assert parse_choice("D. Mr. Wickham", options) == "D"
    assert parse_choice("She marries Mr. Darcy in the end", options) == "B"
    assert parse_choice("I do not know", options) is None


def test_a_decision_after_its_copied_sentence_is_read_from_its_answer_line():
    """With ``quote_first`` the copied sentence may open with "A" or name another option: only the last "Answer:"
    counts, and a reply without one gives no letter (the model's likeliest letter is asked for then)."""
    options = {"A": "Mr. Collins", "B": "Mr. Darcy", "C": "Mr. Bingley", "D": "Mr. Wickham"}
    copied = "[S12] A single man in possession of a good fortune, Mr. Collins said.\nAnswer: (D)"
    assert parse_decision(copied, options, quote_first=True) == "D"
    assert parse_decision("[S12] A single man of fortune.", options, quote_first=True) is None
    assert parse_decision("A single man of fortune.", options, quote_first=False) == "A"
    assert parse_decision("Answer: B. Then answer: C", options, quote_first=True) == "C"


def test_a_written_answer_after_its_copied_sentence_is_cited_by_it():
    """A free-form ``quote_first`` reply: the answer is what follows its last "Answer:", given the copied sentence's
    label where it cites none; a reply with no "Answer:" is its copy, the answer in the book's words."""
    copied = "[S201] As I spoke, a dark gloom spread over his countenance.\nAnswer: His face darkened."
    assert written_after_copy(copied) == "His face darkened [S201]."
    assert written_after_copy("[S201] A gloom.\nAnswer: He wept [S202].") == "He wept [S202]."
    assert written_after_copy("[S201] A dark gloom spread.") == "[S201] A dark gloom spread."
    assert written_after_copy("Copied without a label.\nAnswer: He wept") == "He wept"


def test_sentence_ids_and_repetition_cut():
    assert parse_sentence_ids("See [S12], S40 and [S12].") == [12, 40]
    assert clean_answer("She left. She left. She left.") == "She left."
    assert clean_answer("A.\nB.\nA.") == "A. B."


def test_answers_are_cut_where_the_model_starts_looping():
    assert clean_answer("Elizabeth walked to Pemberley and " + "then she walked again and " * 300) == (
        "Elizabeth walked to Pemberley and then she walked again")
    assert clean_answer("Darcy " * 500) == "Darcy"
    assert clean_answer("He said no, no. It was late. It was late.") == "He said no, no. It was late."
    assert clean_answer("Darcy lives at Pemberley [S12].") == "Darcy lives at Pemberley [S12]."


def test_terms_that_copy_the_prompts_own_wording_are_taken_apart():
    """A small model copies the terms prompt back ("names", "places", "key words from the question"): those words
    are no search; the question's own words stay, even where the instructions use them too."""
    from elite_ui.methods.prompts import TERMS, instructions

    ignore = instructions(TERMS, "Which places did Darcy visit?")
    copied = "names\nplaces\nobjects\nkey words from the question\nDarcy\nPemberley estate\nnames: Wickham"
    assert parse_terms(copied, 10, ignore) == ["places", "Darcy", "Pemberley estate", "Wickham"]
    assert "names" in parse_terms(copied, 10), "without the instructions' words nothing is taken out"
    estate = instructions(TERMS, "What is the name of the Bennets' estate?")
    assert parse_terms("Bennets' estate\nplace\nobjects\nLongbourn", 10, estate) == ["Bennets' estate", "Longbourn"], \
        "an instruction word in another form too ('place' for 'places')"


def test_the_worked_examples_terms_are_no_search_either(willows):
    """With ``terms_example`` the prompt shows terms for another question; a model that copies them ("whitewash",
    "fence") searches none of them, and the example reaches the model only when the setting is on."""
    from elite_ui.methods import Kind
    from elite_ui.methods.elite import Elite
    from elite_ui.methods.elite.settings import PRESETS
    from elite_ui.methods.prompts import TERMS_EXAMPLE, instructions
    from elite_ui.models import ScriptedLLM
    from elite_ui.settings import overridden

    ignore = instructions(TERMS_EXAMPLE, "Which places did Darcy visit?")
    assert parse_terms("Tom\nwhitewash\nfence\nDarcy\nPemberley", 10, ignore) == ["Darcy", "Pemberley"]
    for example in (False, True):
        llm = ScriptedLLM({"terms": ["Toad\nwhitewash\nmotor-car"]})
        settings = overridden(PRESETS["laptop"], [f"terms_example={str(example).lower()}"])
        trace = Elite(llm, settings).run(willows, "What does Toad steal?")
        asked = next(r for r in llm.log if r.purpose == "terms").messages[-1]["content"]
        assert ("For example" in asked) is example
        terms = [t.text for e in trace.events if e.kind == Kind.TERMS for t in e.data.new if t.by == "model"]
        assert "motor-car" in terms and ("whitewash" in terms) is not example
