"""The agents page's table of every shipped agent on every rule set, read from the record that
``benchmarks/agents_table.py --record docs/records/agents-table.json`` writes (the README's results table is checked
against the same record by ``tests/test_numbers.py``)."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[3]
RECORD = "docs/records/agents-table.json"


def agents_record(root: Path = ROOT) -> dict[str, Any]:
    """The committed agents-table record."""
    return json.loads((root / RECORD).read_text(encoding="utf-8"))


def agents_table(root: Path = ROOT) -> str:
    """The record as a Markdown table, formatted by the benchmark's own function (one format for both)."""
    spec = importlib.util.spec_from_file_location("agents_table_benchmark", root / "benchmarks" / "agents_table.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    record = agents_record(root)
    command = (f"python benchmarks/agents_table.py --episodes {record['episodes']:,} --seed {record['seed']} "
               f"--rules {' '.join(record['rules'])} --record {RECORD}").replace(",", "")
    return f"`{command}`:\n\n{module.markdown_table(record)}\n"
