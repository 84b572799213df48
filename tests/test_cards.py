"""The card-set file: the R14 default and validation errors that name the bad key."""

from __future__ import annotations

import json
import re
from importlib import resources

import numpy as np
import pytest

from analyzer.cards import CardSetError, default_card_set, load_card_set
from analyzer.cards.loader import parse_expansions
from analyzer.core.codes import CardField, CardType, CityKind, Expansion

DEFAULT = default_card_set()


def test_R14_default_counts_and_values():
    in_play = sorted([*DEFAULT.city_ids, *DEFAULT.dream_ids])
    assert in_play == list(range(84)), "the base game's cards come first, ids 0-83"
    cards = DEFAULT.cards[in_play]
    types = cards[:, CardField.TYPE]
    assert (types == CardType.CITY).sum() == 12
    assert (types == CardType.SOGNAE).sum() == 32 and (types == CardType.INCUBI).sum() == 32
    assert (types == CardType.CHAOS).sum() == 8
    sognae = sorted(cards[types == CardType.SOGNAE, CardField.VALUE])
    assert sognae == sorted([1, 1, 2, 2, 3, 3, 4, 4] * 4)
    incubi = sorted(cards[types == CardType.INCUBI, CardField.VALUE])
    assert incubi == sorted([-1, -1, -1, -2, -2, -2, -3, -3] * 4)
    pairs = sorted(int(m) for m in cards[types == CardType.CITY, CardField.ELEMENTS])
    assert pairs == sorted([3, 3, 5, 5, 9, 9, 6, 6, 10, 10, 12, 12])


def _write(tmp_path, text):
    path = tmp_path / "set.toml"
    path.write_text(text)
    return path




@pytest.mark.parametrize("change, message", [
    (("value = 5", "value = 0"), "dreams.chaos.value"),
    (('fire = [1, 1, 2, 2, 3, 3, 4, 4]', 'fire = [1, 1, 2, "x", 3]'), "dreams.sognae.fire[3]"),
    (('["earth", "water"], ["earth", "water"],', '["earth", "mud"],'), "unknown element 'mud'"),
    (("earth = [-1, -1, -1, -2, -2, -2, -3, -3]", "earth = [-1, 2]"), "dreams.incubi.earth[1]"),
    (('name = "R14-default"', 'nom = "x"'), "unknown key 'nom'"),
    (("[dreams.chaos]", "[dreams.chaos"), "not valid TOML"),
])
def test_malformed_card_files_name_the_bad_key(tmp_path, change, message):
    from importlib import resources

    text = resources.files("analyzer.cards").joinpath("r14-default.toml").read_text()
    assert change[0] in text
    path = _write(tmp_path, text.replace(change[0], change[1], 1))
    with pytest.raises(CardSetError, match=message.replace("[", r"\[").replace("]", r"\]")):
        load_card_set(path)


def test_a_changed_card_changes_the_digest(tmp_path):
    from importlib import resources

    text = resources.files("analyzer.cards").joinpath("r14-default.toml").read_text()
    same = load_card_set(_write(tmp_path, "# comment\n" + text))
    assert same.digest == DEFAULT.digest
    other = load_card_set(_write(tmp_path, text.replace("value = 5", "value = 6")))
    assert other.digest != DEFAULT.digest


def _of(card_set, ctype):
    ids = [*card_set.city_ids, *card_set.dream_ids]
    return card_set.cards[[i for i in ids if card_set.cards[i, CardField.TYPE] == ctype]]


def test_R14_expansion_cards():
    full = DEFAULT.with_expansions(parse_expansions("all"))
    cities = _of(full, CardType.CITY)
    kinds = sorted(int(k) for k in cities[:, CardField.KIND])
    assert kinds == [CityKind.BASE] * 12 + [CityKind.SQUARE] * 4 + [CityKind.TEMPLE] * 4 + \
        [CityKind.GARDEN] * 4
    by_kind = {k: sorted(int(e) for e in cities[cities[:, CardField.KIND] == k,
                                                  CardField.ELEMENTS])
               for k in (CityKind.SQUARE, CityKind.TEMPLE, CityKind.GARDEN)}
    assert by_kind == {CityKind.SQUARE: [15] * 4, CityKind.TEMPLE: [1, 2, 4, 8],
                       CityKind.GARDEN: [0] * 4}  # R08.5
    chromatic = _of(full, CardType.CHROMATIC)
    assert len(chromatic) == 8 and set(chromatic[:, CardField.VALUE]) == {4}
    metas = _of(full, CardType.META)
    assert sorted((int(e), int(v), int(w)) for e, v, w in metas[:, 1:4]) == \
        sorted((1 << b, v, -v) for b in range(4) for v in (2, 3))
    harmony = _of(full, CardType.HARMONY)
    assert set(harmony[:, CardField.ELEMENTS]) == {15}
    assert sorted(harmony[:, CardField.VALUE]) == [1] * 5 + [2] * 5
    assert all(harmony[:, CardField.VALUE2] == -harmony[:, CardField.VALUE])
    wizards = _of(full, CardType.WIZARD)
    assert sorted((int(e), int(v)) for e, v in wizards[:, 1:3]) == \
        sorted((1 << b, v) for b in range(4) for v in (2, 3, -1, -2))


