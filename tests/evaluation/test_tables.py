"""How analysis figures print: a p-value below 0.001 reads `< 0.001`, never `0.000`."""

from __future__ import annotations

from rich.console import Console

from duologue.analysis.analyses import correlation_rows
from duologue.analysis.correlation import Correlation
from duologue.analysis.tables import correlation_table, p_value


def _found(p: float) -> Correlation:
    return Correlation(method="spearman", x="party:satisfaction", y="points", n=400, r=0.38, p=p, low=0.3, high=0.45)


def test_a_tiny_p_value_prints_as_below_one_in_a_thousand():
    assert p_value(3e-14) == "< 0.001" and p_value(0.0004) == "< 0.001"
    assert p_value(0.001) == "0.001" and p_value(0.0423) == "0.042" and p_value(None) == "–"
    console = Console(record=True, width=200)
    console.print(correlation_table("t", [_found(3e-14), _found(0.25)]))
    shown = console.export_text()
    assert "< 0.001" in shown and "0.250" in shown and "0.000" not in shown
    assert [row[-1] for row in correlation_rows([_found(3e-14)])] == ["< 0.001"]  # the HTML report's cells
