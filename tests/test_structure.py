"""The book's own structure: chapter numbers as its headings give them, parts, front matter; the spoiler ceiling
that uses them and leaves the front matter out."""

import pytest

from elite_ui.book import reading_ceiling
from elite_ui.book.scope import named_part
from elite_ui.book.structure import Heading, labels, number, read_heading, structure
from elite_ui.errors import BookError
from elite_ui.methods.elite import Elite, Settings
from elite_ui.methods.elite.counting import count
from elite_ui.models import ScriptedLLM


def test_numbers_are_read_as_the_book_writes_them():
    assert [number(t) for t in ("10", "X", "xiv", "ten", "Tenth", "LXI", "nonsense", None)] == \
        [10, 10, 14, 10, 10, 61, None, None]
    assert read_heading("CHAPTER X.") == Heading("chapter", "chapter", 10)
    assert read_heading("Chapter the Tenth") == Heading("chapter", "chapter", 10)
    assert read_heading("I. THE RIVER BANK") == Heading("chapter", "", 1)
    assert read_heading("BOOK FIRST—A JUST MAN") == Heading("part", "book", 1)
    assert read_heading("Letter 4") == Heading("chapter", "letter", 4)
    assert [number(t) for t in ("thirteen", "Twenty-One", "twenty one", "THIRTIETH", "forty-second")] == \
        [13, 21, 21, 30, 42]
    assert read_heading("CHAPTER TWENTY-ONE. The Storm") == Heading("chapter", "chapter", 21)
    assert read_heading("BOOK ELEVENTH—THE ATOM FRATERNIZES") == Heading("part", "book", 11)
    assert read_heading("XIV") == Heading("chapter", "", 14)


def test_front_matter_parts_and_chapters_restarting_in_each_part():
    titles = ["A TALE", "PREFACE", "PART I CHAPTER I THE TRAIL CHAPTER II THE WOLF CHAPTER III THE CRY",
              "Book the First", "CHAPTER I", "CHAPTER II", "Book the Second", "CHAPTER I", "CHAPTER THE LAST"]
    headings = structure(titles, opening=True)
    assert [h.kind for h in headings] == ["front", "front", "front", "part", "chapter", "chapter", "part", "chapter",
                                          "chapter"]
    assert headings[-1].number == 2, "the last chapter follows the one before it"
    refs = [ref for ref, _ in labels(titles, headings)]
    assert refs == ["front matter", "preface", "front matter", "bk. 1", "bk. 1, ch. 1", "bk. 1, ch. 2", "bk. 2",
                    "bk. 2, ch. 1", "bk. 2, ch. 2"]
    assert labels(titles, headings)[5][1] == "book 1, chapter 2"


def test_pride_and_prejudice_counts_its_chapters_as_austen_did(pride):
    front = [c.title for c in pride.chapters if c.kind == "front"]
    assert front == ["Pride and Prejudice", "PREFACE."]
    chapters = [c for c in pride.chapters if c.kind == "chapter"]
    assert len(chapters) == 61 and chapters[9].title == "CHAPTER X." and chapters[9].ref == "ch. 10"
    assert pride.sentence(chapters[9].first_sentence).citation.endswith(", ch. 10")
    assert pride.first_read == chapters[0].first_sentence


def test_a_ceiling_uses_the_book_s_own_chapter_numbers(pride):
    last, label = reading_ceiling(pride, "chapter 10")
    assert label == "chapter 10 (CHAPTER X.)" and pride.sentence(last + 1).chapter_name == "chapter 11"
    assert reading_ceiling(pride, "chapter X") == reading_ceiling(pride, "ch. 10") == (last, label)
    with pytest.raises(BookError, match="chapter 900 is not in this book, which has chapters 1 to 61"):
        reading_ceiling(pride, "chapter 900")
    with pytest.raises(BookError, match="not a reading position"):
        reading_ceiling(pride, "chapter " + "9" * 5000)


