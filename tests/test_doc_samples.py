"""The sample outputs the docs show are what the commands print: a change that plays other
games makes these fail until the docs are brought up to date."""

from __future__ import annotations

import contextlib
from pathlib import Path

from tests.test_cli import run

ROOT = Path(__file__).resolve().parents[1]


def _block_after(path: Path, marker: str) -> list[str]:
    """The lines of the first fenced block after the line holding ``marker``."""
    lines = path.read_text(encoding="utf-8").splitlines()
    start = next(i for i, line in enumerate(lines) if marker in line)
    first = next(i for i in range(start, len(lines)) if lines[i].startswith("```")) + 1
    last = next(i for i in range(first, len(lines)) if lines[i].startswith("```"))
    return lines[first:last]


def test_the_readme_sample_is_what_make_run_prints(capsys):
    """Every line but the speed, which is the machine's."""
    sample = _block_after(ROOT / "README.md", "Sample output of `make run`")
    code, out, err = run(capsys, "simulate", "--quiet")
    assert code == 0, err
    printed = out.splitlines()
    assert [line for line in printed if not line.startswith("speed ")] == \
        [line for line in sample if not line.startswith("speed ")]


def test_the_sensitivity_sample_of_a_users_card_file_is_what_it_prints(capsys, tmp_path):
    """docs/sensitivity.md: the template with 6 Chaos, named six-chaos."""
    sample = _block_after(ROOT / "docs" / "sensitivity.md", "With a file of 6 Chaos")
    with contextlib.chdir(tmp_path):
        assert run(capsys, "cards", "--template", "t.toml")[0] == 0
    text = (tmp_path / "t.toml").read_text(encoding="utf-8")
    text = text.replace('name = "R14-default"', 'name = "six-chaos"')
    chaos = text.index("[dreams.chaos]")
    count = text.index("count = 8", chaos)
    (tmp_path / "six.toml").write_text(text[:count] + "count = 6" + text[count + 9:],
                                       encoding="utf-8")
    code, out, err = run(capsys, "sensitivity", "--cards", str(tmp_path / "six.toml"),
                         "--games", "2000", "--seed", "3", "--quiet")
    assert code == 0, err
    assert out.strip().splitlines() == sample
