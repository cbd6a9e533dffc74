"""Support: frozen values, fork-safe locks, files, paths, text escaping; imports nothing above."""

# The start-up module loads the leaf by its path before this package exists (so as not to load
# the package at every interpreter start): bind it here, where an import of it alone would not.
from sslcustomize._support import _bootstrap as _bootstrap
