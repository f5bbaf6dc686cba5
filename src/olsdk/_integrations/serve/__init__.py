"""olsdk serve: the implementation behind the public `olsdk.serve` module."""
