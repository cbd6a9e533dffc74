"""Shared fixtures."""

pytest_plugins = ["_fixtures"]
