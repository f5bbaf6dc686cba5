"""Custom facets: the implementation behind the public `olsdk.facets` module."""