def test_a_ceiling_may_be_said_as_a_reader_says_it(pride, write_book):
    """"up to the end of chapter 10", "I've read the first ten chapters", "the tenth chapter", "chap. 10" are chapter
    10; "I'm on chapter 11" and "the start of chapter 11" are where chapter 11 begins (read up to the one before); a
    part may come after its chapter ("chapter 2 of book 1")."""
    tenth = reading_ceiling(pride, "chapter 10")
    for said in ("up to the end of chapter 10", "I've read the first ten chapters.", "through chapter 10",
                 "the tenth chapter", "the 10th chapter", "chap. 10", "chapter 10 end",
                 "up to and including chapter 10"):
        assert reading_ceiling(pride, said) == tenth, said
    for said in ("I'm on chapter 11", "the start of chapter 11", "reading chapter 11",
                 "at the beginning of chapter 11"):
        assert reading_ceiling(pride, said) == (tenth[0], "the start of chapter 11 (CHAPTER XI.)"), said
    assert reading_ceiling(pride, "I've read 40%") == reading_ceiling(pride, "40%")
    for said in ("I finished chapter 10", "I read up to chapter 10", "10", "ten"):
        assert reading_ceiling(pride, said) == tenth, said
    half = reading_ceiling(pride, "50%")
    for said in ("halfway", "I'm halfway through", "half the book", "about half of the way through"):
        assert reading_ceiling(pride, said) == (half[0], "50% of the book"), said
    assert reading_ceiling(pride, "two thirds of it")[1] == "67% of the book"
    assert reading_ceiling(pride, "the last chapter") == reading_ceiling(pride, "chapter 61")
    assert reading_ceiling(pride, "I'm on the last chapter")[1] == "the start of chapter 61 (CHAPTER LXI.)"
    for whole in ("I've finished the book", "the whole book", "all of it", "the end", "I'm at the end"):
        assert reading_ceiling(pride, whole) is None, "the whole book read: no ceiling"
    for typo in ("the", ".", "!"):
        with pytest.raises(BookError, match="not a reading position"):
            reading_ceiling(pride, typo)
    text = "Book the First\n\n" + "".join(f"CHAPTER {r}\n\nThe ship sailed on day {r}.\n\n" for r in ("I", "II"))
    text += "Book the Second\n\nCHAPTER I. Araby\n\nThe storm came on.\n\n"
    book = write_book("A Voyage\n\n" + text)
    assert reading_ceiling(book, "chapter 2 of book 1") == reading_ceiling(book, "book 1, chapter 2")
    last, label = reading_ceiling(book, "I'm on Araby")
    assert label == "the start of book 2, chapter 1 (CHAPTER I. Araby)" and book.sentence(last + 1).text == (
        "CHAPTER I. Araby")
    with pytest.raises(BookError, match="not a reading position"):
        reading_ceiling(book, "I've read it")
    counted = reading_ceiling(book, "I've read the first three chapters")
    assert counted == reading_ceiling(book, "the third chapter") == reading_ceiling(book, "book 2, chapter 1"), (
        "a count of chapters counts the book's, whatever their numbers within its books")
    assert reading_ceiling(book, "I'm on the third chapter") == reading_ceiling(book, "the start of book 2, chapter 1")
    with pytest.raises(BookError, match="this book has 3 chapters, not 4"):
        reading_ceiling(book, "the first 4 chapters")
    with pytest.raises(BookError, match="this book has no volumes"):
        reading_ceiling(book, "the first two volumes")
    plain = write_book("Numbers\n\n" + "".join(f"Chapter {n}\n\nThe day {n} came.\n\n" for n in (1, 2)))
    assert reading_ceiling(plain, "chapter 2")[1] == "chapter 2", "a heading that says only its number is not repeated"