@pytest.mark.parametrize("name, cities, dreams, others", [
    ("squares_metas", 16, 80, 0), ("chromatic_chaos", 12, 80, 0), ("temples_harmony", 16, 82, 0),
    ("gardens_wizards", 16, 88, 0), ("books", 12, 72, 8), ("postcards", 12, 72, 24),
    ("emptiness", 12, 72, 8), ("all", 24, 114, 40), ("none", 12, 72, 0),
])
def test_an_expansion_set_puts_its_cards_in_play(name, cities, dreams, others):
    card_set = DEFAULT.with_expansions(parse_expansions(name))
    assert (len(card_set.city_ids), len(card_set.dream_ids), len(card_set.other_ids)) == \
        (cities, dreams, others)
    described = card_set.describe()
    assert len(described) == cities + dreams + others
    assert card_set.digest == DEFAULT.digest, "the card set is named by its file, not its use"


def test_base_names_the_base_game_as_none_does_as_compare_names_it():
    """compare --sets names the base game base; --expansions base was an unknown expansion."""
    assert parse_expansions("base") == parse_expansions(" Base ") == parse_expansions("none")
    assert parse_expansions("none") == 0


@pytest.mark.parametrize("text, message", [
    ("squares_metas,moon", "unknown expansion 'moon' (valid: squares_metas, chromatic_chaos, "
                           "temples_harmony, gardens_wizards, books, postcards, emptiness, "
                           "all, none (or base))"),
    ("books,postcard", "unknown expansion 'postcard' (did you mean 'postcards'"),
    ("all,books", "'all' stands alone: it cannot be listed with expansion names"),
    ("books, none", "'none' stands alone: it cannot be listed with expansion names"),
    ("base,books", "'base' stands alone: it cannot be listed with expansion names"),
    # an empty shell variable or a stray comma must not quietly play fewer expansions
    ("", "an empty expansion name in '' (the base game alone is 'none')"),
    ("books,,postcards", "an empty expansion name in 'books,,postcards'"),
    ("books,", "an empty expansion name in 'books,'"),
    ("chromatic_chaos,Chromatic_Chaos", "expansion 'chromatic_chaos' is listed twice"),
])
def test_unknown_expansions_are_named(text, message):
    with pytest.raises(CardSetError, match=message.replace("(", r"\(").replace(")", r"\)")):
        parse_expansions(text)


def test_a_card_file_without_an_expansions_cards_refuses_it(tmp_path):
    from importlib import resources

    text = resources.files("analyzer.cards").joinpath("r14-default.toml").read_text()
    base_only = text.split("[dreams.chromatic]")[0]
    for line in ("square = 4\n", 'temple = ["earth", "water", "fire", "air"]\n', "garden = 4\n"):
        base_only = base_only.replace(line, "")
    card_set = load_card_set(_write(tmp_path, base_only))
    assert len(card_set.dream_ids) == 72
    with pytest.raises(CardSetError, match="has no cards for expansion squares_metas: its "
                                           "file needs cities.square and dreams.meta"):
        card_set.with_expansions(Expansion.SQUARES_METAS)
    assert str(tmp_path) in card_set.source
    with pytest.raises(CardSetError, match="has no cards for expansion chromatic_chaos"):
        card_set.with_expansions(Expansion.CHROMATIC_CHAOS)


@pytest.mark.parametrize("change, message", [
    ("earth = [[2, -2], [3, -3]]", "dreams.meta.earth[0]: expected [Sognae value, Incubi"),
    ("garden = 4", "cities.garden"),
    ("earth = [2, 3, -1, -2]", "dreams.wizard.earth[1]"),
])
def test_malformed_expansion_cards_name_the_key(tmp_path, change, message):
    from importlib import resources

    text = resources.files("analyzer.cards").joinpath("r14-default.toml").read_text()
    broken = {"earth = [[2, -2], [3, -3]]": "earth = [[2], [3, -3]]",
              "garden = 4": "garden = -1",
              "earth = [2, 3, -1, -2]": "earth = [2, 0, -1, -2]"}[change]
    assert change in text
    with pytest.raises(CardSetError, match=message.replace("[", r"\[").replace("]", r"\]")):
        load_card_set(_write(tmp_path, text.replace(change, broken, 1)))


