"""`OLRecord`, under the name the generated models import it by (`codegen/stage.py`'s
`RECORD_BASE`); it lives in the runtime, `olsdk._runtime._records`."""

from __future__ import annotations

from olsdk._runtime import OLRecord

__all__ = ["OLRecord"]
