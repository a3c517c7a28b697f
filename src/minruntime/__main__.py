"""``python -m minruntime``: the same as the ``minruntime`` command."""

from __future__ import annotations

import sys

from minruntime.cli import main

if __name__ == "__main__":
    sys.exit(main())
