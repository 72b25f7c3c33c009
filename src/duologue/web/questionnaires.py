"""Questionnaires defined as data, checked answers turned into `Rating`s, and completion codes.

A questionnaire is a YAML or JSON file. A task ships its own under `questionnaires/` of its
resources, named by its spec (`TaskSpec.questionnaires`: `party` for the people who played it,
`rater` for third-party raters); any other file is loaded with `load_questionnaire`:

```
id: casino-post-negotiation
title: A few questions about your negotiation
instructions: The negotiation is over. ...
items:
  - id: satisfaction              # the criterion name the corpus uses (the Rating's `criterion`)
    question: How satisfied are you ...?
    respondent: party             # party: a participant about its own dialogue;
                                  # third_party: a rater reading the transcript
    roles: [user]                 # optional, party items only: which party roles answer it
    about: dialogue               # what is rated: dialogue | partner | each_party | role:<role>
    tasks: [casino]               # optional: task ids (casino-v0) or families (casino) it is asked in
    scale: {kind: ordinal, labels: [Extremely dissatisfied, ..., Extremely satisfied]}
    # or a numeric scale: {kind: ordinal, low: 1, high: 5}, with optional low_label / high_label
    value_type: int               # numeric answers are stored as int or float (DUO's files hold 4.0)
    required: true
```

Item ids are exactly the corpora's criterion names, so the answers export natively: CaSiNo's
`satisfaction` / `opponent_likeness` (labelled scales), DUO's `preference`, `stylistic_similarity`,
`consistency` and `empathy` (ED) or `engagingness` (WoW) (1-5, the user about the bot, and third-party
raters about the system side). CoCoA-style `human_likeness` and `cooperation` (1-5) have no place in
the MutualFriends or CraigslistBargain record formats; they live in duologue's own jsonl.

How answers become ratings: `QuestionnaireForm` binds a questionnaire to one dialogue and one
respondent, lists the fields to show (`fields`: one per item, or one per party for `each_party`
items, keyed `item` or `item@party`), checks a submitted answer set (`problems`) and turns it into
`Rating(rater_kind, rater_id, target, criterion, value, scale)` objects (`ratings`), the way the corpus
readers build them (a party's rater id is its party id; `target` is the rated party, or None for
the dialogue as a whole).

Completion codes (`completion_code`) are an HMAC of the study and participant ids under a secret
from the settings: unguessable without the secret, the same every time for the same person, so
the crowd platform's codes can be checked later without storing them.

The code lives in three modules, gathered here: `questionnaire_data` (the models and loading),
`questionnaire_forms` (forms, answers and ratings) and `completion_codes`.
"""

from __future__ import annotations

from duologue.web.completion_codes import check_completion_code, completion_code, normalise_code
from duologue.web.questionnaire_data import (
    PURPOSE as PURPOSE,
    QUESTIONNAIRE_SUFFIXES as QUESTIONNAIRE_SUFFIXES,
    RESPONDENTS as RESPONDENTS,
    ROLE_PREFIX as ROLE_PREFIX,
    TARGET_SEPARATOR as TARGET_SEPARATOR,
    Item,
    Questionnaire,
    QuestionnaireError,
    Respondent as Respondent,
    builtin_questionnaires,
    get_questionnaire,
    load_questionnaire,
    load_questionnaires,
    questionnaires_for,
    task_id_of,
    task_names,
)
from duologue.web.questionnaire_forms import (
    AnswerField,
    AnswerProblem,
    InvalidAnswers,
    QuestionnaireForm,
    coerce_answer,
    forms_for,
    party_label,
    with_ratings,
)

__all__ = [
    "AnswerField",
    "AnswerProblem",
    "InvalidAnswers",
    "Item",
    "Questionnaire",
    "QuestionnaireError",
    "QuestionnaireForm",
    "builtin_questionnaires",
    "check_completion_code",
    "coerce_answer",
    "completion_code",
    "forms_for",
    "get_questionnaire",
    "load_questionnaire",
    "load_questionnaires",
    "normalise_code",
    "party_label",
    "questionnaires_for",
    "task_id_of",
    "task_names",
    "with_ratings",
]
