"""Who may arrive at a study, by the crowd platform it runs on (a study's `crowd`).

* `prolific`: Prolific gives everyone the same study URL and appends `PROLIFIC_PID`, `STUDY_ID` and
  `SESSION_ID`; all three are required, `STUDY_ID` must be the study's `prolific_study_id`, the
  PID is the participant id, and the code page sends the person back to Prolific.
* `mturk`: MTurk appends `workerId`, `assignmentId`, `hitId` (and `turkSubmitTo`); an
  `assignmentId` of `ASSIGNMENT_ID_NOT_AVAILABLE` is a worker previewing the HIT, who sees the
  task's description and is never seated; the code page posts the code back to MTurk.
* `links`: per-person links signed with `pay.link_secret` (`duologue study links`).
* `open`: any id in the link (a guest id without one): for trying a task, not for paid work.

Whatever the mode, the id is then bound to the first browser that arrives with it (`identity`).
A study that does not say is `links` when it has a `pay.link_secret`, else `open`, as before the
field existed. What each mode leaves open is checked afterwards by `duologue study review`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal, Mapping

from duologue.web.payments import link_ok

Crowd = Literal["prolific", "mturk", "links", "open"]
PROLIFIC_COMPLETE = "https://app.prolific.com/submissions/complete?cc={code}"
PROLIFIC_HOST = "https://app.prolific.com/"
MTURK_PREVIEW = "ASSIGNMENT_ID_NOT_AVAILABLE"
MTURK_HOSTS = ("https://www.mturk.com", "https://workersandbox.mturk.com")
"""Where MTurk's `turkSubmitTo` may point (live and sandbox): a code is posted nowhere else."""


@dataclass(frozen=True)
class Platform:
    """What one crowd mode asks of an arrival."""

    name: str
    required: tuple[str, ...]
    """Query parameters every arrival must carry."""
    id_param: str | None
    """The parameter that is the participant id (None: any of `deps.PARTICIPANT_PARAMS`)."""


PLATFORMS: dict[str, Platform] = {
    "prolific": Platform("Prolific", ("PROLIFIC_PID", "STUDY_ID", "SESSION_ID"), "PROLIFIC_PID"),
    "mturk": Platform("MTurk", ("workerId", "assignmentId", "hitId"), "workerId"),
    "links": Platform("a signed link", ("participant", "sig"), "participant"),
    "open": Platform("an open link", (), None),
}

BAD_LINK = "this study link is not valid; please use the link you were given"


def mode(study: Any) -> str:
    """The study's crowd mode (see the module's text for the default)."""
    if study.crowd is not None:
        return str(study.crowd)
    return "links" if study.pay is not None and study.pay.link_secret else "open"


def is_preview(study: Any, query: Mapping[str, str]) -> bool:
    """An MTurk worker looking at the HIT before accepting it."""
    return mode(study) == "mturk" and query.get("assignmentId") == MTURK_PREVIEW


def submit_host_ok(url: str | None) -> bool:
    return url is not None and url.rstrip("/") in MTURK_HOSTS


def arrival_problem(study: Any, participant: str | None, query: Mapping[str, str]) -> str | None:
    """Why this first arrival is refused (None: admitted). Checked before the id is bound to the
    browser, so a refused arrival locks nobody out."""
    crowd = mode(study)
    platform = PLATFORMS[crowd]
    if crowd == "open":
        return None
    if crowd == "links":
        secret = study.pay.link_secret if study.pay is not None else None
        return None if participant and secret and link_ok(secret, study.id, participant, query.get("sig")) else BAD_LINK
    missing = [name for name in platform.required if not query.get(name)]
    if missing:
        return f"this study runs on {platform.name}: its link must carry {', '.join(platform.required)} (missing: {', '.join(missing)}); please start from the study's page on {platform.name}"
    if platform.id_param and participant != query.get(platform.id_param):
        return f"the participant id does not match {platform.id_param}; please start from the study's page on {platform.name}"
    if crowd == "prolific" and query.get("STUDY_ID") != study.prolific_study_id:
        return "this link belongs to another Prolific study (its STUDY_ID is not this study's); please start from the study's page on Prolific"
    if crowd == "mturk" and query.get("turkSubmitTo") and not submit_host_ok(query.get("turkSubmitTo")):
        return f"turkSubmitTo must be MTurk's own address ({' or '.join(MTURK_HOSTS)})"
    return None


def finish(study: Any, code: str, crowd_ids: Mapping[str, str]) -> dict[str, Any]:
    """What the code page adds for the study's platform: Prolific's redirect, or the form that
    posts the code to MTurk (`crowd`, `redirect`, `auto`, `mturk_action`, `mturk_assignment`); the
    page goes on by itself (`auto`) a few seconds after showing the code."""
    crowd = mode(study)
    pay = study.pay
    redirect = pay.redirect(code) if pay is not None and pay.completion_url else None
    if crowd == "prolific":
        return {"crowd": crowd, "redirect": redirect or PROLIFIC_COMPLETE.replace("{code}", code), "auto": True}
    submit = crowd_ids.get("turkSubmitTo")
    if crowd == "mturk" and submit_host_ok(submit) and crowd_ids.get("assignmentId"):
        return {"crowd": crowd, "redirect": None, "mturk_action": f"{str(submit).rstrip('/')}/mturk/externalSubmit", "mturk_assignment": crowd_ids["assignmentId"], "auto": True}
    return {"crowd": crowd, "redirect": redirect}


def study_problems(study: Any) -> list[str]:
    """`field: reason` for crowd settings that contradict each other (`study_check`)."""
    crowd = mode(study)
    secret = study.pay.link_secret if study.pay is not None else None
    completion = study.pay.completion_url if study.pay is not None else None
    problems: list[str] = []
    if crowd == "prolific" and not study.prolific_study_id:
        problems.append("prolific_study_id: crowd 'prolific' needs the study's id on Prolific (the STUDY_ID Prolific appends), so arrivals from another study are refused")
    if crowd != "prolific" and study.prolific_study_id:
        problems.append(f"prolific_study_id: only used with crowd 'prolific' (this study's crowd is {crowd!r})")
    if crowd == "links" and not secret:
        problems.append("pay.link_secret: crowd 'links' needs a secret to sign the links with (`duologue study links`)")
    if crowd in ("prolific", "mturk", "open") and secret:
        problems.append(f"pay.link_secret: only used with crowd 'links'; {PLATFORMS[crowd].name} arrivals carry no signature, so nobody would be let in" if crowd != "open" else "pay.link_secret: only used with crowd 'links' (crowd 'open' lets any id in)")
    if crowd == "prolific" and completion and not completion.startswith(PROLIFIC_HOST):
        problems.append(f"pay.completion_url: a Prolific study sends people back to Prolific ({PROLIFIC_COMPLETE}); leave it out or give a {PROLIFIC_HOST} address")
    if crowd == "mturk" and completion:
        problems.append("pay.completion_url: an MTurk study posts the code back to MTurk (turkSubmitTo); leave it out")
    return problems


__all__ = ["Crowd", "PLATFORMS", "arrival_problem", "finish", "is_preview", "mode", "study_problems", "BAD_LINK"]
