"""Dataset and job naming builders: the implementation behind the public `olsdk.naming` module."""
