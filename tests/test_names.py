"""The character-name index: variants of each character's name found in the book, offered to the search and
edited by the reader as text."""

import re

import pytest

from elite_ui.book import load_book, reading_ceiling
from elite_ui.book.names import NameIndex, NamesError, build_names, names_for, save_names, story_text, written_as
from elite_ui.methods.elite import Elite, Settings
from elite_ui.models import ScriptedLLM
from elite_ui.settings import made
from elite_ui.testing.languages import sample_text

from .conftest import BOOKS, trigram_embed


@pytest.fixture(scope="module")
def pride_names(pride):
    return build_names(pride)


def named(index: NameIndex, name: str):
    return next(c for c in index.characters if c.name == name)


def test_nicknames_and_full_names_join_their_character(pride_names):
    elizabeth = named(pride_names, "Elizabeth Bennet")
    assert {"Elizabeth", "Lizzy", "Eliza", "Miss Elizabeth Bennet"} <= set(elizabeth.variants)
    assert pride_names.characters[0] is elizabeth and elizabeth.mentions > 700


def test_titled_surnames_shared_by_a_family_stay_apart(pride_names):
    names = {c.name for c in pride_names.characters}
    assert {"Mr. Darcy", "Miss Darcy", "Mr. Bennet", "Mrs. Bennet", "Lydia", "Mr. Collins", "Mrs. Hurst"} <= names
    assert "Mrs. Bennet" not in named(pride_names, "Mr. Bennet").variants
    assert "Bennet" not in named(pride_names, "Elizabeth Bennet").variants, "the family name is no one's alone"


def test_a_wife_first_named_by_her_maiden_name_is_her_husbands_mrs(pride_names):
    """"Mrs. Collins" comes after Charlotte Lucas and beside Mr. Collins and "married" in more sentences, for how
    often she is named, than any other woman: hers; Mrs. Bennet, a wife before the story begins, stays apart."""
    assert "Mrs. Collins" in named(pride_names, "Charlotte Lucas").variants
    assert "Mrs. Collins" not in named(pride_names, "Mr. Collins").variants
    assert not any("Mrs. Bennet" in c.variants for c in pride_names.characters if c.name != "Mrs. Bennet")


def test_the_eldest_daughter_is_miss_and_her_surname(pride_names):
    """"Miss Bennet" is Jane (her sisters are "Miss Elizabeth", "Miss Lydia"), "Miss Bingley" Caroline, "Miss Darcy"
    Georgiana: each the one woman the book names in full with that surname."""
    assert "Miss Bennet" in named(pride_names, "Jane").variants
    assert "Caroline" in named(pride_names, "Miss Bingley").variants
    assert "Georgiana" in named(pride_names, "Miss Darcy").variants
    assert "Miss Bennet" not in named(pride_names, "Elizabeth Bennet").variants


STORY = """CHAPTER I

{}
"""


def story_names(tmp_path, paragraphs: list[str]) -> NameIndex:
    """The names found in a one-chapter story of ``paragraphs``."""
    path = tmp_path / "story.txt"
    path.write_text(STORY.format("\n\n".join(paragraphs)), encoding="utf-8")
    return build_names(load_book(path))


def test_middle_names_titles_with_given_names_kin_and_married_names(tmp_path):
    """A three-word name joins its surname's character, "St. John" joins "St. John Rivers", "Aunt Reed" is Mrs. Reed,
    a woman's given name with a man's surname is her married name, "Janet" is a Jane."""
    lines = ["It was noon, and Edward Fairfax Rochester came, and he sat.",
             "It rained, and Mr. Rochester spoke, and he laughed.",
             "It was dawn, and St. John Rivers rose, and he read.", "It was late, and Rochester nodded, and he left.",
             "It was dark, and Jane Eyre wrote, and she waited.", "It was cold, and Mrs. Reed frowned, and she sighed.",
             "It was over, and Aunt Reed left.", "It was Sunday, and St. John prayed, and he knelt.",
             "It was spring, and Jane walked, and she sang.", "It was late, and he called Janet, and she came.",
             "It was May, and Diana Rivers came, and she smiled.", "It was June, and Jane Eyre read, and she smiled."]
    extra = ["'Jane Rochester,' said she.", "'Jane Rochester,' she said.", "'Edward Fairfax Rochester,' said he.",
             "'Fairfax Rochester,' said she.", "'Fairfax Rochester,' she said."]
    names = story_names(tmp_path, lines * 3 + extra)
    rochester = set(names.find("Mr. Rochester").variants)
    assert {"Edward Fairfax Rochester", "Fairfax Rochester", "Edward Fairfax"} <= rochester
    assert "St. John" in names.find("St. John Rivers").variants
    assert "Aunt Reed" in names.find("Mrs. Reed").variants
    assert {"Jane", "Jane Rochester", "Janet"} <= set(names.find("Jane Eyre").variants)
    assert "Diana Rivers" not in names.find("St. John Rivers").variants


