"""Fixtures of the official-client parity tests: the shared ones of tests/support."""

from tests.support.client_testkit import free_port, restore_environ, server

__all__ = ["free_port", "restore_environ", "server"]
