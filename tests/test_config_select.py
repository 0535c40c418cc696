"""`Config.select` as code builds it: `ALL` selects every rule, as `--select ALL` does."""

from __future__ import annotations

from tritonlint.config import Config, check_selectors


def test_all_in_code_selects_the_rules_off_by_default_too() -> None:
    # `check_selectors` spells ALL as the family prefix; a Config written by hand says "ALL".
    by_hand = Config(select=frozenset({"ALL"}))
    parsed = Config(select=check_selectors(["ALL"], "test"))
    for code, default in (("TL101", True), ("TL111", False), ("TL100", False)):
        assert by_hand.enabled(code, default) is parsed.enabled(code, default) is True


def test_a_code_in_code_still_selects_only_itself() -> None:
    config = Config(select=frozenset({"TL101"}))
    assert config.enabled("TL101") and not config.enabled("TL102") and not config.enabled("TL111", False)
