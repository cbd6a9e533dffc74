"""The diagnosis layer: what only the command line runs (reading records, their summaries)."""
