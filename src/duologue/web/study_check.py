"""A study is checked whole before it is accepted (`serve --study`, the admin page).

Everything a join would otherwise find out inside the matchmaker, one person at a time, is tried
once up front: the task takes its options, the human party is one of its parties, each bot's
agent spec builds, quotas name partner kinds the study has, the questionnaires exist, every
placeholder of the consent and instructions texts has a value, a corpus of scenarios exists and
parses, and the crowd settings agree (`duologue.web.crowd`). Each problem names its field and says why.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from duologue.web.study import Study

BUILD_ERRORS: tuple[type[Exception], ...] = (KeyError, ValueError, TypeError, OSError, ImportError)
"""How a task or agent refuses its settings: an unknown name (a `KeyError`), a bad value, a
missing file, or a model package that is not installed."""


def study_problems(study: "Study") -> list[str]:
    """`field: reason` for everything in `study` that would fail once people join (empty: fine)."""
    from duologue.agents import check_agent
    from duologue.tasks import make, spec
    from duologue.web.crowd import study_problems as crowd_problems
    from duologue.web.protocol import problems as protocol_problems
    from duologue.web.questionnaires import QuestionnaireError, get_questionnaire

    problems: list[str] = []
    task = None
    try:
        task = make(study.task, **study.task_options)
    except BUILD_ERRORS as whole:  # name the option at fault where one alone is refused
        named = []
        for key, value in study.task_options.items():
            try:
                make(study.task, **{key: value})
            except BUILD_ERRORS as error:
                named.append(f"task_options.{key}: {error}")
        problems.extend(named or [f"task_options: {study.task} refuses them together: {whole}"])
    parties = spec(study.task).parties
    if study.human_party is not None and study.human_party not in parties:
        problems.append(f"human_party: {study.human_party!r} is not a party of {study.task} ({', '.join(parties)})")
    if task is not None:
        for index, partner in enumerate(study.partners):
            if partner.kind != "bot":
                continue
            try:
                check_agent(partner.agent, make(study.task, **study.task_options))
            except BUILD_ERRORS as error:
                problems.append(f"partners.{index}.agent: {partner.agent!r} cannot be built: {error}")
    kinds = {partner.pairing for partner in study.partners}
    for key in study.quotas:
        if key not in kinds:
            problems.append(f"quotas.{key}: no partner of that kind in this study (it has {', '.join(sorted(kinds))})")
    for field in ("questionnaire", "rating_questionnaire"):
        name = getattr(study, field)
        if name is not None:
            try:
                get_questionnaire(name)
            except QuestionnaireError as error:
                problems.append(f"{field}: {error}")
    if study.protocol is not None:
        problems.extend(protocol_problems(study.task, study.protocol))
        problems.extend(_unfilled(study))
    if study.scenarios.source == "corpus":
        problems.extend(_corpus_problems(study))
    problems.extend(crowd_problems(study))
    return problems


def _unfilled(study: "Study") -> list[str]:
    """Each placeholder the consent or instructions text uses that the study gives no value."""
    from duologue.web.consent import missing
    from duologue.web.protocol import texts

    assert study.protocol is not None
    written, _ = texts(study.task, study.protocol)  # a text that cannot be read is named by protocol_problems
    found: list[str] = []
    for step, text in written.items():
        found.extend(missing(study, text, f"the {step} text (protocol.{step})"))
    return found


def _corpus_problems(study: "Study") -> list[str]:
    from duologue.data.io import CorpusReadError
    from duologue.tasks import UnknownNameError, corpus_format
    from duologue.web.scenario_pool import ScenarioPool

    path = study.scenarios.path
    if path is None or not path.exists():
        return [f"scenarios.path: {path} does not exist"]
    try:
        corpus_format(study.scenarios.corpus or "")
    except UnknownNameError as error:
        return [f"scenarios.corpus: {error}"]
    try:
        ScenarioPool(study)
    except (CorpusReadError, ValueError, KeyError, OSError) as error:
        return [f"scenarios.path: {path} cannot be read as {study.scenarios.corpus}: {error}"]
    return []
