"""`urbion cards` and analyzer.card_table: a card file shown as a designer reads it, and the
shipped file written out as a template."""

from __future__ import annotations

from collections import Counter

import pytest

import analyzer
from analyzer.cards import default_card_set, load_card_set
from analyzer.errors import UrbionError
from tests.test_cli import run

ELEMENTS = ("earth", "water", "fire", "air")


def test_the_r14_table_holds_the_cards_rulings_r14_lists():
    """Counts and values as RULINGS R14 (and the README) state them, per element."""
    table = analyzer.card_table()
    assert table.attrs["card_set"] == "R14-default"
    base = table[table["expansion"] == "base"]
    assert (base["type"] == "city").sum() == 12
    cities = Counter(base.loc[base["type"] == "city", "elements"])
    assert len(cities) == 6 and set(cities.values()) == {2}  # each element pair twice
    for element in ELEMENTS:
        sognae = base[(base["type"] == "sognae") & (base["elements"] == element)]
        incubi = base[(base["type"] == "incubi") & (base["elements"] == element)]
        assert sorted(sognae["value"]) == [1, 1, 2, 2, 3, 3, 4, 4]
        assert sorted(incubi["value"]) == [-3, -3, -2, -2, -2, -1, -1, -1]
    chaos = base[base["type"] == "chaos"]
    assert len(chaos) == 8 and set(chaos["value"]) == {5}
    metas = table[table["type"] == "meta"]
    assert sorted(zip(metas["value"], metas["incubi_value"], strict=True)) == \
        [(2, -2)] * 4 + [(3, -3)] * 4
    assert sorted(table.loc[table["type"] == "chromatic", "value"]) == [4] * 8
    sizes = table.groupby("expansion").size().to_dict()
    assert sizes["books"] == 8 and sizes["emptiness"] == 8 and sizes["chromatic_chaos"] == 8
    assert list(table["id"]) == list(range(len(table)))  # the ids traces name


def test_the_counts_say_what_each_part_brings():
    text = str(analyzer.card_table().pipe(_counts))
    assert "base              84 cards: 12 city; 32 sognae (+1 x8, +2 x8, +3 x8, +4 x8); " \
           "32 incubi (-1 x12, -2 x12, -3 x8); 8 chaos (±5 x8)" in text
    assert "squares_metas     12 cards: 4 city square; 8 meta (+2/-2 x4, +3/-3 x4)" in text
    assert "expansions this file can play: squares_metas, temples_harmony" in text


def _counts(table):
    from analyzer.analysis.card_table import format_card_counts

    return format_card_counts(table)


def test_a_designers_changes_are_listed_kind_by_kind_and_values_read_in_order(tmp_path):
    """A fire Sognae +2 made a +1: two kinds change count, nothing else. The counts list
    values by size whatever order the file gives them in."""
    from analyzer.analysis.card_table import card_differences, format_card_counts

    mine = tmp_path / "mine.toml"
    analyzer.write_card_template(mine)
    text = mine.read_text().replace('name = "R14-default"', 'name = "mine"')
    text = text.replace("fire = [1, 1, 2, 2, 3, 3, 4, 4]", "fire = [1, 1, 1, 2, 3, 3, 4, 4]")
    text = text.replace("earth = [1, 1, 2, 2, 3, 3, 4, 4]", "earth = [4, 4, 3, 3, 2, 2, 1, 1]")
    mine.write_text(text)
    table = analyzer.card_table(mine)
    lines = card_differences(analyzer.card_table(), table).splitlines()
    assert lines[0].startswith("mine (sha256 ") and "against R14-default" in lines[0]
    assert lines[1:] == ["base sognae fire +1: 2 -> 3", "base sognae fire +2: 2 -> 1"]
    assert "32 sognae (+1 x9, +2 x7, +3 x8, +4 x8)" in format_card_counts(table)
    assert card_differences(table, table) == ""
    renamed = table.copy()
    renamed.attrs = {**table.attrs, "card_set": "yours", "card_set_sha256": "f" * 64}
    assert card_differences(table, renamed) == (
        f"yours (sha256 ffffffffffff) holds the cards of mine (sha256 "
        f"{table.attrs['card_set_sha256'][:12]}) in the same order, under another name: "
        "each seed deals the same games")
    reordered = table.iloc[::-1].reset_index(drop=True)
    reordered.attrs = renamed.attrs
    assert card_differences(table, reordered).endswith(
        "kind for kind, in another order: each seed deals other games")


