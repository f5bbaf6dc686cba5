"""Example pipelines: `make demo` runs `examples.spark_demo`."""
