"""Path conditions: what each side of a test says (tritonlint/semantic/paths.py)."""

from __future__ import annotations

import libcst as cst

from tritonlint.semantic.paths import ConditionReader, Literal, compatible


def _reader(**constants: set[str]) -> ConditionReader:
    return ConditionReader({}, constants)


def test_a_name_equal_to_one_constant_is_unequal_to_the_others_it_is_compared_with() -> None:
    reader = _reader(X_DIM={"1", "2"})
    two = reader.when_true(cst.parse_expression("X_DIM == 2"))
    assert Literal("X_DIM==1", False) in two
    assert not compatible(two, reader.when_true(cst.parse_expression("X_DIM == 1")))
    # The other side says nothing about the other constants.
    assert reader.when_false(cst.parse_expression("X_DIM == 2")) == {Literal("X_DIM==2", False)}


def test_a_compound_test_is_an_atom_on_both_sides_and_its_parts_decide_it() -> None:
    reader = _reader()
    test = cst.parse_expression("start + BLOCK > n or D != D_PAD")
    assert reader.when_true(test) == {Literal("start+BLOCK>n or D!=D_PAD", True)}
    assert reader.when_false(test) == {Literal("start+BLOCK>n", False), Literal("D!=D_PAD", False),
                                       Literal("start+BLOCK>n or D!=D_PAD", False)}
    assert reader.parts["start+BLOCK>n or D!=D_PAD"] == ("start+BLOCK>n", "D!=D_PAD")
    # One true part makes the `or` true; a false part makes an `and` false.
    assert Literal("start+BLOCK>n or D!=D_PAD", True) in reader.closure(frozenset({Literal("D!=D_PAD", True)}))
    both = cst.parse_expression("EVEN_M and EVEN_N")
    reader.when_true(both)
    assert Literal("EVEN_M and EVEN_N", False) in reader.closure(frozenset({Literal("EVEN_M", False)}))
    assert Literal("EVEN_M and EVEN_N", True) not in reader.closure(frozenset({Literal("EVEN_M", True)}))