def test_cards_names_a_set_of_the_shipped_cards_in_another_order(tmp_path, capsys):
    mine = tmp_path / "mine.toml"
    analyzer.write_card_template(mine)
    mine.write_text(mine.read_text().replace("earth = [1, 1, 2, 2, 3, 3, 4, 4]",
                                             "earth = [4, 4, 3, 3, 2, 2, 1, 1]"))
    code, out, err = run(capsys, "cards", "--cards", str(mine))
    assert code == 0, err
    assert "kind for kind, in another order: each seed deals other games" in out


def test_the_template_is_the_shipped_set_itself(tmp_path, capsys):
    path = tmp_path / "mine.toml"
    code, out, err = run(capsys, "cards", "--template", str(path))
    assert code == 0, err
    assert out.startswith(f"wrote {path}")
    assert load_card_set(path).digest == default_card_set().digest
    edited = path.read_text().replace("name = \"R14-default\"", "name = \"mine\"")
    path.write_text(edited.replace("count = 8", "count = 6", 1))
    code, out, err = run(capsys, "cards", "--cards", str(path))
    assert code == 0, err
    assert out.startswith(f"card set   mine (sha256 {load_card_set(path).digest[:12]})")
    assert "6 chaos (±5 x6)" in out


def test_cards_shows_the_description_and_flags_the_templates_left_on_other_cards(
        tmp_path, capsys):
    """A copy of the template keeps R14's description ("8 Chaos of 5"): on other cards it
    would tell a reader of the file the wrong set, so `urbion cards` says so."""
    from analyzer.analysis.card_table import STALE_DESCRIPTION

    def shown(*args: str) -> str:
        code, out, err = run(capsys, "cards", *args)
        assert code == 0, err
        return " ".join(out.split())  # the wrapping does not count

    shipped = shown()
    assert "about RULINGS R14: 12 base cities" in shipped and "8 Chaos of 5" in shipped
    assert STALE_DESCRIPTION not in shipped
    path = tmp_path / "mine.toml"
    analyzer.write_card_template(path)
    six = path.read_text().replace("name = \"R14-default\"", "name = \"mine\"")
    path.write_text(six.replace("count = 8", "count = 6", 1))
    assert STALE_DESCRIPTION in shown("--cards", str(path))
    prefixed = tmp_path / "prefixed.toml"
    prefixed.write_text(path.read_text().replace('description = "', 'description = "six: ', 1))
    assert STALE_DESCRIPTION in shown("--cards", str(prefixed))
    quoted = tmp_path / "quoted.toml"  # an account of its own, quoting R14's as the origin
    quoted.write_text(path.read_text().replace(
        'description = "', 'description = "Designer test: six Chaos of 5, the rest as R14. '
        'Was: ', 1))
    assert STALE_DESCRIPTION not in shown("--cards", str(quoted))
    renamed_only = tmp_path / "renamed.toml"
    renamed_only.write_text(path.read_text().replace("count = 6", "count = 8", 1)
                            .replace("earth = [1, 1, 2, 2, 3, 3, 4, 4]",
                                     "earth = [4, 4, 3, 3, 2, 2, 1, 1]", 1))
    assert "earth = [4, 4, 3, 3" in renamed_only.read_text()
    assert STALE_DESCRIPTION not in shown("--cards", str(renamed_only))  # R14's cards
    own = six.replace("count = 8", "count = 6", 1)
    own = "\n".join('description = "R14 with 6 Chaos"' if line.startswith("description")
                    else line for line in own.splitlines())
    path.write_text(own + "\n")
    text = shown("--cards", str(path))
    assert "about R14 with 6 Chaos" in text and STALE_DESCRIPTION not in text


def test_cards_writes_what_would_act_on_the_terminal_as_escapes(tmp_path, capsys):
    """A description holding a right-to-left override turned the rest of its line around,
    and an escape sequence would act on the terminal: both are written as escapes, and the
    refused name's error escapes them too."""
    path = tmp_path / "mine.toml"
    analyzer.write_card_template(path)
    template = path.read_text()
    path.write_text(template.replace('name = "R14-default"', 'name = "mine"')
                    .replace('description = "', 'description = "a\\u202eb \\u001b[2J ', 1))
    code, out, err = run(capsys, "cards", "--cards", str(path))
    assert code == 0, err
    assert "\u202e" not in out and "\x1b" not in out
    assert "a\\u202eb \\x1b[2J " in out
    path.write_text(template.replace('name = "R14-default"', 'name = "mine\\u202eenim"'))
    code, out, err = run(capsys, "cards", "--cards", str(path))
    assert code == 2 and "\u202e" not in err
    assert 'not "mine\\u202eenim"' in err


