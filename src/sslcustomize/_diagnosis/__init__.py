"""Diagnosis: what only the command line uses; no hooked process imports it.

The chain probe, check's analysis, shadowed exceptions, the policy schema, and the readers
and summaries behind report.
"""