def test_a_ceiling_may_be_a_chapter_s_title(write_book):
    """A collection's stories and many novels' chapters are known by title: "Araby", "the Wild Wood" for "III. THE
    WILD WOOD", "Recalled to Life" for "Book the First--Recalled to Life", the case, division and number aside; a
    title two parts share asks for the number, and words no heading ends with are no position."""
    text = "Book the First--Recalled to Life\n\n" + "".join(
        f"CHAPTER {r}. The {t}\n\nThe coach went on through the {t.lower()}.\n\n" for r, t in (("I", "Period"),
                                                                                               ("II", "Mail")))
    text += "Book the Second--The Golden Thread\n\nCHAPTER I. The Mail\n\nThe mail came in again.\n\n"
    text += "CHAPTER II. The She-Wolf\n\nThe wolf ran.\n\nCHAPTER III. Storm\n\nThe storm broke.\n\n"
    book = write_book("Two Towns\n\n" + text)
    last, label = reading_ceiling(book, "the period")
    assert label == "book 1, chapter 1 (CHAPTER I. The Period)" and "period" in book.sentence(last).text
    assert reading_ceiling(book, "Period") == reading_ceiling(book, "'The Period'") == (last, label)
    assert reading_ceiling(book, "Recalled to Life")[1].startswith("book 1 (")
    assert reading_ceiling(book, "golden thread")[0] == len(book) - 1, "the last part runs to the book's end"
    assert reading_ceiling(book, "she-wolf")[1].startswith("book 2, chapter 2")
    assert reading_ceiling(book, "the storm")[1] == "book 2, chapter 3 (CHAPTER III. Storm)", "a 'the' it lacks"
    with pytest.raises(BookError, match=r'"The Mail" is the title of several parts .* e.g. "book 2, chapter 1"'):
        reading_ceiling(book, "The Mail")
    for nothing in ("the coach", "Life", "The", "Two Towns"):
        with pytest.raises(BookError, match=r"not a reading position; .* a chapter's title"):
            reading_ceiling(book, nothing)


def test_a_chapter_number_in_several_parts_asks_which(write_book):
    text = "Book the First\n\n" + "".join(f"CHAPTER {r}\n\nThe ship sailed on day {r}.\n\n" for r in ("I", "II"))
    text += "Book the Second\n\n" + "".join(f"CHAPTER {r}\n\nThe storm came on night {r}.\n\n" for r in ("I", "II"))
    book = write_book("A Voyage\n\n" + text)
    with pytest.raises(BookError, match=r'chapter 2 is in several parts of this book .* "book 2, chapter 2"'):
        reading_ceiling(book, "chapter 2")
    last, label = reading_ceiling(book, "book 1, chapter 2")
    assert label.startswith("book 1, chapter 2") and "storm" not in book.span_text(0, last)
    last, _ = reading_ceiling(book, "book 1")
    assert book.sentence(last + 1).chapter_name == "book 2"
    for asked in ("What happens in book two, chapter two?", "What happens in chapter two of book two?"):
        first, _, name = named_part(book, asked)
        assert name.startswith("book 2, chapter 2") and "night II" in book.sentence(first + 1).text, asked
    letters = write_book("Letters Home\n\n" + text.replace("Book", "Part").replace("CHAPTER", "LETTER"),
                         "letters.txt")
    assert named_part(letters, "What happens in letter 2 of part 2?")[2] == "part 2, letter 2 (LETTER II)"


def test_under_a_ceiling_the_front_matter_is_not_searched_or_counted_unless_asked(pride):
    last, label = reading_ceiling(pride, "chapter 10")
    read = pride.up_to(last, label)
    preface = range(pride.chapters[1].first_sentence, pride.first_read)
    lydia = {int(s) for s in read.index.postings("lydia")}
    assert lydia and not lydia & set(preface), "the preface tells what happens to Lydia"
    assert all(o.sentence_id >= pride.first_read for o in count(read, "Wickham").occurrences)
    with_front = pride.up_to(last, label, front=True)
    assert {int(s) for s in with_front.index.postings("lydia")} & set(preface)
    assert read.ceiling.first == pride.first_read and with_front.ceiling.first == 0