def test_a_file_without_an_expansion_cannot_play_it(tmp_path):
    text = (tmp_path / "t.toml")
    analyzer.write_card_template(text)
    lines = text.read_text().splitlines()
    start = next(i for i, line in enumerate(lines) if line.strip() == "[emptiness]")
    end = next((i for i in range(start + 1, len(lines)) if lines[i].startswith("[")),
               len(lines))
    text.write_text("\n".join(lines[:start] + lines[end:]) + "\n")
    table = analyzer.card_table(text)
    assert "emptiness" not in set(table["expansion"])
    assert "can play: squares_metas, temples_harmony, gardens_wizards, chromatic_chaos, " \
           "books, postcards\n" in _counts(table) + "\n"


def test_the_template_never_replaces_an_existing_file(tmp_path, capsys):
    """It is the file a designer edits: running the command again must not wipe it."""
    path = tmp_path / "mine.toml"
    path.write_text('name = "my edits"\n')
    code, out, err = run(capsys, "cards", "--template", str(path))
    assert code == 2 and out == "" and "exists" in err and err.count("\n") == 1
    assert path.read_text() == 'name = "my edits"\n'


@pytest.mark.parametrize("args, message", [
    (["cards", "--template", "cards.txt"], "must end in .toml"),
    (["cards", "--template", "t.toml", "--list"], "--template writes a card file: it takes no"),
    (["cards", "--cards", "/no/such.toml"], "cannot read card-set file"),
    # named as the option it came with, not as the --cards the table reads it as
    (["cards", "--against", ""], "error: --against (against=) must be a path, not ''"),
])
def test_bad_cards_input_is_one_line_and_exit_2(capsys, tmp_path, monkeypatch, args, message):
    monkeypatch.chdir(tmp_path)
    code, out, err = run(capsys, *args)
    assert code == 2 and out == "" and err.count("\n") == 1 and message in err
    assert list(tmp_path.iterdir()) == []


