"""The README and docs/ point at files that exist: relative links, and every recorded run they cite by its
`tools/results/...` path (a figure without its run is a claim nobody can check)."""
from __future__ import annotations

import itertools
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = [ROOT / "README.md"] + sorted((ROOT / "docs").glob("*.md"))


def _expand(path: str) -> list[str]:
    """`a/{b,c}/d` -> [`a/b/d`, `a/c/d`] (the shell's brace form, which the records use for sibling runs)."""
    parts = re.split(r"\{([^{}]*)\}", path)
    choices = [[p] if i % 2 == 0 else p.split(",") for i, p in enumerate(parts)]
    return ["".join(c) for c in itertools.product(*choices)]


def _cited(text: str, base: Path) -> list[tuple[str, Path]]:
    out = []
    for m in re.finditer(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", text):
        target = m.group(1)
        if not re.match(r"[a-z]+://", target):
            out.append((target, base / target))
    for m in re.finditer(r"`(tools/results/[^`\s]+)`", text):
        cited = m.group(1).rstrip("/,.;:")
        if "<" in cited:  # a pattern the text spells out (`h100-<date>`), not a path
            continue
        out += [(cited, ROOT / p) for p in _expand(cited)]
    return out


@pytest.mark.parametrize("doc", DOCS, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_cited_files_exist(doc: Path):
    missing = [shown for shown, path in _cited(doc.read_text(), doc.parent) if not path.exists()]
    assert not missing, f"{doc.name} cites files that do not exist: {missing}"


def test_a_missing_citation_is_found(tmp_path: Path):
    text = "see [here](nowhere.md) and `tools/results/h100-2026-11-22/{run4,no_such_run}/overhead.json`"
    missing = [shown for shown, path in _cited(text, tmp_path) if not path.exists()]
    assert missing == ["nowhere.md", "tools/results/h100-2026-11-22/{run4,no_such_run}/overhead.json"]


def test_readme_links_every_doc():
    readme = (ROOT / "README.md").read_text()
    unlinked = [p.name for p in sorted((ROOT / "docs").glob("*.md")) if f"(docs/{p.name})" not in readme]
    assert not unlinked, f"docs not linked from the README: {unlinked}"
