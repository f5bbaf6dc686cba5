"""Spark lineage: the implementation behind the public `olsdk.spark` module."""