def test_a_given_name_written_with_its_middle_name_and_its_surname_alike_is_still_one_man(tmp_path):
    """"Konstantin" alone is Konstantin Levin, whom the book calls "Konstantin Dmitrievitch" about as often: both
    are parts of "Konstantin Dmitrievitch Levin", written in full, not two men's names (Anna Karenina had kept
    "Konstantin" apart); Mary Ingram and Mary Rivers, never written together, keep "Mary" apart from both."""
    lines = ["It was noon, and Konstantin Levin came, and he sat.", "It rained, and Konstantin Dmitrievitch spoke.",
             "It was late, and Konstantin nodded, and he left.", "It was dawn, and Mary Ingram rose, and she read.",
             "It was May, and Mary Rivers came, and she smiled.", "It was June, and Mary sang, and she smiled."]
    extra = ["'Konstantin Dmitrievitch Levin,' said she.", "'Konstantin Dmitrievitch Levin,' she said."]
    names = story_names(tmp_path, lines * 3 + extra)
    assert {"Konstantin", "Konstantin Dmitrievitch", "Konstantin Levin"} <= set(names.find("Konstantin Levin").variants)
    assert names.find("Mary").name == "Mary"


def test_names_with_letters_beyond_a_to_z_are_names(tmp_path):
    """Les Misérables' "Thénardier" and "Éponine", Jane Eyre's "Adèle": a capital and small letters of any alphabet
    (the finder read A to Z alone, and Les Misérables had no Thénardier, written 441 times, nor Éponine)."""
    lines = ["It was noon, and Éponine Thénardier came, and she sat.", "It rained, and Éponine spoke, and she laughed.",
             "It was late, and Monsieur Thénardier nodded, and he left.",
             "It was dawn, and Adèle sang, and she danced."]
    names = story_names(tmp_path, lines * 3)
    assert {"Éponine", "Éponine Thénardier"} <= set(names.find("Éponine").variants)
    assert names.find("Monsieur Thénardier").name == "Monsieur Thénardier", "a man, not Éponine"
    assert names.find("Adèle").name == "Adèle"
    assert names.find("Eponine") is names.find("eponine thenardier") is names.find("Éponine"), "typed without marks"


def test_hyphened_names_and_a_name_whose_first_word_is_a_word(tmp_path):
    """White Fang's "Lip-lip" and "Mit-sah" are names (the finder cut them at the hyphen: "Lip" was lost, "Mit" was
    listed), "Champ-de-Mars" gives no "Champ-de"; "Grey Beaver" is one name though the book writes "grey" as a word
    (it was read as "Beaver"), while the Water Rat, whom the book mostly calls "Rat", stays "Rat"."""
    lines = ["It was noon, and Lip-lip came, and he bit.", "It rained, and Mit-sah spoke, and he laughed.",
             "It was late, and Grey Beaver nodded, and he smoked.", "The grey wolf ran, and the grey sky fell.",
             "It was dark, and the grey cub slept in the water.", "It was cold, and Lip-lip's teeth shone.",
             "They walked on the Champ-de-Mars, and it rained.", "It was dawn, and the Water Rat rowed, and he sang.",
             "It was dusk, and Rat slept.", "It was May, and Rat rowed.", "It was June, and Rat ate."]
    names = story_names(tmp_path, lines * 3)
    listed = {c.name for c in names.characters}
    assert {"Lip-lip", "Mit-sah", "Grey Beaver", "Rat"} <= listed, listed
    assert not listed & {"Lip", "Mit", "Beaver", "Champ-de", "Water Rat"}, listed
    assert names.find("lip-lip").mentions == 6


