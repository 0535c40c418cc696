"""What the host code around a kernel says: its launches, and the predicates setting its flags."""
