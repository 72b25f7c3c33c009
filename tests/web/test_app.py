"""Headers every page carries: a Content-Security-Policy, and no caching of one person's pages."""

from __future__ import annotations

from web.webtest_helpers import join_lobby


def test_every_page_has_a_content_security_policy(client):
    for path in ("/", "/study/casino?participant=csp-1", "/static/chat.js", "/healthz"):
        policy = client.get(path).headers["content-security-policy"]
        assert "script-src 'self'" in policy and "frame-ancestors 'none'" in policy and "unsafe-inline" not in policy


def test_a_persons_pages_are_never_cached_and_public_ones_may_be(client):
    token = join_lobby(client, "casino", "cache-1")
    for path in (f"/chat/{token}", f"/api/chat/{token}/view", "/study/casino?participant=cache-1"):
        assert client.get(path).headers["cache-control"] == "no-store", path
    client.post(f"/api/chat/{token}/moves", json={"kind": "walk-away"})
    for path in (f"/questionnaire/{token}", f"/api/questionnaire/{token}"):
        assert client.get(path).headers["cache-control"] == "no-store", path
    assert client.get("/static/style.css").headers.get("cache-control") != "no-store"


def test_the_protocol_pages_before_the_lobby_are_never_cached(make_client):
    import yaml

    from duologue.tasks import spec
    from duologue.web.study import Study

    study = Study.model_validate(yaml.safe_load(spec("casino-v0").resource("protocol", "study.yaml").read_text(encoding="utf-8")))
    client = make_client([study])
    first = client.get(f"/study/{study.id}?participant=cache-2", follow_redirects=False)
    consent = client.get(first.headers["location"])
    assert consent.status_code == 200 and consent.headers["cache-control"] == "no-store"
    refused = client.post(first.headers["location"], data={})  # the form shown again with the answers given
    assert refused.status_code == 422 and refused.headers["cache-control"] == "no-store"
    assert client.get(f"/waiting-code/{study.id}?participant=cache-2").headers["cache-control"] == "no-store"


def test_templates_carry_no_inline_script_or_style():
    """What the policy would block: inline scripts, handlers and style attributes in any template."""
    from pathlib import Path

    import duologue.web

    for template in (Path(duologue.web.__file__).parent / "templates").glob("*.html"):
        text = template.read_text()
        assert "<script>" not in text and " style=" not in text and " onclick=" not in text, template.name
