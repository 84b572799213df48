"""Dependencies point down only (LAYOUT): each folder of the package imports the folders
below it and none above, the rules kernels nothing but core/, and the plain-Python reference
engine nothing the fast engine runs, so that their agreement means something. Imports
inside functions count as much as those at the top of a module."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "analyzer"

#: What each part of the package may import of the package, beside itself.
ALLOWED = {
    "core": {"wording"},
    "rules": {"core"},
    "cards": {"core", "errors", "textfiles", "wording"},
    "reference": {"core", "cards", "errors"},
    "policies": {"core", "rules", "cards", "errors", "arguments", "atomic", "runfile",
                 "textfiles", "wording"},
    "trace": {"core", "reference", "errors", "atomic", "wording"},
    "runner": {"core", "rules", "cards", "policies", "reference", "trace", "errors",
               "arguments", "atomic"},
    "analysis": {"core", "cards", "policies", "reference", "runner", "trace", "errors",
                 "arguments", "atomic", "runfile", "textfiles", "wording"},
    "reporting": {"core", "cards", "policies", "runner", "analysis", "errors", "atomic",
                  "wording"},
    # the functions behind the commands, over every part below them
    "api": {"core", "rules", "cards", "reference", "policies", "trace", "runner", "analysis",
            "reporting", "errors", "arguments", "atomic", "runfile", "textfiles", "wording"},
}
#: Libraries a part must not import: the kernels and engines know no tables, charts or
#: clusters; only the runner knows about processes and machines.
FORBIDDEN = {
    "core": {"pandas", "matplotlib", "distributed", "dask", "click", "scipy", "pyarrow"},
    "rules": {"pandas", "matplotlib", "distributed", "dask", "click", "scipy", "pyarrow"},
    "cards": {"pandas", "matplotlib", "distributed", "dask", "click"},
    "reference": {"pandas", "matplotlib", "distributed", "dask", "click"},
    "policies": {"pandas", "matplotlib", "distributed", "dask", "click"},
    "trace": {"pandas", "matplotlib", "distributed", "dask", "click"},
    "runner": {"pandas", "matplotlib", "click"},
    "analysis": {"matplotlib", "click"},
    "reporting": {"click"},
    "api": {"matplotlib", "click"},
}


def _imports(path: Path) -> set[str]:
    """Every absolute module name ``path`` imports, anywhere in it."""
    names = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            assert node.level == 0, f"{path}: a relative import (the package uses none)"
            names.add(node.module or "")
            if node.module == "analyzer":  # from analyzer import atomic: a module of it
                names.update(f"analyzer.{alias.name}" for alias in node.names)
    return names


def _part_imports(part: str) -> dict[str, set[str]]:
    """By module file of ``part``, what it imports."""
    return {str(path.relative_to(PACKAGE.parent)): _imports(path)
            for path in sorted((PACKAGE / part).rglob("*.py"))}


@pytest.mark.parametrize("part", sorted(ALLOWED))
def test_a_part_of_the_package_imports_only_the_parts_below_it(part):
    upward = {f"{module}: {name}" for module, names in _part_imports(part).items()
              for name in names if name.startswith("analyzer.")
              and name.split(".")[1] not in ALLOWED[part] | {part}}
    assert not upward


@pytest.mark.parametrize("part", sorted(FORBIDDEN))
def test_a_part_of_the_package_uses_none_of_the_libraries_above_its_layer(part):
    used = {f"{module}: {name}" for module, names in _part_imports(part).items()
            for name in names if name.split(".")[0] in FORBIDDEN[part]}
    assert not used


def test_every_part_of_the_package_has_its_rule():
    parts = {path.name for path in PACKAGE.iterdir()
             if path.is_dir() and (path / "__init__.py").exists()}
    assert parts == set(ALLOWED) == set(FORBIDDEN)


def test_the_check_sees_an_upward_import_inside_a_function_in_either_form(tmp_path,
                                                                         monkeypatch):
    """The check itself: lazy imports of the runner and of the API in a rules module are
    found and refused."""
    rules = tmp_path / "analyzer" / "rules"
    rules.mkdir(parents=True)
    (rules / "sneaky_nb.py").write_text(
        "def f():\n    from analyzer.runner.plan import RunPlan\n    from analyzer import "
        "api\n    return RunPlan, api\n", encoding="utf-8")
    monkeypatch.setattr(sys.modules[__name__], "PACKAGE", tmp_path / "analyzer")
    with pytest.raises(AssertionError) as refused:
        test_a_part_of_the_package_imports_only_the_parts_below_it("rules")
    assert "analyzer.runner.plan" in str(refused.value)
    assert "analyzer.api" in str(refused.value)
