"""A policy at work: the runtime value and the process's effective one."""
