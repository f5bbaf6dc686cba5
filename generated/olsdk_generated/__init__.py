"""Placeholder until make generate runs."""
