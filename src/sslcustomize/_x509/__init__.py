"""X.509 without a TLS connection: DER facts, subject hashes, offline replay of a chain."""
