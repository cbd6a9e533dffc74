"""Reach: put the start-up hook into interpreters, find them, load the private runtime."""