@pytest.mark.parametrize("old, new, message", [
    # a city of one element, read as a city of two, would deal another game
    ('base = [\n  ["earth", "water"]', 'base = [\n  ["earth", "earth"]',
     "cities.base[0]: element 'earth' listed twice"),
    # an Incubi of 0 influences no side: a Sognae or Incubi is never 0
    ("[dreams.incubi]\n# Influence values per element: -1 to -3 in R14 (a card file may "
     "hold -1 to -9).\nearth = [-1,",
     "[dreams.incubi]\n# Influence values per element: -1 to -3 in R14 (a card file may "
     "hold -1 to -9).\nearth = [0,", "0 is not a whole number from -9 to -1"),
])
def test_a_city_of_one_element_twice_and_an_incubi_of_0_are_refused(tmp_path, old, new,
                                                                   message):
    text = resources.files("analyzer.cards").joinpath("r14-default.toml").read_text()
    assert old in text
    with pytest.raises(CardSetError, match=re.escape(message)):
        load_card_set(_write(tmp_path, text.replace(old, new, 1)))


def test_a_card_file_holds_at_most_400_cards(tmp_path):
    """The engine's arrays hold at most 400 cards: 400 load, 401 are refused in one line."""
    text = resources.files("analyzer.cards").joinpath("r14-default.toml").read_text()
    sognae = "earth = [1, 1, 2, 2, 3, 3, 4, 4]"
    assert text.count(sognae) == 1 and len(DEFAULT.cards) == 178
    for extra, fits in ((222, True), (223, False)):
        more = sognae.replace("4, 4]", "4, 4" + ", 1" * extra + "]")
        path = _write(tmp_path, text.replace(sognae, more, 1))
        if fits:
            assert len(load_card_set(path).cards) == 400
        else:
            with pytest.raises(CardSetError, match=re.escape("too many cards: 401 (at most "
                                                             "400)")):
                load_card_set(path)


def test_the_r14_books_postcards_and_emptiness_cards():
    """R14: the 8 Books (Prophecies twice), R11.1: 3 Postcards of each of the 8 kinds, R12:
    8 Emptiness cards; each described in the trace's terms (TRACE.md)."""
    full = DEFAULT.with_expansions(parse_expansions("books,postcards,emptiness"))
    described = [c for c in full.describe() if c["type"] in ("book", "postcard", "emptiness")]
    books = sorted(c["kind"] for c in described if c["type"] == "book")
    assert books == sorted(["flying_sognae", "flying_incubi", "invisible_sognae",
                            "invisible_incubi", "freedom", "perfect_balance", "prophecies",
                            "prophecies"])
    postcards = [c["kind"] for c in described if c["type"] == "postcard"]
    assert {k: postcards.count(k) for k in set(postcards)} == dict.fromkeys(
        ["dreamcatcher", "doves", "seer", "magicians", "hourglass", "flagship", "rocket",
         "planbot"], 3)
    assert sum(c["type"] == "emptiness" for c in described) == 8
    assert not set(full.other_ids) & set(full.dream_ids), "Books and Postcards are no dreams"


@pytest.mark.parametrize("section, message", [
    ('[books]\ncards = ["flying_sognae", "moon"]', "books.cards[1]: unknown Book 'moon'"),
    ("[postcards]\n" + "".join(f"{k} = 3\n" for k in ["dreamcatcher", "doves", "magicians",
                                                      "hourglass", "flagship", "rocket",
                                                      "planbot"]) + "seer = -1",
     "postcards.seer: -1 is not a whole number from 0 to 16"),
    ("[postcards]\nkite = 3", "postcards: unknown key 'kite'"),
    ("[emptiness]\ncards = 0", "emptiness.cards: 0 is not a whole number from 1 to 16"),
    # a value is shown as the file writes it, not as Python prints it
    ("[emptiness]\ncards = true", "emptiness.cards: true is not a whole number from 1 to 16"),
    ('[emptiness]\ncards = "8"', 'emptiness.cards: "8" is not a whole number from 1 to 16'),
    ('[books]\ncards = ["prophecies", "freedom", "prophecies", "prophecies"]',
     "books.cards: at most 2 Books of Prophecies (the rulebook prints two, whose looks add "
     "up), not 3"),
])
def test_bad_books_postcards_or_emptiness_sections_are_named(tmp_path, section, message):
    from importlib import resources

    text = resources.files("analyzer.cards").joinpath("r14-default.toml").read_text()
    base = text.split("[books]")[0]
    with pytest.raises(CardSetError, match=re.escape(message)):
        load_card_set(_write(tmp_path, base + section + "\n"))


def test_an_unknown_variant_is_named_and_not_blamed_on_the_card_set():
    from analyzer.errors import UrbionError

    with pytest.raises(UrbionError, match=re.escape("unknown variant 'trio' (valid: solo, team)")
                       ) as caught:
        DEFAULT.with_variant("trio")
    assert not isinstance(caught.value, CardSetError)


