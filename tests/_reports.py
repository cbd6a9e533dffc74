"""Reading back what the report sinks wrote, through ``report``'s own validating reader."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from sslcustomize._diagnosis._reading import Reading, read_path, read_spool_of


def read_records(path: str | Path) -> list[dict[str, Any]]:
    """Every valid record at ``path`` (a sink's file and its spool, or a directory), in order."""
    reading = Reading()
    read_path(str(path), reading)
    return reading.records


def read_reading(path: str | Path) -> Reading:
    """What reading ``path`` gave: its valid records and the skipped lines, by source."""
    reading = Reading()
    read_path(str(path), reading)
    return reading


def read_spool(spool: str | Path) -> list[dict[str, Any]]:
    """Every valid record waiting in ``spool``: its parts from their offsets, then itself."""
    reading = Reading()
    read_spool_of(str(spool), None, reading)
    return reading.records
