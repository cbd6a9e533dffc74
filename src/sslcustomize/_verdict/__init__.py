"""Verdicts on a chain: offline verification, and OpenSSL's results turned into reasons."""