def test_a_full_name_written_once_joins_the_man_of_its_surname(tmp_path, pride_names):
    """Middlemarch writes "The Rev. Camden Farebrother" once: "Camden" is Mr. Farebrother, not a character of his own
    (it had also taken "Miss Farebrother", his sister); Frankenstein's "Henry Clerval", once, makes "Henry" Clerval.
    Pride and Prejudice's "Mr. Fitzwilliam Darcy", once, is no reason to take its "Fitzwilliam" (Colonel Fitzwilliam)
    for Darcy, nor "the Marché Lenoir", a market, to take the Marché for Father Lenoir."""
    lines = ["It was noon, and Mr. Farebrother came, and he sat.", "It rained, and Farebrother spoke, and he laughed.",
             "It was dusk, and Camden smiled, and he sat.", "It was late, and Miss Farebrother sewed, and she sang.",
             "It was noon; and Clerval came, and he read.", "It was dusk; and Henry wrote, and he slept.",
             "It was noon, and Father Lenoir came, and he prayed.", "They met in the Marché, and it rained."]
    once = ["The Rev. Camden Farebrother lived in an old parsonage.", "I perceived Henry Clerval at the door.",
            "They drank in the Marché Lenoir, and it rained."]
    rain = ["It rained all day, and the fields were wet."] * 40  # each full name within one fortieth of the book
    names = story_names(tmp_path, lines * 3 + once + rain)
    assert "Camden" in names.find("Mr. Farebrother").variants
    assert "Henry" in names.find("Clerval").variants
    assert names.find("Miss Farebrother").name == "Miss Farebrother"
    assert "Fitzwilliam" not in named(pride_names, "Mr. Darcy").variants
    assert names.find("Father Lenoir").name == "Father Lenoir"


def test_a_place_before_a_name_is_no_given_name(tmp_path):
    """"In Moscow Levin had been struck" names Levin in Moscow, not a "Moscow Levin"; a house's name ("at Maple
    Grove") is no character either, though the book writes "Maple" before "Grove" alone."""
    lines = ["It was noon, and Levin came, and he sat.", "It rained, and Mr. Levin spoke, and he laughed.",
             "They went to Moscow, and it was cold.", "She lived in Moscow, and she wrote.",
             "It was late, and Moscow was asleep.", "They drove to Maple Grove, and it rained.",
             "She spoke of Maple Grove, and she smiled."]
    extra = ["In Moscow Levin had been struck by it.", "In Moscow Levin had many arguments."]
    names = {c.name for c in story_names(tmp_path, lines * 3 + extra).characters}
    assert "Levin" in names and not names & {"Moscow Levin", "Moscow", "Maple Grove"}, names


def test_a_wife_named_once_before_her_marriage_is_told_is_still_her_married_name(tmp_path):
    """Emma's "a Mrs. Weston" is written once before Miss Taylor's marriage to Mr. Weston is told: "Mrs. Weston"
    is still Miss Taylor's married name (it had stood apart), and a wife named from the start, as often before
    the marriage sentences as after, is nobody's."""
    early = ["It would be a Mrs. Weston, she thought, and she smiled."]
    told = ["It was noon, and Miss Taylor married Mr. Weston, and she smiled."] * 3
    lines = ["It rained, and Mr. Weston spoke, and he laughed.", "It was late, and Miss Taylor sang, and she sat.",
             "It was spring, and Mrs. Weston walked, and she smiled."]
    assert "Miss Taylor" in story_names(tmp_path, early + lines[:2] * 3 + told + lines * 3).find("Mrs. Weston").variants
    assert "Miss Taylor" not in story_names(tmp_path, lines * 3 + told + lines * 3).find("Mrs. Weston").variants


def test_a_first_name_that_is_another_familys_surname_is_no_middle_name(tmp_path):
    """Heathcliff's son "Linton Heathcliff", named for Edgar Linton's family, is not Heathcliff (Wuthering Heights
    listed Heathcliff under his son's name)."""
    lines = ["It was noon, and Heathcliff came, and he sat.", "It rained, and Mr. Heathcliff spoke, and he laughed.",
             "It was dawn, and Edgar Linton rose, and he read.", "It was late, and Mr. Linton nodded, and he left."]
    path = tmp_path / "heights.txt"
    path.write_text(STORY.format("\n\n".join(lines * 3 + ["'Linton Heathcliff,' said she."] * 3)),
                    encoding="utf-8")
    heathcliff = build_names(load_book(path)).find("Heathcliff")
    assert {"Heathcliff", "Mr. Heathcliff"} <= set(heathcliff.variants)
    assert "Linton Heathcliff" not in heathcliff.variants


def test_a_given_name_a_servant_titles_is_still_a_given_name(tmp_path):
    """"Mr. Edgar", as the servants call Edgar Linton more often than the book writes his full name, does not make
    "Edgar" a surname: Edgar and Mr. Edgar are Edgar Linton."""
    lines = ["It was noon, and Edgar Linton came, and he sat.", "It rained, and Mr. Edgar spoke, and he laughed.",
             "It was late, and Mr. Edgar nodded, and he left.", "It was dawn, and Edgar rose, and he read.",
             "It was dusk, and Edgar wrote, and he slept.", "It was May, and Edgar rode, and he sang."]
    path = tmp_path / "heights.txt"
    path.write_text(STORY.format("\n\n".join(lines * 3)), encoding="utf-8")
    assert {"Edgar", "Mr. Edgar"} <= set(build_names(load_book(path)).find("Edgar Linton").variants)


