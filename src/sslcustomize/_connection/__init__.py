"""Contexts and connections under the policy (inside a hooked process)."""
