"""The foundation: the exception tree, the exact formats, secret masking, progress lines and
the facet-key registry. Imports nothing else of olsdk."""