def test_places_are_not_characters(pride_names):
    names = {v for c in pride_names.characters for v in c.variants}
    assert not {"Longbourn", "Netherfield", "Pemberley", "Meryton"} & names


def test_diminutives_join_their_stem():
    wind = build_names(load_book(BOOKS["the-wind-in-the-willows.txt"]))
    assert {"Ratty", "Mr. Rat"} <= set(named(wind, "Rat").variants)
    assert "Toady" in named(wind, "Toad").variants


def test_short_forms_of_longer_names_of_the_same_sex_and_a_bare_surname_is_a_mans(tmp_path):
    """Rosy is a Rosamond and Dodo a Dorothea (no nickname table lists them), Harry no Harriet; Mary and Marie, names
    in their own right, are no Marius whatever the pronouns say (Les Misérables had merged them); "Weston" alone is
    Mr. Weston, though Mrs. Weston is written more."""
    from elite_ui.book.names import nickname_of

    genders = {"Rosamond": "f", "Harry": "m", "Harriet": "f"}
    assert nickname_of("Rosy", "Rosamond", genders) and nickname_of("Dodo", "Dorothea", genders)
    assert not nickname_of("Harry", "Harriet", genders)
    assert not nickname_of("Mary", "Marius", {}) and not nickname_of("Marie", "Marius", {"Marius": "m"})
    lines = ["It was noon, and Mr. Weston came, and he sat.", "It was late, and Mrs. Weston spoke, and she smiled.",
             "It was dark, and Mrs. Weston wrote, and she waited.", "It rained, and Weston laughed, and he left."]
    names = story_names(tmp_path, lines * 3)
    assert "Weston" in names.find("Mr. Weston").variants and "Weston" not in names.find("Mrs. Weston").variants


def test_a_term_finds_the_character_it_names(pride_names):
    assert pride_names.find("Lizzy").name == "Elizabeth Bennet"
    assert pride_names.find("Eliza's letter").name == "Elizabeth Bennet"
    assert pride_names.find("the weather") is None


def test_the_reader_edits_the_index_as_text(pride_names, pride, tmp_path):
    text = pride_names.as_text()
    assert text.splitlines()[0].startswith("Elizabeth Bennet: Elizabeth Bennet, Elizabeth, Lizzy")
    edited = NameIndex.from_text("Jane Bennet: Jane, Miss Bennet\nCharlotte\n")
    assert [c.variants for c in edited.characters] == [["Jane Bennet", "Jane", "Miss Bennet"],
                                                                        ["Charlotte"]]
    assert save_names(pride, edited, tmp_path)
    assert names_for(pride, tmp_path).as_text() == edited.as_text()
    (tmp_path / "a-file").write_text("not a folder")
    assert not save_names(pride, edited, tmp_path / "a-file"), "the panel then says it is kept for this visit only"
    assert names_for(pride, None).characters[0].name == "Elizabeth Bennet"
    with pytest.raises(NamesError, match="line 2"):
        NameIndex.from_text("Jane: Jane\n: nobody")


def test_the_search_adds_the_other_names_of_a_character(pride, pride_names):
    llm = ScriptedLLM({"terms": ["Lizzy"], "judge": ["yes"], "answer": ["She walks."]})
    trace = Elite(llm, made(Settings, importance_samples=0, iter_max=1, question_words=False), embed=trigram_embed,
                  names=pride_names).run(pride, "Where does Lizzy walk?")
    added = [t for t in trace.of("terms")[0].data.new if t.origin == "names"]
    assert {"elizabeth", "eliza"} <= {t.text for t in added}
    assert all(t.by == "names" and t.of == "Elizabeth Bennet" for t in added)
    hits = trace.of("collection")[0].data.hits
    assert any("elizabeth" in h.matched for h in hits)
    plain = Elite(llm, made(Settings, importance_samples=0, iter_max=1, question_words=False, name_variants=False),
                  embed=trigram_embed, names=pride_names).run(pride, "Where does Lizzy walk?")
    assert not [t for t in plain.of("terms")[0].data.new if t.origin == "names"]


@pytest.mark.parametrize("language", ["de", "zh"])
def test_languages_without_name_capitals_get_no_index(language, tmp_path):
    text, _ = sample_text(language)
    path = tmp_path / "book.txt"
    path.write_text(text, encoding="utf-8")
    assert build_names(load_book(path)).characters == []


