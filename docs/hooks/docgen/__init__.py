"""Generators of the documentation's reference parts, run by ``python docs/hooks/generate.py`` (which writes them
into the pages) and by the site's MkDocs hook (which checks that the written ones are current).

Each generator reads the code and returns Markdown, so a generated part cannot disagree with the code. A page holds
one between the lines ``<!-- generated: NAME -->`` and ``<!-- end generated: NAME -->`` (:data:`GENERATORS` lists
the names).
"""

from __future__ import annotations

from collections.abc import Callable

from docgen.agents import agents_table
from docgen.architecture import architecture
from docgen.bench import bench_results, bench_timing, bench_tuning, bench_v1_results, heads_up_changes
from docgen.benchmarks import benchmarks_list
from docgen.cli import cli_reference
from docgen.config import config_reference
from docgen.env_summary import env_summaries
from docgen.observation import env_ids_table, observation_tables
from docgen.readme import readme_results

GENERATORS: dict[str, Callable[[], str]] = {
    "observation-layouts": observation_tables,
    "env-ids": env_ids_table,
    "config-reference": config_reference,
    "cli-reference": cli_reference,
    "benchmarks": benchmarks_list,
    "readme-results": readme_results,
    "env-summaries": env_summaries,
    "agents-table": agents_table,
    "architecture": architecture,
    "bench-results": bench_results,
    "bench-timing": bench_timing,
    "bench-tuning": bench_tuning,
    "bench-v1-results": bench_v1_results,
    "bench-heads-up-changes": heads_up_changes,
}
"""Marker name -> generator of the Markdown that replaces the marker."""
