"""Diagnosis: what only the command line uses (probes, analyses, schema); no hooked process."""
