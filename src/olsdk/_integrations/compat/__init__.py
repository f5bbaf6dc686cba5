"""The official client bridge: the implementation behind the public `olsdk.compat` module."""
