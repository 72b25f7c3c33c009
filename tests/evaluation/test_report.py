"""The HTML report: self-contained, escaped, figures embedded as images, figures that show their numbers."""

from __future__ import annotations

import base64
from html.parser import HTMLParser

from duologue.analysis.report import (
    LeaderboardRow,
    Report,
    figure_png,
    heatmap_figure,
    leaderboard_figure,
    rating_distribution_figure,
    scatter_figure,
)

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


class Collector(HTMLParser):
    """Collects images, links, scripts and text, failing on nothing (html.parser is lenient)."""

    def __init__(self) -> None:
        super().__init__()
        self.images: list[dict[str, str]] = []
        self.urls: list[str] = []
        self.tags: list[str] = []
        self.text: list[str] = []

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        attributes = dict(attrs)
        if tag == "img":
            self.images.append(attributes)
        for name in ("src", "href"):
            if attributes.get(name):
                self.urls.append(attributes[name])

    def handle_data(self, data):
        self.text.append(data)


def parse(text: str) -> Collector:
    collector = Collector()
    collector.feed(text)
    collector.close()
    return collector


def sample_report() -> Report:
    report = Report("Test <report>", subtitle="a & b")
    section = report.section("Tables & figures")
    section.text("A paragraph with <script>alert(1)</script> in it.")
    section.table(["name", "count", "share", "missing"], [["<b>bold</b>", 1200, 0.12345, None]], caption="caption <i>")
    section.figure(scatter_figure([1, 2, 3, 4], [2, 2, 4, 5], title="x vs y", x_label="x", y_label="y"), alt="scatter of x and y")
    board = report.section("Leaderboard")
    board.leaderboard([LeaderboardRow(name="rule", rating=1510.0, low=1480.0, high=1540.0, games=40), LeaderboardRow(name="llm:local", rating=1490.0, low=1450.0, high=1530.0, games=40)])
    return report


def test_report_is_self_contained_with_embedded_png_figures():
    html = sample_report().to_html()
    found = parse(html)
    assert len(found.images) == 2
    for image in found.images:
        assert image["src"].startswith("data:image/png;base64,")
        assert base64.b64decode(image["src"].split(",", 1)[1]).startswith(PNG_MAGIC)
        assert image["alt"]
    assert all(url.startswith(("data:", "#")) for url in found.urls)
    assert "http://" not in html and "https://" not in html
    assert "script" not in found.tags and "link" not in found.tags


def test_report_escapes_every_text():
    html = sample_report().to_html()
    found = parse(html)
    assert "b" not in found.tags and "i" not in found.tags
    assert "<script>alert(1)</script>" not in html
    text = "".join(found.text)
    assert "<script>alert(1)</script>" in text and "<b>bold</b>" in text and "Test <report>" in text


def test_tables_format_numbers_and_missing_values():
    html = sample_report().to_html()
    assert ">1,200<" in html and ">0.123<" in html and ">–<" in html


def test_leaderboard_table_is_best_first():
    text = "".join(parse(sample_report().to_html()).text)
    assert text.index("rule") < text.index("llm:local")


def test_write_and_save_figures(tmp_path):
    report = sample_report()
    target = report.write(tmp_path / "out" / "report.html")
    assert target.read_text(encoding="utf-8").startswith("<!DOCTYPE html>")
    written = report.save_figures(tmp_path / "figures")
    assert [p.name for p in written] == ["tables-figures-01.png", "leaderboard-01.png"]
    assert all(p.read_bytes().startswith(PNG_MAGIC) for p in written)


def test_section_anchors_are_unique():
    report = Report("r")
    assert report.section("Results").anchor == "results"
    assert report.section("Results").anchor == "results-2"


def _texts(figure) -> list[str]:
    return [t.get_text() for axes in figure.axes for t in axes.texts]


def test_heatmap_writes_each_number_in_its_cell_and_marks_missing_ones():
    figure = heatmap_figure([[1.0, 0.75], [0.75, None]], ["user similarity", "user preference"], title="correlations")
    texts = _texts(figure)
    assert texts.count("0.75") == 2 and "1.00" in texts and "–" in texts
    assert figure.axes[0].get_title() == "correlations"


def test_heatmap_never_shows_negative_zero():
    assert "-0.00" not in _texts(heatmap_figure([[-0.001]], ["a"], title="t"))


def test_scatter_is_labelled_and_its_jitter_is_reproducible():
    first = scatter_figure([1, 2, 3], [3, 2, 1], title="t", x_label="user similarity", y_label="user preference", note="ρ = -1.00")
    axes = first.axes[0]
    assert axes.get_xlabel() == "user similarity" and axes.get_ylabel() == "user preference"
    assert axes.get_title(loc="left") == "ρ = -1.00"
    second = scatter_figure([1, 2, 3], [3, 2, 1], title="t", x_label="user similarity", y_label="user preference", note="ρ = -1.00")
    assert figure_png(first) == figure_png(second)


def test_rating_distribution_has_one_panel_per_criterion_and_shares():
    figure = rating_distribution_figure({"preference": {"user": [1, 1, 5, 5]}, "consistency": {"user": [4], "third-party": [3.67, 4.0]}}, title="d", answers=[1, 2, 3, 4, 5])
    visible = [axes for axes in figure.axes if axes.get_visible()]
    assert len(visible) == 2
    heights = [patch.get_height() for patch in visible[0].patches]
    assert sorted(heights) == [0.0, 0.0, 0.0, 0.5, 0.5]
    # 3.67 is counted as the nearest answer, 4
    consistency = [patch.get_height() for patch in visible[1].patches]
    assert consistency.count(1.0) == 2


def test_empty_inputs_give_a_figure_that_says_so():
    for figure in (rating_distribution_figure({}, title="d"), scatter_figure([], [], title="s", x_label="x", y_label="y"), leaderboard_figure([], title="l")):
        assert figure_png(figure).startswith(PNG_MAGIC)


def test_leaderboard_figure_puts_the_best_on_top_with_games():
    figure = leaderboard_figure([LeaderboardRow(name="a", rating=1.0, low=0.5, high=1.5, games=3), LeaderboardRow(name="b", rating=2.0)], title="board")
    labels = [t.get_text() for t in figure.axes[0].get_yticklabels()]
    assert labels == ["a  (3 games)", "b"]  # drawn bottom to top: b, the best, is on top
