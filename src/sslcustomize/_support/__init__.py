"""Support: frozen values, fork-safe locks, files, paths, text escaping; imports nothing above."""