def test_a_malformed_card_file_is_named_with_its_key(capsys, tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text('name = "x"\n[cities]\nbase = [["earth", "lava"]]\n')
    code, _, err = run(capsys, "cards", "--cards", str(bad))
    assert code == 2 and "cities.base[0]" in err and "lava" in err


def test_the_list_has_a_line_per_card(capsys):
    code, out, _ = run(capsys, "cards", "--list")
    assert code == 0
    head, _, listing = out.partition("\n\n")
    assert head.startswith("card set   R14-default (sha256 d74bfe7f2d40)")
    lines = listing.strip().splitlines()
    assert len(lines) == 84 + 12 + 14 + 20 + 8 + 8 + 24 + 8 + 1  # R14's cards, a header
    words = [line.split() for line in lines[1:]]
    # a City Square shows all four elements; a Meta both sides' values; a Chaos no element
    assert ["squares_metas", "city", "square", "earth+water+fire+air"] in \
        [w[1:5] for w in words]
    assert any(w[1:3] == ["squares_metas", "meta"] and w[-2:] == ["3", "-3"] for w in words)
    assert all(w[-1] == "5" for w in words if w[2] == "chaos")


def test_the_api_refuses_a_template_path_that_is_no_path():
    with pytest.raises(UrbionError, match="--template \\(out=\\) must be a path"):
        analyzer.write_card_template(None)


def test_cards_of_a_file_say_what_it_changes_from_r14(tmp_path, capsys):
    """A designer checking an edit sees the change, not two listings to compare by eye; a
    renamed copy has R14's cards in R14's order (though another name, so another hash)."""
    from tests.test_cli import run

    path = tmp_path / "mine.toml"
    analyzer.write_card_template(path)
    text = path.read_text().replace('name = "R14-default"', 'name = "mine"')
    path.write_text(text)
    code, out, err = run(capsys, "cards", "--cards", str(path))
    assert code == 0, err
    assert out.rstrip().endswith("in the same order, under another name: each seed deals "
                                 "the same games")
    start = text.index("[dreams.chaos]")
    path.write_text(text[:start] + text[start:].replace("count = 8", "count = 6", 1))
    code, out, err = run(capsys, "cards", "--cards", str(path))
    last = out.rstrip().splitlines()
    assert last[-1] == "base chaos ±5: 8 -> 6" and last[-2].startswith("mine (sha256 ")
    assert " against R14-default (sha256 d74bfe7f2d40), cards of each kind:" in out
    code, out, err = run(capsys, "cards", "--cards", str(path), "--list")
    assert out.startswith("card set   mine (sha256 ") and "one line per card" in out
    code, out, err = run(capsys, "cards")
    assert "against" not in out and "kind for kind" not in out  # R14 itself: nothing to say


def test_cards_against_a_file_say_what_they_change_from_it(tmp_path, capsys):
    """A designer's second version against the first: the list was R14's only, in the
    shell (Python's card_differences took against= already)."""
    from tests.test_cli import run

    first, second = tmp_path / "v1.toml", tmp_path / "v2.toml"
    analyzer.write_card_template(first)
    text = first.read_text().replace('name = "R14-default"', 'name = "v1"')
    first.write_text(text)
    start = text.index("[dreams.chaos]")
    second.write_text(text[:start].replace('name = "v1"', 'name = "v2"')
                      + text[start:].replace("count = 8", "count = 6", 1))
    code, out, err = run(capsys, "cards", "--cards", str(second), "--against", str(first))
    assert code == 0, err
    last = out.rstrip().splitlines()
    assert last[-1] == "base chaos ±5: 8 -> 6"
    assert last[-2].startswith("v2 (sha256 ") and " against v1 (sha256 " in last[-2]
    assert "\n".join(last[-2:]) == analyzer.card_differences(second, against=first)
    # R14 against a file, without --cards: R14's counts, then what R14 changes from it
    code, out, err = run(capsys, "cards", "--against", str(second))
    assert code == 0 and out.rstrip().splitlines()[-1] == "base chaos ±5: 6 -> 8", err
    code, out, err = run(capsys, "cards", "--cards", str(first), "--against", str(first))
    assert out.rstrip().endswith("the same cards as v1, kind for kind")
    for extra in (["--list"], ["--template", str(tmp_path / "t.toml")]):
        code, out, err = run(capsys, "cards", "--against", str(first), *extra)
        assert code == 2 and f"it takes no {extra[0]}" in err and not out
    assert not (tmp_path / "t.toml").exists()


def test_the_api_says_what_a_set_changes_as_urbion_cards_does(tmp_path, capsys):
    """The change list was the CLI's alone; in Python it takes files or loaded sets, and
    any set to compare against."""
    from tests.test_cli import run

    path = tmp_path / "mine.toml"
    analyzer.write_card_template(path)
    text = path.read_text().replace('name = "R14-default"', 'name = "mine"')
    start = text.index("[dreams.chaos]")
    path.write_text(text[:start] + text[start:].replace("count = 8", "count = 6", 1))
    code, out, _ = run(capsys, "cards", "--cards", str(path))
    changes = analyzer.card_differences(path)
    assert code == 0 and changes.splitlines() == out.rstrip().splitlines()[-2:]
    assert changes.endswith("cards of each kind:\nbase chaos ±5: 8 -> 6")
    loaded = analyzer.load_cards(path)
    assert analyzer.card_differences(loaded, None) == changes
    assert analyzer.card_differences(None, loaded).splitlines()[1:] == \
        ["base chaos ±5: 6 -> 8"]
    assert analyzer.card_differences(loaded, loaded) == ""
    with pytest.raises(UrbionError, match="^against must be a path, a CardSet"):
        analyzer.card_differences(None, against=3)


def test_r14_names_the_shipped_set_wherever_a_card_file_is_asked_for(tmp_path, capsys,
                                                                      monkeypatch):
    """compare --against took r14 and --cards did not, nor cards --against; a file of that
    name comes first."""
    from tests.test_cli import run

    monkeypatch.chdir(tmp_path)
    assert analyzer.load_cards("r14").digest == analyzer.load_cards(None).digest
    assert analyzer.load_cards("R14").source == analyzer.load_cards(None).source
    code, out, err = run(capsys, "cards", "--cards", "r14")
    assert code == 0 and out.rstrip().endswith("the same cards as R14-default, kind for kind")
    mine = tmp_path / "mine.toml"
    analyzer.write_card_template(mine)
    mine.write_text(mine.read_text().replace('name = "R14-default"', 'name = "mine"'))
    code, out, err = run(capsys, "cards", "--cards", str(mine), "--against", "r14")
    assert code == 0 and " against R14-default (sha256 " not in out  # the same cards
    assert out.rstrip().endswith("in the same order, under another name: each seed deals "
                                 "the same games")
    code, out, err = run(capsys, "cards", "--against", "nope.toml")
    assert code == 2 and err.startswith("urbion: error: --against: cannot read card-set file "
                                        "nope.toml")
    code, out, err = run(capsys, "cards", "--cards", "r14", "--template", "t.toml")
    assert code == 0 and analyzer.load_cards("t.toml").digest == \
        analyzer.load_cards(None).digest, err
    (tmp_path / "r14").mkdir()  # a folder of that name is no card file
    assert analyzer.load_cards("r14").name == "R14-default"
    (tmp_path / "r14").rmdir()
    (tmp_path / "r14").write_text(mine.read_text())  # a file of that name comes first
    assert analyzer.load_cards("r14").name == "mine"
    assert analyzer.simulate(games=5, cards="r14").attrs["card_set"] == "mine"
    # and a page names it so that its command reads the file, not the word
    from analyzer.reporting.names import shared_file

    assert shared_file(str(tmp_path / "r14")) == "./r14"
    assert shared_file(str(tmp_path / "r14.toml")) == "r14.toml"


def test_a_base_city_of_other_than_two_elements_plays_and_is_pointed_out(tmp_path, capsys):
    """Every base City card of the rulebook shows 2 elements: a file may hold others as a
    what-if, but a typed-in city missing an element is said, by its key, not played as
    another game without a word."""
    path = tmp_path / "odd.toml"
    analyzer.write_card_template(path)
    text = path.read_text().replace('name = "R14-default"', 'name = "odd"')
    text = text.replace('["earth", "water"]', '["earth"]', 1)
    path.write_text(text.replace('["earth", "fire"]', '["earth", "fire", "air"]', 1))
    code, out, err = run(capsys, "cards", "--cards", str(path))
    assert code == 0, err
    assert ("note 2 base cities show other than the 2 elements of the rulebook's City cards, "
            "and play as listed: cities.base[0] earth; cities.base[2] earth+fire+air") in \
        " ".join(out.split())
    code, out, _ = run(capsys, "cards")
    assert code == 0 and "rulebook's City cards" not in out


def test_an_expansion_a_file_leaves_out_is_said_once_not_as_a_count_of_none(tmp_path,
                                                                           capsys):
    """"chromatic ±4: 8 -> 0" read as playing Chromatic Chaos with no cards; the file
    cannot play it at all."""
    path = tmp_path / "mine.toml"
    analyzer.write_card_template(path)
    text = path.read_text().replace('name = "R14-default"', 'name = "mine"')
    start = text.index("[dreams.chromatic]")
    end = text.index("\n[", start + 1)
    path.write_text(text[:start] + text[end + 1:])
    code, out, err = run(capsys, "cards", "--cards", str(path))
    assert code == 0, err
    assert out.rstrip().splitlines()[-1] == \
        "chromatic_chaos: 8 cards -> none (mine leaves it out and cannot play it)"
    assert "-> 0" not in out
    code, out, err = run(capsys, "cards", "--against", str(path))
    assert code == 0, err
    assert out.rstrip().splitlines()[-1] == \
        "chromatic_chaos: none -> 8 cards (mine leaves it out and cannot play it)"


def test_expansions_a_file_leaves_out_are_said_in_the_shipped_files_order(tmp_path):
    """A file of the base game alone against R14: one line per expansion, in the order
    R14's file gives them, each said once."""
    from analyzer.analysis.card_table import card_differences

    path = tmp_path / "base.toml"
    analyzer.write_card_template(path)
    text = path.read_text().replace('name = "R14-default"', 'name = "base"')
    text = text[:text.index("[dreams.chromatic]")]
    for line in ("square = 4\n", 'temple = ["earth", "water", "fire", "air"]\n', "garden = 4\n"):
        assert line in text
        text = text.replace(line, "")
    path.write_text(text)
    lines = card_differences(analyzer.card_table(), analyzer.card_table(path)).splitlines()
    assert lines[1:] == [f"{name}: {count} cards -> none (base leaves it out and cannot play it)"
                         for name, count in (("squares_metas", 12), ("temples_harmony", 14),
                                             ("gardens_wizards", 20), ("chromatic_chaos", 8),
                                             ("books", 8), ("postcards", 24),
                                             ("emptiness", 8))]
