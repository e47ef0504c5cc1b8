"""How the benchmarks print their figures: one JSON object, or a table."""

from __future__ import annotations

import json
import os
import platform
from pathlib import Path
from typing import Any


def add_platform(figures: dict[str, Any]) -> None:
    """The Python version and the machine (its architecture, processor and logical cores), for
    the record: figures taken on two machines are told apart by it."""
    figures["python"] = platform.python_version()
    figures["machine"] = machine()


def machine() -> str:
    """``x86_64, Intel(R) Xeon(R) Processor, 2 cores``: the processor's model from
    /proc/cpuinfo where there is one (``platform.processor`` is empty on Linux)."""
    model = platform.processor()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            key, _, value = line.partition(":")
            if key.strip() == "model name" and value.strip():
                model = value.strip()
                break
    except OSError:
        pass
    return ", ".join(part for part in (platform.machine(), model, f"{os.cpu_count() or 1} cores") if part)


def show(figures: dict[str, Any], title: str, as_json: bool) -> None:
    """Print ``figures`` as one JSON object, or as a table titled ``title``."""
    if as_json:
        print(json.dumps(figures))
        return
    from rich.console import Console
    from rich.table import Table

    table = Table(title=title)
    table.add_column("figure")
    table.add_column("value", justify="right")
    for key, value in figures.items():
        if isinstance(value, float):
            shown = f"{value:,.2f}"
        elif isinstance(value, int):
            shown = f"{value:,}"
        else:
            shown = str(value)
        table.add_row(key, shown)
    Console().print(table)
