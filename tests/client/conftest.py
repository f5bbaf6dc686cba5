"""Fixtures of the client tests; the server and helpers live in tests.support.client_testkit."""

from tests.support.client_testkit import free_port, restore_environ, server

__all__ = ["free_port", "restore_environ", "server"]
