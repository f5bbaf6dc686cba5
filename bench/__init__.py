"""olsdk's side-by-side benchmark: `python -m bench` (see bench/run.py)."""