@pytest.mark.parametrize("line, message", [
    ("dreamcatcher = 3", "postcards.dreamcatcher: missing"),
    ("earth = [1, 1, 2, 2, 3, 3, 4, 4]",
     "dreams.sognae.earth: missing (a list of values; [] for none)"),
    ("value = 5", "dreams.chaos.value: missing"),
    ("square = 4", "cities.square: missing (expansion squares_metas needs cities.square and "
                   "dreams.meta, or none of them)"),
    ("garden = 4", "cities.garden: missing (expansion gardens_wizards"),
    ("air = [2, 3, -1, -2]", "dreams.wizard.air: missing"),
    ('name = "R14-default"', "name: missing (the card set's name)"),
])
def test_a_deleted_line_is_an_error_not_zero_cards(tmp_path, line, message):
    """A card file states every count: a line deleted by mistake must not quietly take a
    kind of card out of the game."""
    from importlib import resources

    text = resources.files("analyzer.cards").joinpath("r14-default.toml").read_text()
    assert line + "\n" in text
    with pytest.raises(CardSetError, match=re.escape(message)):
        load_card_set(_write(tmp_path, text.replace(line + "\n", "", 1)))


def test_a_name_of_the_wrong_type_is_named(tmp_path):
    from importlib import resources

    text = resources.files("analyzer.cards").joinpath("r14-default.toml").read_text()
    with pytest.raises(CardSetError, match=re.escape("name: expected a non-empty string, not 5")):
        load_card_set(_write(tmp_path, text.replace('name = "R14-default"', "name = 5", 1)))


@pytest.mark.parametrize("name", ['"evil\\nname | x"', '"tab\\there"', '"bell\\u0007"',
                                  '"line\\u2028separator"', '"next\\u0085line"',
                                  '"c1\\u009bcontrol"', '"para\\u2029graph"',
                                  # turned the rest of each line it was printed on around
                                  '"set\\u202e"', '"iso\\u2067late"'])
def test_a_name_with_a_line_break_or_control_character_is_refused(tmp_path, name):
    """It would break the tables and labels the name appears in (report.md's rows)."""
    from importlib import resources

    text = resources.files("analyzer.cards").joinpath("r14-default.toml").read_text()
    with pytest.raises(CardSetError, match="name: no line breaks, tabs, text direction "
                                           "controls or other control characters"):
        load_card_set(_write(tmp_path, text.replace('name = "R14-default"', f"name = {name}",
                                                    1)))


def test_a_changed_copy_of_the_shipped_file_is_named_as_edited(tmp_path):
    text = resources.files("analyzer.cards").joinpath("r14-default.toml").read_text()
    same = _write(tmp_path, text)
    assert load_card_set(same).name == "R14-default"  # an exact copy is the R14 set
    (tmp_path / "six.toml").write_text(text.replace("[dreams.chaos]\ncount = 8",
                                                    "[dreams.chaos]\ncount = 6", 1))
    edited = load_card_set(tmp_path / "six.toml")
    assert edited.name == "R14-default (edited)"
    assert edited.digest != default_card_set().digest
    renamed = text.replace('name = "R14-default"', 'name = "six chaos"').replace(
        "[dreams.chaos]\ncount = 8", "[dreams.chaos]\ncount = 6", 1)
    (tmp_path / "named.toml").write_text(renamed)
    assert load_card_set(tmp_path / "named.toml").name == "six chaos"


def test_an_expansion_whose_keys_hold_no_card_says_so(tmp_path):
    """``count = 0`` keeps the key: the refusal must not tell the designer to add it."""
    text = resources.files("analyzer.cards").joinpath("r14-default.toml").read_text()
    zero = text.replace("[dreams.chromatic]\n# Chromatic Chaos (expansion chromatic_chaos): "
                        "placed +4 left, -4 right (R07).\ncount = 8",
                        "[dreams.chromatic]\ncount = 0", 1)
    assert zero != text
    card_set = load_card_set(_write(tmp_path, zero))
    with pytest.raises(CardSetError, match=re.escape(
            "has no cards for expansion chromatic_chaos: its file needs dreams.chromatic, "
            "with at least one card")):
        card_set.with_expansions(Expansion.CHROMATIC_CHAOS)


def test_a_description_of_the_wrong_type_is_named(tmp_path):
    text = resources.files("analyzer.cards").joinpath("r14-default.toml").read_text()
    broken = re.sub(r'^description = ".*"$', "description = 5", text, count=1, flags=re.M)
    assert broken != text
    with pytest.raises(CardSetError, match=re.escape("description: expected a string, not 5")):
        load_card_set(_write(tmp_path, broken))


def test_a_changed_copy_with_spaces_around_the_name_is_still_named_as_edited(tmp_path):
    """Spaces do not show in a summary or a chart: ``"R14-default "`` is the shipped name."""
    text = resources.files("analyzer.cards").joinpath("r14-default.toml").read_text()
    spaced = text.replace('name = "R14-default"', 'name = " R14-default "', 1)
    assert load_card_set(_write(tmp_path, spaced)).digest == default_card_set().digest
    edited = spaced.replace("[dreams.chaos]\ncount = 8", "[dreams.chaos]\ncount = 6", 1)
    assert load_card_set(_write(tmp_path, edited)).name == "R14-default (edited)"


