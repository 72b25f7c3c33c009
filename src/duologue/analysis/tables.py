"""Terminal tables of analysis results (rich), shared by `duologue analyze` and the tasks' own analyses."""

from __future__ import annotations

from rich.table import Table


def number(value: float | None, digits: int = 3) -> str:
    return "–" if value is None or value != value else f"{value:.{digits}f}"


def p_value(p: float | None) -> str:
    """A p-value as papers print it: three decimals, and `< 0.001` below that (never `0.000`)."""
    if p is None or p != p:
        return "–"
    return "< 0.001" if p < 0.001 else f"{p:.3f}"


def interval(low: float | None, high: float | None) -> str:
    if low is None or high is None or low != low or high != high:
        return "–"
    return f"{low:.2f} – {high:.2f}"


def group_label(group: dict[str, str]) -> str:
    return ", ".join(group.values()) if group else "all"


def column_label(column: str) -> str:
    kind, _, criterion = column.partition(":")
    if not criterion:
        return column.replace("_", " ")
    return f"{'user' if kind == 'party' else kind.replace('_', '-')} {criterion.replace('_', ' ')}"


def correlation_table(title: str, found) -> Table:
    table = Table(title=title, title_justify="left")
    for column in ("group", "x", "y", "n", "r", "95% interval", "p"):
        table.add_column(column, justify="right" if column in ("n", "r", "p") else "left", no_wrap=column in ("r", "p", "n"))
    for c in found:
        table.add_row(group_label(c.group), column_label(c.x), column_label(c.y), str(c.n), number(c.r), interval(c.low, c.high), p_value(c.p))
    return table


def rating_means_table(means) -> Table:
    table = Table(title="Rating means (mean ± sample sd; third-party ratings averaged per dialogue first)", title_justify="left")
    for column in ("group", "rater", "criterion", "n", "mean ± sd"):
        table.add_column(column, justify="right" if column in ("n", "mean ± sd") else "left")
    for m in means:
        spread = f"{m.mean:.2f} ± {m.sd:.2f}" if m.sd is not None else f"{m.mean:.2f}"
        table.add_row(group_label(m.group), "user" if m.rater_kind == "party" else m.rater_kind.replace("_", "-"), m.criterion.replace("_", " "), str(m.n), spread)
    return table


def agreement_table(agreement) -> Table:
    table = Table(title="Agreement of third-party raters", title_justify="left")
    for column in ("group", "criterion", "measure", "value", "95% interval", "items", "raters"):
        table.add_column(column, justify="right" if column in ("value", "items", "raters") else "left")
    for a in agreement:
        measure = f"{a.measure} ({a.level})" if a.level else a.measure
        table.add_row(group_label(a.group), a.criterion.replace("_", " "), measure, number(a.value), interval(a.low, a.high), str(a.items), str(a.raters))
    return table
