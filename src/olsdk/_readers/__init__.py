"""The readers: `parse_event` (strict and lenient), `validate_event` and the JSON rules they share."""
