"""``python -m olsdk``: the ``olsdk`` command, for environments whose scripts folder is
not on ``PATH`` (a wheel installed with ``--user``, a notebook's kernel, ``pipx run``)."""

from __future__ import annotations

import sys

from olsdk._integrations._cli import main

if __name__ == "__main__":
    sys.exit(main())
