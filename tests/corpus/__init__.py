"""Real-shaped OpenLineage events for the tests of the readers (see events.py)."""
