"""The policy as a value: its model, host patterns, reading, merging, caching, schema, errors."""
