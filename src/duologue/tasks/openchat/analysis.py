"""The DUO corpus's own analysis (`duologue analyze duo`), named by the open-chat specs' `analysis`.

* the corpus statistics table (`duologue.data.stats`, the corpus card's table);
* rating means ± sample sd of the user's own and the third-party ratings per language and setting
  (third-party ratings averaged over a dialogue's raters first, as the card does);
* Spearman correlations between the user's and the third parties' stylistic similarity and
  preference, per language and setting, and within each style prompt and bot model (the paper's
  question: does *perceived* similarity go with liking, and whose perception counts?);
* the agreement of the third-party raters (interval Krippendorff's alpha), which bounds how much
  their mean can track anything.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Iterable, Sequence

import pandas as pd
from rich.table import Table

from duologue.core.schema import Dialogue
from duologue.data.stats import corpus_statistics
from duologue.analysis.agreement import Agreement, agreement_by_criterion
from duologue.analysis.analyses import (
    BOOTSTRAP,
    CORRELATION_COLUMNS,
    RatingMean,
    TaskAnalysis,
    agreement_section,
    column_label,
    correlation_rows,
    group_name,
    groups_of_frame,
    matrix_figure,
    rating_column,
    rating_means,
    stats_section,
    unique_correlations,
)
from duologue.analysis.correlation import Correlation, correlations
from duologue.analysis.frames import dialogue_frame, ratings_frame
from duologue.analysis.report import Report, rating_distribution_figure, scatter_figure
from duologue.analysis.tables import agreement_table, correlation_table, rating_means_table

SIMILARITY, PREFERENCE = "stylistic_similarity", "preference"
USER, THIRD_PARTY = "party", "third_party"
DUO_GROUPS = ["language", "setting"]
DUO_SPLITS = ["style", "model"]
"""DUO correlations are also computed within each style prompt and each bot model."""

DUO_PAIRS: list[tuple[str, str]] = [
    (rating_column(USER, SIMILARITY), rating_column(USER, PREFERENCE)),
    (rating_column(THIRD_PARTY, SIMILARITY), rating_column(USER, PREFERENCE)),
    (rating_column(USER, SIMILARITY), rating_column(THIRD_PARTY, SIMILARITY)),
    (rating_column(USER, PREFERENCE), rating_column(THIRD_PARTY, PREFERENCE)),
    (rating_column(THIRD_PARTY, SIMILARITY), rating_column(THIRD_PARTY, PREFERENCE)),
]
"""User vs third-party similarity and preference: every pairing the DUO paper discusses."""


class DuoAnalysis(TaskAnalysis):
    """DUO: statistics, rating means, similarity/preference correlations and third-party agreement."""

    rating_means: list[RatingMean]
    """Per language and setting."""
    correlations: list[Correlation]
    """Spearman, per language and setting, and within each style prompt and model (`group`)."""
    agreement: list[Agreement]
    """Third-party raters' interval Krippendorff's alpha per criterion, language and setting."""

    def correlation(self, x: str, y: str, **group: str) -> Correlation | None:
        """The correlation of columns x and y in exactly this group (`language="en", setting="ed"`)."""
        return next((c for c in self.correlations if c.x == x and c.y == y and c.group == group), None)

    def tables(self) -> list[Table]:
        return [
            rating_means_table(self.rating_means),
            correlation_table("Spearman correlations: similarity and preference", self.correlations),
            agreement_table(self.agreement),
        ]

    def report(self, dialogues: Sequence[Dialogue], *, source: str | None = None) -> Report:
        return duo_report(self, dialogues, source=source)


def _duo_group(dialogue: Dialogue) -> str:
    return f"{dialogue.language}/{dialogue.scenario.public.get('setting', 'unknown')}"


def analyze_duo(dialogues: Iterable[Dialogue], *, splits: Sequence[str] = DUO_SPLITS, bootstrap: int = BOOTSTRAP, seed: int = 0) -> DuoAnalysis:
    """Analyse DUO dialogues (or any open chats rated by their user and by third parties)."""
    dialogues = list(dialogues)
    frame = dialogue_frame(dialogues)
    base = [c for c in DUO_GROUPS if c in frame.columns]
    pairs = [(x, y) for x, y in DUO_PAIRS if x in frame.columns and y in frame.columns]
    found: list[Correlation] = []
    for extra in [[], *[[s] for s in splits if s in frame.columns and s not in base]]:
        found.extend(correlations(frame, pairs, method="spearman", by=[*base, *extra], bootstrap=bootstrap, seed=seed))
    agreement = agreement_by_criterion(dialogues, rater_kind="third_party", level="interval", by=base, seed=seed)
    return DuoAnalysis(
        dialogues=len(dialogues),
        stats=corpus_statistics(dialogues, _duo_group),
        rating_means=rating_means(dialogues, base),
        correlations=unique_correlations(found),
        agreement=agreement,
    )


def analyze(dialogues: Iterable[Dialogue], *, by: Sequence[str] | None = None, bootstrap: int = BOOTSTRAP, seed: int = 0) -> DuoAnalysis:
    """DUO: statistics, rating means, user vs third-party similarity and preference, rater agreement.

    `by`: fields to correlate within besides language and setting (default: style prompt and bot model).
    """
    return analyze_duo(dialogues, splits=DUO_SPLITS if by is None else by, bootstrap=bootstrap, seed=seed)


# --------------------------------------------------------------------------- report


SETTING_NAMES = {"ed": "ED", "wow": "WoW"}
LANGUAGE_NAMES = {"en": "English", "ja": "Japanese"}


def _duo_title(group: dict[str, str]) -> str:
    language = LANGUAGE_NAMES.get(group.get("language", ""), group.get("language", ""))
    setting = SETTING_NAMES.get(group.get("setting", ""), group.get("setting", ""))
    return " ".join(part for part in (setting, language) if part) or "all"


def duo_report(analysis: DuoAnalysis, dialogues: Sequence[Dialogue], *, source: str | None = None) -> Report:
    """The DUO analysis as an HTML report with rating distributions, scatters and heat maps."""
    report = Report("DUO: user and third-party evaluations", subtitle=f"{analysis.dialogues} dialogues" + (f" from {source}" if source else ""))
    stats_section(report, analysis.stats)

    section = report.section("Rating means by language and setting")
    section.text("Mean ± sample standard deviation. User ratings count once per dialogue; third-party ratings are first averaged over the dialogue's three raters.")
    section.table(["group", "rater", "criterion", "n", "mean", "sd"], [[group_name(m.group), "user" if m.rater_kind == "party" else m.rater_kind.replace("_", "-"), m.criterion.replace("_", " "), m.n, m.mean, m.sd] for m in analysis.rating_means])
    ratings = ratings_frame(dialogues)
    for group, members in groups_of_frame(ratings, DUO_GROUPS):
        distributions: dict[str, dict[str, list[float]]] = defaultdict(dict)
        for (kind, criterion), values in members.groupby(["rater_kind", "criterion"], sort=False)["value"]:
            distributions[criterion]["user" if kind == "party" else "third-party (each rater)"] = list(values)
        section.figure(
            rating_distribution_figure(distributions, title=f"Rating distributions: {_duo_title(group)}", answers=[1, 2, 3, 4, 5], columns=4),
            alt=f"Share of each answer 1-5 per criterion, user vs third-party raters, {_duo_title(group)}",
        )

    section = report.section("Similarity and preference")
    section.text(
        "Spearman correlations between the user's own and the third parties' ratings of stylistic similarity and preference, "
        "with 95% bootstrap intervals; first per language and setting, then within each style prompt and bot model."
    )
    main = [c for c in analysis.correlations if set(c.group) == set(DUO_GROUPS)]
    split = [c for c in analysis.correlations if set(c.group) - set(DUO_GROUPS)]
    section.table(CORRELATION_COLUMNS, correlation_rows(main), caption="Per language and setting")
    if split:
        section.table(CORRELATION_COLUMNS, correlation_rows(split), caption="Within each style prompt and bot model")
    frame = dialogue_frame(dialogues)
    for language_group, members in groups_of_frame(frame, ["language"]):
        language = LANGUAGE_NAMES.get(language_group.get("language", ""), language_group.get("language", "all"))
        for x, y in DUO_PAIRS[:2]:
            if x not in members.columns or y not in members.columns:
                continue
            pairs = members.dropna(subset=[x, y])
            if pairs.empty:
                continue
            settings = [SETTING_NAMES.get(s, s) for s in pairs.get("setting", pd.Series(["all"] * len(pairs)))]
            notes = []
            for setting_value in dict.fromkeys(pairs.get("setting", [])):
                found = analysis.correlation(x, y, language=language_group.get("language", ""), setting=setting_value)
                if found is not None:
                    notes.append(f"{SETTING_NAMES.get(setting_value, setting_value)}: ρ = {found.r:.2f} (n = {found.n})")
            section.figure(
                scatter_figure(pairs[x], pairs[y], title=f"{column_label(x)} vs {column_label(y)} ({language})", x_label=column_label(x), y_label=column_label(y), groups=settings, note="\n".join(notes) or None, limits=(1, 5)),
                alt=f"Scatter of {column_label(x)} against {column_label(y)} in the {language} dialogues, jittered",
            )
    for group, members in groups_of_frame(frame, DUO_GROUPS):
        columns = [c for c in frame.columns if (c.startswith("party:") or c.startswith("third_party:")) and members[c].notna().sum() >= 3]
        if len(columns) >= 2:
            section.figure(
                matrix_figure(members, columns, f"Spearman correlations: {_duo_title(group)}", "spearman"),
                alt=f"Heat map of Spearman correlations between user and third-party ratings, {_duo_title(group)}",
                caption="Each cell uses the dialogues that have both ratings (third-party ratings exist for a subset).",
            )

    section = report.section("Agreement of third-party raters")
    section.text("Krippendorff's alpha (interval) over the three third-party raters, with a 95% bootstrap interval over dialogues.")
    agreement_section(section, analysis.agreement)
    return report