def test_a_changed_copy_named_in_other_case_is_named_as_edited(tmp_path):
    """"r14-default" reads as the shipped set's name: on other cards it says so; on R14's
    own cards it is a renamed copy, named as given."""
    text = resources.files("analyzer.cards").joinpath("r14-default.toml").read_text()
    lower = text.replace('name = "R14-default"', 'name = "r14-default"', 1)
    assert load_card_set(_write(tmp_path, lower)).name == "r14-default"
    edited = lower.replace("[dreams.chaos]\ncount = 8", "[dreams.chaos]\ncount = 6", 1)
    assert load_card_set(_write(tmp_path, edited)).name == "r14-default (edited)"


@pytest.mark.parametrize("name", ["R14-def\u200bault", "\ufeffR14-default",
                                  "R14\u2010default", "R14-de\u00adfault",
                                  "R\u034f14-default", "\uff32\uff11\uff14-default"])
def test_a_changed_copy_whose_name_reads_as_the_shipped_one_is_named_as_edited(tmp_path,
                                                                               name):
    """A zero-width space, a soft hyphen, another dash or full-width letters do not show:
    such a name on other cards passed for the shipped set."""
    text = resources.files("analyzer.cards").joinpath("r14-default.toml").read_text()
    edited = text.replace('name = "R14-default"', f'name = "{name}"', 1).replace(
        "[dreams.chaos]\ncount = 8", "[dreams.chaos]\ncount = 6", 1)
    assert load_card_set(_write(tmp_path, edited)).name == f"{name} (edited)"


@pytest.mark.parametrize("mark", ["\u200e", "\u200f", "\u061c"])
def test_a_name_with_a_direction_mark_is_refused_as_the_error_says(tmp_path, mark):
    text = resources.files("analyzer.cards").joinpath("r14-default.toml").read_text()
    marked = text.replace('name = "R14-default"', f'name = "mine{mark}"', 1)
    with pytest.raises(CardSetError, match="no line breaks, tabs, text direction controls"):
        load_card_set(_write(tmp_path, marked))


def test_a_section_written_as_a_value_is_named_as_such_not_as_missing(tmp_path):
    text = resources.files("analyzer.cards").joinpath("r14-default.toml").read_text()
    head, tail = text.split("[emptiness]")
    assert "\n[" not in tail
    path = _write(tmp_path, head.replace('name = "R14-default"',
                                         'name = "R14-default"\nemptiness = 8', 1))
    with pytest.raises(CardSetError, match=re.escape(
            "emptiness: expected a table [emptiness], not 8")):
        load_card_set(path)


def test_a_card_set_shows_its_expansions_by_name():
    shown = repr(DEFAULT.with_expansions(parse_expansions("books,emptiness"))
                 .with_variant("team"))
    assert "name='R14-default'" in shown and "variant='team'" in shown
    assert "expansions=['books', 'emptiness']" in shown


def test_a_card_file_with_a_byte_order_mark_reads_as_without(tmp_path):
    """Windows editors start a UTF-8 file with a byte-order mark, which is not TOML."""
    marked = tmp_path / "marked.toml"
    marked.write_bytes(b"\xef\xbb\xbf" + resources.files("analyzer.cards").joinpath(
        "r14-default.toml").read_bytes())
    assert load_card_set(marked).digest == DEFAULT.digest


def test_a_weights_file_given_as_cards_is_named_for_what_it_is(tmp_path):
    weights = tmp_path / "w.toml"
    weights.write_text("[weights]\nTURN = 3.0\n")
    with pytest.raises(CardSetError, match="this is a weights file .* played as --policy "
                                           "weighted:FILE"):
        load_card_set(weights)


