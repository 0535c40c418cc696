"""TL104's tile wider than its group gives the witness its two names as data (`Diagnostic.facts`), not
as words to parse: the padded-group oracle reads them there, the message and the JSON stay as they were,
and the cache keeps them."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

from test_witness_group_padding import _checked, _line

from tritonlint.cache import _decode, _encode_diagnostic
from tritonlint.witness import analysis


def _padded(tmp_path: Path) -> tuple[analysis.CheckedFile, object]:
    checked = _checked(tmp_path)
    line = _line(checked.text, "tl.load", "def unit_groups_padded")
    return checked, next(d for d in checked.diagnostics if d.line == line)


def test_the_rule_names_the_tile_and_the_group(tmp_path: Path) -> None:
    _, d = _padded(tmp_path)
    assert d.facts == (("tile", "BLOCK"), ("group", "G")), d.facts
    assert "the tile of BLOCK lanes is wider than the group of `G`" in d.message  # the words unchanged


def test_the_oracle_reads_the_data_not_the_words(tmp_path: Path) -> None:
    _, d = _padded(tmp_path)
    assert analysis.padded_group(d) == ("BLOCK", "G")
    assert analysis.padded_group(dataclasses.replace(d, facts=())) is None
    assert analysis.padded_group(dataclasses.replace(d, message="reworded")) == ("BLOCK", "G")
    # Only names: an expression is no size the oracle can launch with.
    assert analysis.padded_group(dataclasses.replace(d, facts=(("tile", "BLOCK"), ("group", "G * 2")))) is None


def test_json_is_unchanged_and_the_cache_keeps_the_data(tmp_path: Path) -> None:
    checked, d = _padded(tmp_path)
    sources = {checked.display: checked.text}
    bare = dataclasses.replace(d, facts=())
    assert json.loads(analysis.render("json", [d], sources)) == json.loads(analysis.render("json", [bare], sources))
    entry = {"diagnostics": [_encode_diagnostic(d)], "errors": [], "suppressed": 0, "used": []}
    assert _decode(entry, d.path).diagnostics[0].facts == d.facts
