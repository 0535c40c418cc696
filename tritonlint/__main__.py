"""`python -m tritonlint`."""

import sys

from tritonlint.cli import main

sys.exit(main())
