"""The client: the implementation behind the public `olsdk.client` module."""
