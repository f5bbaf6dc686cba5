"""olsdk: a typed Python SDK for OpenLineage."""

__version__ = "0.1.0"
