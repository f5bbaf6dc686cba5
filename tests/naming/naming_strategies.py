"""Hypothesis strategies for the naming properties (test_uris, test_jdbc, test_registry)."""

from hypothesis import settings
from hypothesis import strategies as st

FEW = settings(max_examples=25, deadline=None)

names = st.from_regex(r"[A-Za-z][A-Za-z0-9_]{0,11}", fullmatch=True)
lower_names = st.from_regex(r"[a-z][a-z0-9_]{0,11}", fullmatch=True)
labels = st.from_regex(r"[a-z][a-z0-9-]{0,8}[a-z0-9]", fullmatch=True)
hosts = st.lists(labels, min_size=1, max_size=3).map(".".join)
ports = st.integers(min_value=1, max_value=65535)
segments = st.from_regex(r"[A-Za-z0-9_=-][A-Za-z0-9_.=-]{0,9}", fullmatch=True).filter(lambda s: s not in (".", ".."))
keys = st.lists(segments, min_size=1, max_size=5).map("/".join)
accounts = st.from_regex(r"[a-z0-9]{3,24}", fullmatch=True)
regions = st.from_regex(r"(us|eu|ap)-(east|west|central)-[1-3]", fullmatch=True)