def test_a_set_changed_in_memory_is_refused_not_played_under_its_old_name_and_hash(tmp_path):
    """Its array changed in place, or a copy made with dataclasses.replace: the games were
    played with the new cards under the loaded set's name and hash, and its results file
    could not give its cards back."""
    from dataclasses import replace

    import analyzer

    loaded = analyzer.load_cards(None)
    renamed = replace(loaded, name="mine")
    changed = analyzer.load_cards(None)
    changed.cards[19, CardField.VALUE] += 1
    cards_changed = (f"card set '{{}}' was changed after it was loaded: its name and cards "
                     f"no longer hash to its sha256 {loaded.digest[:12]}, which its results "
                     "would name; change cards in a card file")
    # the same cards, in arrays the kernels cannot take: a numba error of many lines
    tables_changed = ("card set 'R14-default' was changed after it was loaded: its card "
                      "tables are no longer the int64 numpy arrays, in C order, that the "
                      "engine plays; change cards in a card file")
    cases = [(renamed, cards_changed.format("mine")), (changed, cards_changed.format(
        "R14-default"))] + [(card_set, tables_changed) for card_set in (
            replace(loaded, cards=loaded.cards.astype(float)),
            replace(loaded, cards=np.asfortranarray(loaded.cards)),
            replace(loaded, city_ids=list(loaded.city_ids)))]
    for card_set, message in cases:
        expected = re.escape(message)
        for call, args in ((analyzer.simulate, {"games": 10}), (analyzer.trace, {}),
                           (analyzer.card_table, {}), (analyzer.sensitivity, {"games": 10}),
                           (analyzer.write_card_template, {"out": tmp_path / "t.toml"})):
            with pytest.raises(CardSetError, match=expected):
                call(cards=card_set, **args)
    assert not (tmp_path / "t.toml").exists()
    # the cards in play not those of its expansions: labelled Chromatic Chaos, it played
    # the base game's cards
    relabelled = replace(loaded, expansions=int(Expansion.CHROMATIC_CHAOS))
    with pytest.raises(CardSetError, match=re.escape(
            "card set 'R14-default' plays cards other than those of its expansions "
            "(chromatic_chaos): choose expansions with")):
        analyzer.simulate(games=10, cards=relabelled)
    for expansions, shown in (("books", "'books'"), (-1, "-1"), (True, "True"),
                              (np.uint8(128), "128")):  # ~128 overflowed a uint8
        with pytest.raises(CardSetError, match=re.escape(
                f"card set 'R14-default' plays cards other than those of its expansions "
                f"({shown}): choose expansions with")):
            analyzer.simulate(games=10, cards=replace(loaded, expansions=expansions))
    # played solo, recorded as a variant no results file may hold
    with pytest.raises(CardSetError, match=re.escape(
            "card set 'R14-default' is to be played as 'TEAM', which is no variant (solo, "
            "team): choose it with")):
        analyzer.simulate(games=10, cards=replace(loaded, variant="TEAM"))
    assert analyzer.simulate(games=10, cards=loaded)["won"].size == 10  # the set as loaded


def test_a_set_takes_its_expansions_by_name_as_every_call_does():
    by_name = DEFAULT.with_expansions("chromatic_chaos,books")
    by_bits = DEFAULT.with_expansions(Expansion.CHROMATIC_CHAOS | Expansion.BOOKS)
    assert by_name.expansions == by_bits.expansions
    assert (by_name.dream_ids == by_bits.dream_ids).all()
    assert DEFAULT.with_expansions(["emptiness"]).expansion_names() == ["emptiness"]
    assert DEFAULT.with_expansions(np.int64(Expansion.BOOKS)).expansion_names() == ["books"]
    assert DEFAULT.with_expansions(np.int64(Expansion.BOOKS)).checked().expansions == \
        Expansion.BOOKS
    assert DEFAULT.with_expansions("all").expansions == parse_expansions("all")
    with pytest.raises(CardSetError, match="unknown expansion"):
        DEFAULT.with_expansions("chromatic")
    # bits no expansion has, or a list of bits: an IndexError or AttributeError before
    for wrong, message in ((999, "expansions 999 names no expansion set (its bits: 0 to 127)"),
                           (-1, "expansions -1 names no expansion set"),
                           ([1, 2], "expansions must be names or Expansion bits, not [1, 2]"),
                           (True, "expansions must be names or Expansion bits, not True")):
        with pytest.raises(CardSetError, match=re.escape(message)):
            DEFAULT.with_expansions(wrong)


def _r14_text():
    return resources.files("analyzer.cards").joinpath("r14-default.toml").read_text()


@pytest.mark.parametrize("old, new, message", [
    # element names are the lower-case ones the rulebook's symbols are written as
    ('base = [\n  ["earth", "water"]', 'base = [\n  ["Earth", "water"]',
     "cities.base[0]: unknown element 'Earth' (valid: earth, water, fire, air)"),
    ('temple = ["earth", "water", "fire", "air"]', 'temple = ["earth", "water", "fire", "AIR"]',
     "cities.temple[3]: unknown element 'AIR'"),
    ('temple = ["earth", "water", "fire", "air"]', 'temple = ["earth", "moon", "fire", "air"]',
     "cities.temple[1]: unknown element 'moon'"),
])
def test_an_element_name_in_another_case_is_unknown_and_its_entry_named(tmp_path, old, new,
                                                                        message):
    text = _r14_text()
    assert old in text
    with pytest.raises(CardSetError, match=re.escape(message)):
        load_card_set(_write(tmp_path, text.replace(old, new, 1)))


def _base_cities(count):
    return "base = [" + ", ".join(['["earth", "water"]'] * count) + "]\n"


