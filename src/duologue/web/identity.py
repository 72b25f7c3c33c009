"""Who may use a participant id: the browser that arrived with it first.

A participant id (from the crowd platform's link) is not a secret: anyone who learns it could open
the link. So the first browser to arrive gets an HttpOnly session cookie, and the id is bound to a
keyed hash of that cookie. From then on the id's lobby, seat (its chat page, websocket and moves),
questionnaire and completion code open only in that browser; another browser gets a clear page
saying so. Raters' ids are bound the same way.

Clients that never send a session cookie (scripts, the API) are served as before for ids that no
browser has claimed; an id bound to a browser is refused to them.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
from typing import Any

from starlette.requests import HTTPConnection

COOKIE = "duologue_session"
SESSION = re.compile(r"^[A-Za-z0-9_-]{32,64}$")
COOKIE_SECONDS = 60 * 60 * 24 * 30
REFUSED = "This participant id is already in use in another browser. Please continue in the browser where you started; if that is not possible, contact the researchers."


def session_of(connection: HTTPConnection) -> str | None:
    """The session cookie a request or websocket carries (None when absent or malformed)."""
    value = connection.cookies.get(COOKIE)
    return value if value is not None and SESSION.match(value) else None


def new_session() -> str:
    return secrets.token_urlsafe(32)


def keyed(secret: str, session: str) -> str:
    """What storage keeps: an HMAC of the cookie, so a database copy cannot be replayed as a cookie."""
    return hmac.new(secret.encode(), session.encode(), hashlib.sha256).hexdigest()


def set_session(response: Any, session: str, *, secure: bool) -> None:
    response.set_cookie(COOKIE, session, max_age=COOKIE_SECONDS, httponly=True, samesite="lax", secure=secure, path="/")


def claim(state: Any, participant_id: str, session: str | None) -> bool:
    """Bind the id to this browser if no browser holds it; whether this browser may use it.

    Without a session (a client without cookies) the id may be used only while no browser holds it.
    """
    if session is None:
        return state.storage.session_of(participant_id) is None
    mine = keyed(state.settings.secret, session)
    bound: bool = state.storage.bind_session(participant_id, mine) == mine
    return bound


def release(state: Any, participant_id: str, session: str) -> None:
    """Undo `claim` for a page that then failed: its fresh cookie never reached the browser, so the
    id must not stay bound to a session nobody holds."""
    state.storage.unbind_session(participant_id, keyed(state.settings.secret, session))


def may_use(state: Any, participant_id: str | None, session: str | None) -> bool:
    """Whether this browser may use what belongs to the id (its seat, questionnaire, code)."""
    if participant_id is None:
        return True
    bound = state.storage.session_of(participant_id)
    if bound is None:
        return True
    return session is not None and hmac.compare_digest(bound, keyed(state.settings.secret, session))


def same_browser(state: Any, session: str | None) -> set[str]:
    """Every id this browser proved it holds (none without a session cookie)."""
    return state.storage.ids_of_session(keyed(state.settings.secret, session)) if session is not None else set()
