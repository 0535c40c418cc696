"""tritonlint's rules, one family per folder, named after the pattern they flag."""