def _with_section(part):
    """A function of a section's new lines to the R14 file with them in place of R14's:
    the base cities (and Temples, when given) or one Dream table, its other elements short."""
    text = _r14_text()
    if part == "cities":
        start, end = text.index("[cities]\n"), text.index("square = 4\n")
        temple = 'temple = ["earth", "water", "fire", "air"]\n'

        def edit(body):
            return text[:start] + "[cities]\n" + body + text[end:].replace(
                temple, "" if "temple" in body else temple, 1)
        return edit
    header = f"[dreams.{part}]\n"
    start = text.index(header) + len(header)
    end = text.index("\n[", start) + 1
    rest = {"chaos": "", "wizard": "water = []\nfire = []\nair = []\n",
            "sognae": "water = [1]\nfire = [1]\nair = [1]\n",
            "incubi": "water = [-1]\nfire = [-1]\nair = [-1]\n"}[part]
    return lambda body: text[:start] + body + rest + text[end:]


@pytest.mark.parametrize("part, at_limit, past_limit, message", [
    ("cities", _base_cities(64), _base_cities(65),
     "cities.base: expected a list of 1 to 64 cities"),
    ("cities", _base_cities(1), "base = []\n", "cities.base: expected a list of 1 to 64 cities"),
    ("cities", _base_cities(12) + "temple = [" + ", ".join(['"fire"'] * 16) + "]\n",
     _base_cities(12) + "temple = [" + ", ".join(['"fire"'] * 17) + "]\n",
     "cities.temple: expected a list of up to 16 element names"),
    ("chaos", "count = 64\nvalue = 9\n", "count = 65\nvalue = 9\n",
     "dreams.chaos.count: 65 is not a whole number from 0 to 64"),
    ("chaos", "count = 8\nvalue = 9\n", "count = 8\nvalue = 10\n",
     "dreams.chaos.value: 10 is not a whole number from 1 to 9"),
    ("wizard", "earth = [9, -9]\n", "earth = [9, -10]\n",
     "dreams.wizard.earth[1]: -10 is not a whole number from -9 to 9"),
    ("wizard", "earth = [9, -9]\n", "earth = [10, -9]\n",
     "dreams.wizard.earth[0]: 10 is not a whole number from -9 to 9"),
    ("sognae", "earth = [9, 1]\n", "earth = [10, 1]\n",
     "dreams.sognae.earth[0]: 10 is not a whole number from 1 to 9"),
    ("incubi", "earth = [-9, -1]\n", "earth = [-1, -10]\n",
     "dreams.incubi.earth[1]: -10 is not a whole number from -9 to -1"),
])
def test_a_count_or_value_at_its_limit_loads_and_one_past_it_is_refused(
        tmp_path, part, at_limit, past_limit, message):
    """The limits the errors state are the limits kept, at both ends: 64 base cities, 16
    Temples, 64 Chaos, values of 9 and -9."""
    edit = _with_section(part)
    loaded = load_card_set(_write(tmp_path, edit(at_limit)))
    if part == "cities":
        lines = at_limit.splitlines()
        assert len(loaded.city_ids) == lines[0].count("[") - 1
        temples = loaded.cards[loaded.owner == Expansion.TEMPLES_HARMONY]
        assert (temples[:, CardField.TYPE] == CardType.CITY).sum() == \
            (16 if len(lines) > 1 else 4)
    elif part == "chaos":
        chaos = loaded.cards[loaded.cards[:, CardField.TYPE] == CardType.CHAOS]
        assert len(chaos) == int(at_limit.split()[2]) and set(chaos[:, CardField.VALUE]) == {9}
    else:
        ctype = {"wizard": CardType.WIZARD, "sognae": CardType.SOGNAE,
                 "incubi": CardType.INCUBI}[part]
        earth = loaded.cards[(loaded.cards[:, CardField.TYPE] == ctype) &
                             (loaded.cards[:, CardField.ELEMENTS] == 1)]
        assert list(earth[:, CardField.VALUE]) == json.loads(at_limit.split(" = ")[1])
    with pytest.raises(CardSetError, match=re.escape(message)):
        load_card_set(_write(tmp_path, edit(past_limit)))


@pytest.mark.parametrize("key", ["sognae", "incubi"])
def test_a_file_without_any_sognae_or_any_incubi_is_refused(tmp_path, key):
    """Every element's list may be empty, but not all four: the base game is won by Sognae
    and Incubi placed on the cities."""
    text = _r14_text()
    start = text.index(f"[dreams.{key}]\n")
    end = text.index("\n[", start) + 1
    empty = f"[dreams.{key}]\nearth = []\nwater = []\nfire = []\nair = []\n"
    with pytest.raises(CardSetError, match=re.escape(f"dreams.{key}: no cards")):
        load_card_set(_write(tmp_path, text[:start] + empty + text[end:]))
    one = empty.replace("air = []", "air = [1]" if key == "sognae" else "air = [-1]")
    assert len(load_card_set(_write(tmp_path, text[:start] + one + text[end:])).cards) == \
        len(DEFAULT.cards) - 31