def test_no_name_from_beyond_a_spoiler_ceiling_is_offered(pride, pride_names):
    first_eliza = next(i for i in range(len(pride)) if re.search(r"\bEliza\b", pride.sentence(i).text))
    cut = pride.up_to(first_eliza - 1, "before Eliza")
    llm = ScriptedLLM({"terms": ["Lizzy"], "judge": ["yes"], "answer": ["She walks."]})
    trace = Elite(llm, made(Settings, importance_samples=0, iter_max=1, question_words=False), embed=trigram_embed,
                  names=pride_names).run(cut, "Where does Lizzy walk?")
    added = {t.text for t in trace.of("terms")[0].data.new if t.origin == "names"}
    assert "elizabeth" in added and "eliza" not in added


def test_nationalities_compass_points_and_bare_titles_are_not_characters(tmp_path):
    text = "A Journey\n\nCHAPTER I\n\n" + " ".join(
        f"Anna met the French officer near the South gate; the Emperor had sent him, and Anna thanked {who}. "
        f"The English were coming, said Anna to Marko. Marko nodded on a {day}."
        for who, day in (("Marko", "Monday"), ("God", "Sunday"))) * 8
    path = tmp_path / "journey.txt"
    path.write_text(text, encoding="utf-8")
    names = {v for c in build_names(load_book(path)).characters for v in c.variants}
    assert {"Anna", "Marko"} <= names
    assert not {"French", "South", "Emperor", "English", "God", "Monday", "Sunday"} & names


def test_a_word_written_after_an_article_is_no_character_unless_it_speaks(tmp_path):
    """"the Bastille", "the Puritan elders" name no person; "the Rat" does, since "said the Rat"."""
    text = "A River\n\nCHAPTER I\n\n" + " ".join(
        "Then Anna walked past the Bastille with the Rat, and the Puritan elders watched the Bastille. \"Come,\" "
        "said the Rat, and Anna smiled. Later Anna saw a Puritan there and waved to the Rat." for _ in range(6))
    path = tmp_path / "river.txt"
    path.write_text(text, encoding="utf-8")
    names = {v for c in build_names(load_book(path)).characters for v in c.variants}
    assert {"Anna", "Rat"} <= names and not {"Bastille", "Puritan"} & names


def test_under_a_ceiling_the_names_are_found_in_the_book_up_to_it_alone(pride):
    cut = pride.up_to(*reading_ceiling(pride, "chapter 10"))
    names = names_for(cut, None)
    variants = {v for c in names.characters for v in c.variants}
    assert {"Elizabeth Bennet", "Mr. Darcy", "Mr. Bingley", "Jane"} <= {c.name for c in names.characters}
    assert not {"Wickham", "Mr. Collins", "Lady Catherine", "Mrs. Wickham", "Colonel Fitzwilliam", "Georgiana",
                "Mrs. Bingley"} & variants
    assert all(re.search(rf"\b{written_as(v)}\b", story_text(cut)) for v in variants)
    edited = NameIndex.from_text("Lydia Bennet: Lydia, Mrs. Wickham\nWickham: Mr. Wickham\n").seen_in(cut)
    assert edited.edited and [(c.name, c.variants) for c in edited.characters] == [("Lydia", ["Lydia"])]


def test_preface_names_families_elisions_and_titled_given_names(pride_names):
    listed = {c.name for c in pride_names.characters}
    assert not {"Miss Austen", "Lakes", "Emma", "Tis", "Lucases", "Bingleys", "Collinses", "Miss Bennets"} & listed
    assert {"Lady Catherine", "Kitty", "Mr. Collins", "Charlotte Lucas"} <= listed
    assert named(pride_names, "Lady Catherine").variants == ["Lady Catherine", "Lady Catherine de Bourgh"], \
        "no Kitty, no bare Catherine"
    assert "Catherine" in named(pride_names, "Kitty").variants, "Kitty is a Catherine"
    assert "Mrs. Bingley" not in named(pride_names, "Miss Bingley").variants, "a wife's title joins no maiden name"


def test_a_father_told_apart_from_his_son_a_rank_and_a_wife_by_her_husbands_name(tmp_path):
    """"Mr. Churchill" is not Frank Churchill, whom the book calls "Mr. Frank Churchill" (and "Mrs. Churchill", his
    aunt, says there is another of his family); "Mr. Garth" is Caleb Garth,
    never so told apart; "Captain Garth" is Mr. Garth, never named beside him; "Mrs. Frank Churchill" is Frank's
    wife, not Frank."""
    lines = ["It was noon, and Frank Churchill came, and he sat.", "so said Frank, and he laughed.",
             "It rained, and Mr. Frank Churchill spoke.", "It was late, and Mr. Churchill wrote, and he sighed.",
             "It was dark, and Caleb Garth rode.", "so said Caleb, and he sang.",
             "It was cold, and Mr. Garth worked, and he hummed.", "It was spring, and Mr. Garth walked.",
             "It was May, and Mrs. Frank Churchill smiled, and she waved.", "It was cold, and Mrs. Churchill was ill."]
    names = story_names(tmp_path, lines * 3 + ["Long ago Captain Garth had sailed."])
    frank = set(names.find("Frank Churchill").variants)
    assert {"Frank", "Mr. Frank Churchill"} <= frank and not {"Mr. Churchill", "Mrs. Frank Churchill"} & frank
    assert {"Caleb Garth", "Mr. Garth", "Captain Garth"} <= set(names.find("Caleb Garth").variants)


