"""How the benchmarks print their figures: one JSON object, or a table."""

from __future__ import annotations

import json
import platform
from typing import Any


def add_platform(figures: dict[str, Any]) -> None:
    """The Python version and the machine, for the record."""
    figures["python"] = platform.python_version()
    figures["machine"] = f"{platform.machine()} {platform.processor() or ''}".strip()


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
