"""`tritonlint witness`: make each finding happen on a synthesized launch, and prove each fix by a run."""
