"""Following a masked load's switched-off lanes to what folds or stores them (TL105, and the fixer's proof that a mask is safe)."""
