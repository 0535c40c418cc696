"""tritonlint's rules, one per file, named after the pattern they flag."""