def test_a_title_and_given_name_written_twice_tells_no_one_apart(tmp_path):
    """"Mr. Joshua Rigg", written twice (in Middlemarch, beside nine full names), is under the name finder's least
    (three): "Mr. Rigg" is still Joshua Rigg, where "Mr. Frank Churchill", written often, tells Frank from Mr.
    Churchill."""
    lines = ["It was noon, and Joshua Rigg came, and he sat.", "It was late, and Mr. Rigg wrote, and he sighed."]
    names = story_names(tmp_path, lines * 3 + ["It was spring, and Mr. Joshua Rigg bowed."] * 2)
    assert {"Joshua Rigg", "Mr. Rigg", "Mr. Joshua Rigg"} <= set(names.find("Rigg").variants)


def test_given_names_that_are_words_a_particle_and_a_lone_wife(tmp_path):
    """"Will" is a name where the book writes "Will Ladislaw" (and "Mr. Ladislaw") and "Will" on its own, though
    "will" is a word; "Miss de Bourgh" keeps its particle; "Mrs. Poole", no man's surname, is Grace Poole, whom a
    servant's "Miss Grace" does not make a daughter (Wuthering Heights's "Miss Nelly" had kept Mrs. Dean apart)."""
    lines = ["It was noon, and Will Ladislaw came, and he sat.", "It rained, and then Will spoke, and he laughed.",
             "It was late, and she will go, and it will rain.", "It was dark, and Grace Poole sewed, and she hummed.",
             "It was cold, and Mrs. Poole laughed, and she left.", "It was May, and Miss de Bourgh coughed.",
             "It was June, and Mr. Ladislaw bowed.", "'Miss Grace,' said he, and she smiled.",
             "It was dusk, and Grace sang.", "It was dawn, and Grace rose."]
    names = story_names(tmp_path, lines * 3)
    assert {"Will", "Will Ladislaw"} <= set(names.find("Will Ladislaw").variants)
    assert {"Grace Poole", "Mrs. Poole"} <= set(names.find("Grace Poole").variants)
    assert names.find("Miss de Bourgh").name == "Miss de Bourgh"


def test_a_bare_surname_and_a_wife_who_signs_her_married_name(pride_names):
    """"Mr. Wickham" and "Wickham" are George Wickham's; "Mrs. Wickham", written after the book names Lydia and
    Wickham with a marriage and once as "Lydia Wickham", is Lydia's."""
    assert {"Mr. Wickham", "Wickham", "George"} <= set(named(pride_names, "George Wickham").variants)
    assert "Mrs. Wickham" in named(pride_names, "Lydia").variants


def test_a_given_name_said_only_in_dialogue_joins_the_character_it_is_said_to(tmp_path):
    """"Tertius", never written with a surname, is said three times to the one who speaks the paragraphs beside it
    ("said Mr. Lydgate"): his; "Fred", said twice to Mr. Vincy, is under the least (three) and stays apart; and a
    vocative never goes to a character with a given name of its own (Rosamond Vincy)."""
    lydgate = ["'I shall ride out,' said Mr. Lydgate.", "'Do not go, Tertius,' said Rosamond Vincy.",
               "'I must,' answered Mr. Lydgate.", "It was late, and the house slept."]
    vincy = ["'Sit down, Fred,' said Rosamond Vincy.", "'No,' said Mr. Vincy.", "It was noon, and Fred ran."]
    rosamond = ["'Oh, Ned!' said Mr. Vincy.", "'Go away,' said Rosamond Vincy.", "It was May, and Ned sang."]
    names = story_names(tmp_path, lydgate * 3 + vincy * 2 + rosamond * 3)
    assert {"Mr. Lydgate", "Tertius"} <= set(names.find("Mr. Lydgate").variants)
    assert "Fred" not in names.find("Mr. Vincy").variants
    assert "Ned" not in names.find("Rosamond Vincy").variants and names.find("Ned").name == "Ned"