def chaptered(heading, chapters: int = 15, paragraphs: int = 12) -> str:
    """A book whose chapters are headed ``heading(n)`` (n from 1), each chapter's paragraphs saying its number."""
    def body(n: int) -> str:
        return "\n\n".join(f"In chapter {n} the man walked to the door for the {k}th time. She said nothing."
                           for k in range(paragraphs))

    return "THE TEST BOOK\n\nby Some Author\n\n" + "\n\n".join(f"{heading(n)}\n\n{body(n)}"
                                                               for n in range(1, chapters + 1))


ROMAN_NUMERALS = ["", "I", "II", "III", "IV", "V", "VI", "VII", "VIII", "IX", "X", "XI", "XII", "XIII", "XIV", "XV"]
WORDED_NUMBERS = ["", "One", "Two", "Three", "Four", "Five", "Six", "Seven", "Eight", "Nine", "Ten", "Eleven",
                  "Twelve", "Thirteen", "Fourteen", "Fifteen"]


@pytest.mark.parametrize("heading", [
    lambda n: ROMAN_NUMERALS[n],  # The Great Gatsby, Heart of Darkness: a numeral alone
    lambda n: " " * 30 + ROMAN_NUMERALS[n],  # centred
    lambda n: f"{n}\n\nThe Old Sea-dog at the Admiral Benbow",  # Treasure Island: a number, then the title
    lambda n: f"{n}. The Boy Who Lived",
    lambda n: f"- {n} -",
    lambda n: WORDED_NUMBERS[n],
    lambda n: f"CHAPTER {WORDED_NUMBERS[n].upper()}",
    lambda n: f"Chapter Twenty-{WORDED_NUMBERS[n]}" if n < 10 else f"Chapter Thirty-{WORDED_NUMBERS[n - 10]}",
], ids=["bare roman", "centred roman", "bare number and a title", "number and title", "dashes", "a word alone",
        "words past twelve", "words past twenty"])
def test_a_ceiling_lands_at_the_end_of_the_chapter_named_however_the_book_numbers_it(write_book, heading):
    """Chapters headed by a numeral alone, or numbered in words past twelve, were not all found: "chapter 5" of a
    book headed "I", "II", ... ended with the seventh (its I, V and X missed, the rest counted in order), so the
    reader was shown two chapters beyond the ceiling."""
    book = write_book(chaptered(heading))
    last, label = reading_ceiling(book, "chapter thirty-four" if "Twenty" in book.text else "chapter 14")
    said = book.span_text(0, last)
    assert "In chapter 14 " in said and "In chapter 15 " not in said, label


def test_a_table_of_contents_written_an_entry_to_a_paragraph_heads_no_chapter(write_book):
    """Each entry had been a chapter of its own, so every chapter was in the book twice, and a ceiling at "chapter
    14" was refused as "in several parts of this book"."""
    contents = "CONTENTS\n\n" + "\n\n".join(f"CHAPTER {ROMAN_NUMERALS[n]}. The Title" for n in range(1, 16))
    book = write_book(chaptered(lambda n: f"CHAPTER {ROMAN_NUMERALS[n]}. The Title").replace(
        "by Some Author\n\n", f"by Some Author\n\n{contents}\n\n"))
    assert [c.ref for c in book.chapters if c.kind == "chapter"] == [f"ch. {n}" for n in range(1, 16)]
    last, _ = reading_ceiling(book, "chapter 14")
    assert "In chapter 14 " in book.span_text(0, last) and "In chapter 15 " not in book.span_text(0, last)
    listed = "CONTENTS\n\n" + "\n\n".join(f"{n}. The Title" for n in range(1, 16))
    book = write_book(chaptered(lambda n: f"{n}. The Title").replace("by Some Author\n\n",
                                                                     f"by Some Author\n\n{listed}\n\n"))
    assert [c.ref for c in book.chapters if c.kind == "chapter"] == [f"ch. {n}" for n in range(1, 16)]
    parts = "VOLUME I\n\nBOOK FIRST\n\nCHAPTER I. The Title\n\nIt began."
    book = write_book(f"A BOOK\n\n{contents}\n\n{parts}\n\nCHAPTER II\n\nIt went on.\n\nCHAPTER III\n\nIt ended.")
    assert [c.ref for c in book.chapters if c.kind != "front"] == ["vol. 1", "vol. 1, bk. 1", "ch. 1", "ch. 2", "ch. 3"]


