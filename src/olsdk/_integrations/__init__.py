"""The integrations: Spark, the official-client bridge, `olsdk serve`, the lineage page and the command line."""
