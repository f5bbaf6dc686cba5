"""Fixtures of the client tests; the server and helpers live in client_testkit."""

import os
import sys

# make the sibling helper module importable whatever pytest's import mode is
sys.path.insert(0, os.path.dirname(__file__))

from client_testkit import free_port, restore_environ, server

__all__ = ["free_port", "restore_environ", "server"]