def test_numerals_alone_that_start_again_in_each_part_ask_which_part(write_book):
    book = write_book(chaptered(lambda n: (f"PART {WORDED_NUMBERS[(n + 4) // 5].upper()}\n\n" if n % 5 == 1 else "")
                                + str((n - 1) % 5 + 1)))
    with pytest.raises(BookError, match="chapter 2 is in several parts"):
        reading_ceiling(book, "chapter 2")
    last, label = reading_ceiling(book, "part 2, chapter 4")
    assert "In chapter 9 " in book.span_text(0, last) and "In chapter 10 " not in book.span_text(0, last), label


def test_a_numeral_alone_heads_a_chapter_only_where_such_numerals_count_up(write_book):
    """A stray numeral, a printed page's number kept in a text every few paragraphs, or a chapter's numbered
    sections, is no chapter."""
    pages = "\n\n".join(f"Words of page {n} went on. More words.\n\n{n}" for n in range(1, 30))
    assert not [c for c in write_book("A BOOK\n\n" + pages).chapters if c.kind == "chapter" and c.title.isdigit()]
    stray = chaptered(lambda n: f"CHAPTER {ROMAN_NUMERALS[n]}").replace("In chapter 7 ", "II\n\nIn chapter 7 ", 1)
    assert [c.ref for c in write_book(stray).chapters if c.kind == "chapter"] == [f"ch. {n}" for n in range(1, 16)]
    sections = chaptered(lambda n: f"CHAPTER {ROMAN_NUMERALS[n]}\n\n" + "\n\n".join(
        f"{k}\n\n" + f"Here part {k} of chapter {n} went on at some length.\n\n" * 12 for k in range(1, 4)))
    assert [c.ref for c in write_book(sections).chapters if c.kind == "chapter"] == [f"ch. {n}" for n in range(1, 16)]


def test_a_long_heading_in_capitals_is_still_a_chapter(write_book):
    long_title = ("CHAPTER III—THE ANKLE-CHAIN MUST HAVE UNDERGONE A CERTAIN PREPARATORY MANIPULATION TO BE THUS "
                  "BROKEN WITH A BLOW FROM A HAMMER")
    body = "The convict walked along the quay and looked at the ships in the harbour for a long while. " * 3
    book = write_book("\n\n".join(["CHAPTER I—THE QUAY", body, "CHAPTER II—THE SHIP", body, long_title, body,
                                   "CHAPTER IV—THE ROAD", body]))
    assert len(long_title) > 120
    assert [c.ref for c in book.chapters if c.kind == "chapter"] == ["ch. 1", "ch. 2", "ch. 3", "ch. 4"]
    assert book.chapters[-2].title.startswith("CHAPTER III—THE ANKLE-CHAIN")


def test_a_title_in_capitals_with_a_stray_full_stop_reads_as_a_title():
    """Issue 38: "PRIDE. and PREJUDICE" was the title everywhere, file names included."""
    from elite_ui.book.headings import clean_title

    assert clean_title("PRIDE. and PREJUDICE") == "Pride and Prejudice"
    assert clean_title("LES MISÉRABLES") == "Les Misérables" and clean_title("Frankenstein;") == "Frankenstein"
    assert clean_title("A TALE OF TWO CITIES") == "A Tale of Two Cities"
    assert clean_title("The Wind in the Willows") == "The Wind in the Willows"