def test_a_full_name_of_one_scene_is_not_the_given_name_of_the_whole_book(tmp_path):
    """Huckleberry Finn's Jim, all through the book, is not "Jim Turner", a robber of one scene; "Mars Tom", as Jim
    calls him, is Tom Sawyer."""
    lines = ["It was noon, and Jim came, and he sat.", "It rained, and Jim spoke, and he laughed.",
             "It was late, and Tom Sawyer nodded, and he left.", "It was dawn, and Tom rose, and he read.",
             "It was dusk, and Tom ate, and he slept.", "'Mars Tom,' says Jim, and he grinned."]
    scene = ["'It is a lie, Jim Turner,' said the robber, and he swore."] * 3
    path = tmp_path / "huck.txt"
    path.write_text(STORY.format("\n\n".join(lines * 30 + scene + lines * 30)), encoding="utf-8")
    index = build_names(load_book(path))
    assert index.find("Jim").variants == ["Jim"]
    assert "Jim" not in index.find("Jim Turner").variants
    assert {"Tom", "Tom Sawyer", "Mars Tom"} <= set(index.find("Tom Sawyer").variants)


def test_a_rank_before_a_name_is_a_form_of_the_character_of_that_name(tmp_path):
    """Issue 38: "Inspector Javert" is Javert's, "Princess Betsy" Betsy Tverskaya's (the character's name stays its
    own), "Little Pearl" Pearl's; "Princess Tverskaya" is no one's, the surname being a given name's (her mother is
    a princess too); and a woman's rank never joins a man."""
    lines = ["It was noon, and Javert came, and he sat.", "so said Javert, and he frowned.",
             "It was late, and Inspector Javert spoke.",
             "It rained, and Betsy Tverskaya smiled, and she waved.", "so said Betsy, and she laughed.",
             "It was dark, and Princess Betsy rode.", "It was cold, and Princess Tverskaya wrote.",
             "so said Marcel, and he sang.", "It was May, and Countess Marcel danced.",
             "It was June, and Pearl ran, and she sang.", "It was dusk, and Little Pearl slept."]
    names = story_names(tmp_path, lines * 3)
    javert = names.find("Javert")
    assert javert.name == "Javert" and "Inspector Javert" in javert.variants
    betsy = names.find("Betsy")
    assert betsy.name == "Betsy Tverskaya" and "Princess Betsy" in betsy.variants
    assert "Princess Tverskaya" not in betsy.variants
    assert "Countess Marcel" not in names.find("Marcel").variants
    assert "Little Pearl" in names.find("Pearl").variants, "an epithet names either sex"
    assert "inspector" not in javert.tokens, "a rank is no word to search for"


def test_a_man_his_rank_calls_by_his_given_name_is_told_apart_from_another_of_his_surname(tmp_path):
    """Les Misérables's grandfather, "Father Gillenormand", is not Lieutenant Théodule Gillenormand, whom the book
    calls by his rank and given name, as "Mr. Frank Churchill" tells Frank from his uncle (the book writing another
    of the family, Mademoiselle Gillenormand)."""
    lines = ["It was noon, and Father Gillenormand came, and he sat.", "so said Gillenormand, and he frowned.",
             "It was May, and Mademoiselle Gillenormand sewed, and she sighed.",
             "It was late, and Lieutenant Théodule spoke.", "It rained, and Théodule Gillenormand rode.",
             "so said Théodule, and he laughed."]
    names = story_names(tmp_path, lines * 3)
    theodule = set(names.find("Théodule").variants)
    assert "Lieutenant Théodule" in theodule and not {"Father Gillenormand", "Gillenormand"} & theodule


def test_an_unmarried_aunt_is_the_one_unmarried_woman_of_her_surname(tmp_path):
    """"Aunt Gillenormand" is Mademoiselle Gillenormand when no wife of that surname is written."""
    lines = ["It was noon, and Mademoiselle Gillenormand came, and she sat.",
             "It was late, and Aunt Gillenormand sewed.", "It rained, and Marius rode, and he sang."]
    assert "Aunt Gillenormand" in story_names(tmp_path, lines * 3).find("Mademoiselle Gillenormand").variants


def test_an_aunt_or_an_uncle_and_a_given_name_is_the_character_of_that_name(tmp_path):
    """"Uncle Silas" is Silas Phelps and "Aunt Sally" Sally, though the pronoun after "Sally" is her husband's; an
    aunt is not a man titled with that name (Huckleberry Finn had listed them apart)."""
    lines = ["It was noon, and Uncle Silas came, and he sat.", "It rained, and Silas Phelps prayed.",
             "so said Silas, and he frowned.", "It was late, and Aunt Sally sewed, and she sighed.",
             "so said Sally, and he nodded.", "It was May, and Mr. Hines rode.", "It was dark, and Aunt Hines wept."]
    names = story_names(tmp_path, lines * 3)
    assert "Uncle Silas" in names.find("Silas").variants
    assert "Aunt Sally" in names.find("Sally").variants
    assert "Aunt Hines" not in names.find("Mr. Hines").variants


