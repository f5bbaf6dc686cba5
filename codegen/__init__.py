"""olsdk's code generator: spec snapshot -> pydantic v2 models in src/olsdk/_models/_generated/."""