def test_the_trace_names_a_chapter_as_the_book_numbers_it(pride):
    """Issue 38: the JSON export gave "CHAPTER X." as chapter 11 (its place, front matter counted) alone."""
    from elite_ui.methods.trace import Place

    chapter_x = next(c for c in pride.chapters if c.title == "CHAPTER X.")
    place = Place.at(pride.sentence(chapter_x.first_sentence))
    assert place.chapter_ref == "ch. 10" and place.chapter_title == "CHAPTER X."


def test_a_story_collection_counts_its_first_story_and_no_headline_quoted_in_a_story(write_book):
    """Dubliners' hard-wrapped text sets each story's title off with blank lines after a title page ("DUBLINERS",
    "by James Joyce"): its first story is chapter 1, searched under a ceiling (it was taken for the title page and
    left out as front matter), the newspaper's headline quoted in a later story, two indented lines in capitals,
    is no story, and a story's title is never quoted as what the book says ("THE SISTERS" for "sisters")."""
    import textwrap

    def story(said: str) -> str:
        return "\n".join(textwrap.fill(f"{said} The evening was long and the street was quiet outside. " * 4, 70)
                         for _ in range(3))

    headline = "     DEATH OF A LADY AT SYDNEY PARADE\n     A PAINFUL CASE\n"
    text = "\n\n".join(["DUBLINERS\nby James Joyce", "THE SISTERS", story("Father Flynn had died."), "ARABY",
                        story("The boy went to the bazaar."), "A PAINFUL CASE",
                        story("Mr Duffy read the paper.") + "\n" + headline + story("He read it again.")])
    book = write_book(text)
    assert [(c.title, c.ref) for c in book.chapters[1:]] == [("THE SISTERS", "ch. 1"), ("ARABY", "ch. 2"),
                                                            ("A PAINFUL CASE", "ch. 3")]
    read = book.up_to(*reading_ceiling(book, "chapter 1"))
    assert len(read.index.postings("flynn")) == 12 and not len(read.index.postings("bazaar"))
    headings = {c.first_sentence for c in book.chapters[1:]}
    assert book.headings == headings and book.sentence(min(headings)).text == "THE SISTERS"
    quoted = Elite(ScriptedLLM({}), Settings()).quotes(book, "Who are the sisters?", None, list(range(len(book))))
    assert quoted == [], "a heading says nothing of what the question asks"
    assert book.title == "Dubliners" and book.author == "James Joyce"


def test_a_title_written_over_two_lines_and_an_author_without_by():
    """Huckleberry Finn's title page reads "The Adventures of" / "Huckleberry Finn" / "Mark Twain", and its notice
    "BY ORDER OF THE AUTHOR": the title was "The Adventures of", the author "ORDER OF THE AUTHOR"; Middlemarch's
    "George Eliot", under the title, was no author."""
    from elite_ui.book.headings import title_and_author
    from elite_ui.book.segment import paragraph_spans

    def read(text: str) -> tuple[str, str]:
        return title_and_author(text, paragraph_spans(text), {})

    notice = "NOTICE\nPERSONS attempting to find a motive will be prosecuted.\nBY ORDER OF THE AUTHOR,"
    assert read(f"The Adventures of\nHuckleberry Finn\nMark Twain\n{notice}") == ("The Adventures of Huckleberry "
                                                                                  "Finn", "Mark Twain")
    assert read("Middlemarch\nGeorge Eliot\nPRELUDE.\nWho that cares much to know...") == ("Middlemarch",
                                                                                        "George Eliot")
    assert read("Frankenstein\nChapter One\nI am by birth a Genevese.") == ("Frankenstein", "")
    assert read("Emma\nby Jane Austen\nVOLUME I") == ("Emma", "Jane Austen")
