"""The card-set file: the R14 default and validation errors that name the bad key."""

from __future__ import annotations

import pytest

from analyzer.cards import CardSetError, default_card_set, load_card_set
from analyzer.core.codes import CardField, CardType

DEFAULT = default_card_set()


def test_R14_default_counts_and_values():
    cards = DEFAULT.cards
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
