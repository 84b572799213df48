"""No rules kernel is inlined in numba's IR (``inline_jit``).

The search policies compile the turn a second time inside a decision. With rules kernels
inlined (board queries, option builders, the policy view's refresh), numba left symbols of
that second copy unresolved and every search game failed at run time, while the plain
engine and every other test passed. This test finds such a decorator in the source before
anything is compiled; the search tests (tests/test_search.py) are what would fail.
"""

from __future__ import annotations

import ast
from pathlib import Path

RULES = Path(__file__).resolve().parents[1] / "analyzer" / "rules"


def _decorated(decorator: str) -> list[str]:
    """``module.function`` of every rules kernel with ``decorator``."""
    found = []
    for path in sorted(RULES.glob("*_nb.py")):
        for node in ast.parse(path.read_text()).body:
            if isinstance(node, ast.FunctionDef) and \
                    any(ast.unparse(d) == decorator for d in node.decorator_list):
                found.append(f"{path.stem}.{node.name}")
    return found


def test_no_rules_kernel_is_inlined_in_numba_ir():
    assert len(_decorated("jit") + _decorated("borrowing_jit")) > 100  # sees the kernels
    assert _decorated("inline_jit") == []
