"""The transports: the implementation behind the public `olsdk.transports` module."""