def test_a_wrong_harmony_or_meta_side_names_its_entry(tmp_path):
    text = _r14_text()
    harmony = "values = [[1, -1], [1, -1]"
    assert harmony in text
    with pytest.raises(CardSetError, match=re.escape(
            "dreams.harmony.values[1][1]: 1 is not a whole number from -9 to -1")):
        load_card_set(_write(tmp_path, text.replace(harmony, "values = [[1, -1], [1, 1]", 1)))
    with pytest.raises(CardSetError, match=re.escape(
            "dreams.meta.air[1][0]: -3 is not a whole number from 1 to 9")):
        load_card_set(_write(tmp_path, text.replace("air = [[2, -2], [3, -3]]",
                                                    "air = [[2, -2], [-3, -3]]", 1)))


def test_sixteen_books_load_and_a_seventeenth_is_refused(tmp_path):
    base = _r14_text().split("[books]")[0]
    books = ["freedom", "perfect_balance", "flying_sognae", "invisible_incubi"] * 4
    loaded = load_card_set(_write(tmp_path, base + f"[books]\ncards = {json.dumps(books)}\n"))
    assert list(loaded.cards[loaded.owner == Expansion.BOOKS, CardField.TYPE]) == \
        [CardType.BOOK] * 16
    with pytest.raises(CardSetError, match=re.escape(
            "books.cards: expected a list of up to 16 Book names")):
        load_card_set(_write(tmp_path, base + f"[books]\ncards = "
                                              f"{json.dumps(books + ['freedom'])}\n"))


@pytest.mark.parametrize("old, new", [
    ("value = 5", "value = 6"),  # the Chaos: as many cards, each of another value
    ('base = [\n  ["earth", "water"]', 'base = [\n  ["earth", "fire"]'),
])
def test_a_copy_of_the_shipped_file_with_as_many_cards_but_one_changed_is_named_as_edited(
        tmp_path, old, new):
    """The same number of cards of each expansion, one of them other than R14's: still not
    the shipped set, whose name it must not carry."""
    text = _r14_text()
    assert old in text
    edited = load_card_set(_write(tmp_path, text.replace(old, new, 1)))
    assert edited.name == "R14-default (edited)"
    assert len(edited.cards) == len(DEFAULT.cards) and edited.digest != DEFAULT.digest


@pytest.mark.parametrize("old, new, message", [
    ("garden = 4\n", "garden = 4\ngardens = 4\n",
     "cities: unknown key 'gardens' (expected one of base, garden, square, temple)"),
    ("[dreams.chaos]\n", "[dreams.chaos]\nvalues = 5\n",
     "dreams.chaos: unknown key 'values' (expected one of count, value)"),
    ("[dreams.chromatic]\n", "[dreams.chromatic]\nvalues = 4\n",
     "dreams.chromatic: unknown key 'values' (expected one of count, value)"),
    ("[dreams.meta]\n", "[dreams.meta]\nEarth = [[2, -2]]\n",
     "dreams.meta: unknown key 'Earth' (expected one of air, earth, fire, water)"),
    ("[dreams.wizard]\n", "[dreams.wizard]\nmoon = [2]\n",
     "dreams.wizard: unknown key 'moon' (expected one of air, earth, fire, water)"),
    ("[dreams.harmony]\n", "[dreams.harmony]\nvalue = [[1, -1]]\n",
     "dreams.harmony: unknown key 'value' (expected one of values)"),
    ("[dreams.sognae]\n", "[dreams.wizards]\nearth = [2]\n\n[dreams.sognae]\n",
     "dreams: unknown key 'wizards' (expected one of chaos, chromatic, harmony, incubi, meta, "
     "sognae, wizard)"),
    ("[books]\n", "[books]\nnames = []\n", "books: unknown key 'names' (expected one of cards)"),
    ("[emptiness]\n", "[emptiness]\ncount = 8\n",
     "emptiness: unknown key 'count' (expected one of cards)"),
])
def test_an_extra_or_misspelt_key_in_any_section_is_refused_and_named(tmp_path, old, new,
                                                                      message):
    """A misspelt key would otherwise be read as no cards of its kind, or its cards left
    out without a word."""
    text = _r14_text()
    assert text.count(old) == 1
    with pytest.raises(CardSetError, match=re.escape(message)):
        load_card_set(_write(tmp_path, text.replace(old, new, 1)))


def test_a_deleted_harmony_list_is_an_error_not_zero_harmony(tmp_path):
    text = _r14_text()
    start = text.index("values = [[1, -1]")
    end = text.index("\n\n", start) + 1
    with pytest.raises(CardSetError, match=re.escape(
            "dreams.harmony.values: missing (a list of [Sognae, Incubi])")):
        load_card_set(_write(tmp_path, text[:start] + text[end:]))


@pytest.mark.parametrize("name", ['""', '"   "', '"\\u0020\\u3000"'])
def test_a_blank_name_is_refused(tmp_path, name):
    """Every result names its card set: a name that shows nothing names none."""
    text = _r14_text()
    with pytest.raises(CardSetError, match=re.escape("name: expected a non-empty string, not")):
        load_card_set(_write(tmp_path, text.replace('name = "R14-default"', f"name = {name}",
                                                    1)))