def test_mother_and_a_surname_is_the_wife_of_that_surname(tmp_path):
    """"Mother Thénardier", as the street calls her, is Madame Thénardier."""
    lines = ["It was noon, and Madame Thénardier came, and she sat.", "It was late, and Mother Thénardier sewed.",
             "It rained, and Marius rode, and he sang."]
    assert "Mother Thénardier" in story_names(tmp_path, lines * 3).find("Madame Thénardier").variants


def test_a_younger_sister_called_miss_with_her_given_name_is_not_miss_and_the_surname(tmp_path):
    """Georgiana Reed, "Miss Georgiana" in a quarter of her mentions, is not "Miss Reed" (her elder sister, whose
    surname the book never writes after her given name); Jane Eyre, "Miss Jane" once in nineteen, is "Miss Eyre"."""
    reeds = ["It was noon, and Georgiana Reed came, and she sat.",
             "It was late, and Miss Georgiana sewed, and she sang.", "It was dark, and Georgiana cried, and she slept.",
             "It was day, and Georgiana ate.", "It rained, and Miss Reed read, and she prayed."]
    jane = ["It was May, and Jane Eyre walked, and she sang.", "It was June, and Miss Eyre smiled.",
            "It was dusk, and Jane wrote, and she waited."]
    names = story_names(tmp_path, reeds * 4 + jane * 6 + ["It was cold, and Miss Jane ran, and she hid."])
    assert "Miss Georgiana" in names.find("Georgiana Reed").variants
    assert "Miss Reed" not in names.find("Georgiana Reed").variants
    assert {"Miss Eyre", "Miss Jane"} <= set(names.find("Jane Eyre").variants)


def test_a_title_and_given_name_tell_apart_only_another_of_the_family(tmp_path):
    """A Tale of Two Cities's "Mr. Jarvis Lorry", written often, is still "Mr. Lorry": the book has no other Lorry
    ("there might have been a Mrs. Lorry", twice, is no one), where "Mrs. Churchill" makes "Mr. Frank Churchill" tell
    Frank from his uncle."""
    lines = ["It was noon, and Jarvis Lorry came, and he sat.", "It rained, and Mr. Jarvis Lorry spoke.",
             "It was late, and Mr. Lorry wrote, and he sighed.", "so said Lorry, and he smiled."]
    names = story_names(tmp_path, lines * 3 + ["There might have been a Mrs. Lorry, once."] * 2)
    assert {"Jarvis Lorry", "Mr. Jarvis Lorry", "Mr. Lorry", "Lorry"} <= set(names.find("Lorry").variants)


def test_a_nickname_said_to_a_lord_called_by_his_given_name_is_his(tmp_path):
    """The Picture of Dorian Gray's "Harry", said to Lord Henry (Henry Wotton) by those who speak beside it, is his,
    though a title and a given name keep a nickname apart otherwise (Kitty is no Lady Catherine)."""
    lines = ["'I shall stay,' said Lord Henry.", "'Do not go, Harry,' said Basil Hallward.",
             "'I must,' said Lord Henry.", "It was late, and Lord Henry Wotton smiled, and he left.",
             "It rained, and Basil sang, and he slept."]
    names = story_names(tmp_path, lines * 3)
    assert {"Lord Henry", "Lord Henry Wotton", "Harry"} <= set(names.find("Lord Henry").variants)


def test_a_name_the_book_gives_as_anothers_alias_is_his(tmp_path):
    """"Charles Evrémonde, called Darnay", twice, is Charles Darnay; an alias said once joins no one."""
    lines = ["It was noon, and Charles Darnay came, and he sat.", "It was late, and Mr. Darnay wrote, and he sighed.",
             "It was dark, and Charles Darnay rode.", "so said Charles, and he smiled.",
             "It rained, and Charles Evrémonde was named, and he stood.", "so said Evrémonde, and he bowed.",
             "It was May, and Jacques Defarge drank, and he laughed.", "It was June, and Ernest Vengeance ran."]
    called = ["The prisoner, Charles Evrémonde, called Darnay, was brought in."] * 2
    names = story_names(tmp_path, lines * 3 + called + ["The man, Jacques Defarge, called Vengeance, was there."])
    assert {"Charles Darnay", "Charles Evrémonde", "Evrémonde", "Mr. Darnay"} <= set(names.find("Darnay").variants)
    assert "Ernest Vengeance" not in names.find("Jacques Defarge").variants
