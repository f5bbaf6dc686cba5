"""Helpers shared by the test packages (no test modules here)."""
