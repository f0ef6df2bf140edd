"""Deciding from the e-mail: the digest's signed links, opened through the real server (daphne
serving ``config.asgi``, as a mail client's browser does). A GET only shows; a POST by the very
approver the link was written for decides once, through the inbox's decision service; every
other use gets a clear page and changes nothing.

The digests are written in this process (the fake SMTP server keeps them) with the links
pointing at the daphne below; the web process shares this process's ``SECRET_KEY``, so it
verifies what this process signed, like two web processes of one deployment."""

from __future__ import annotations

import re
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from datetime import timedelta

import httpx
import pytest
from django.conf import settings
from django.contrib.auth.models import User
from django.utils import timezone
from django_tenants.utils import tenant_context
from pytest_django.fixtures import Settings as SettingsWrapper

from chat.models import ActionEvent, PendingAction
from chat.pending_actions import pending_action_decide
from notifications.decision_links import decision_link_read, decision_link_token
from notifications.services import digest_run
from tenants.models import Tenant
from tenants.roles import APPROVER
from tests.e2e.conftest import (  # noqa: F401 - stack_env: a fixture, found through this import
    TenantSetup,
    stack_env,
    tenant_setup,
)
from tests.e2e.processes import start_daphne
from tests.notifications.conftest import propose
from tests.tenants.factories import PASSWORD, make_user
from tests.unit.actions.fakes import FakeSmtpServer

pytestmark = pytest.mark.e2e

APPROVER_EMAIL = "approver@alpha.example"


@pytest.fixture(scope="module")
def daphne(
    stack_env: dict[str, str],  # noqa: F811
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[int]:
    env = {
        **stack_env,
        "DEBUG": "false",  # the production pages, not Django's debug ones
        "SECRET_KEY": settings.SECRET_KEY,
        "SESSION_COOKIE_SECURE": "false",
        "CSRF_COOKIE_SECURE": "false",
    }
    process, port = start_daphne(env, tmp_path_factory.mktemp("daphne"))
    yield port
    log = process.whole_output()
    process.stop()
    assert "Traceback" not in log, log


@pytest.fixture
def alpha(
    transactional_db: None, tenant_a: Tenant, settings: SettingsWrapper, daphne: int
) -> TenantSetup:
    settings.APPROVAL_NOTIFY_LINK_SCHEME = "http"
    settings.APPROVAL_NOTIFY_LINK_PORT = daphne
    setup = tenant_setup(tenant_a, "a-")
    with tenant_context(tenant_a):
        User.objects.filter(pk=setup.approver.user.pk).update(email=APPROVER_EMAIL)
    return setup


@pytest.fixture
def beta(transactional_db: None, tenant_b: Tenant) -> TenantSetup:
    return tenant_setup(tenant_b, "b-")


@pytest.fixture
def smtp(fake_smtp: FakeSmtpServer) -> FakeSmtpServer:
    return fake_smtp


LINK = re.compile(r"^(Approve|Reject|Open): http://[^/\s]+(/approvals/decide/\S+/)$", re.M)


def _emailed_links(
    setup: TenantSetup, smtp: FakeSmtpServer
) -> tuple[PendingAction, dict[str, str]]:
    """Propose an SMS in ``setup``'s tenant, send its approver the digest, and return the action
    and the e-mail's links by what they do (their paths, for the client below)."""
    action = propose(setup.tenant, setup.staff.user)
    with tenant_context(setup.tenant):
        assert digest_run(user_id=setup.approver.user.pk).status == "sent"
    body = smtp.messages[-1].message.get_content()
    links = dict(LINK.findall(body))
    assert set(links) == {"Approve", "Reject", "Open"}, body
    return action, links


def _browser(port: int, host: str) -> httpx.Client:
    return httpx.Client(base_url=f"http://127.0.0.1:{port}", headers={"Host": host}, timeout=30)


def _csrf(page: httpx.Response) -> str:
    found = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page.text)
    assert found is not None, page.text[:800]
    return found.group(1)


def _signed_in(port: int, host: str, user: User) -> httpx.Client:
    browser = _browser(port, host)
    token = _csrf(browser.get("/login/"))
    answer = browser.post(
        "/login/",
        data={"username": user.get_username(), "password": PASSWORD, "csrfmiddlewaretoken": token},
    )
    assert answer.status_code == 302 and "sessionid" in browser.cookies, answer.text[:500]
    return browser


def _confirm(browser: httpx.Client, path: str, decision: str = "") -> httpx.Response:
    """Open the link's page and press its button (``decision``: which one, on the open page)."""
    page = browser.get(path)
    data = {"csrfmiddlewaretoken": _csrf(page)} | ({"decision": decision} if decision else {})
    return browser.post(path, data=data)


def _state(tenant: Tenant, action: PendingAction) -> tuple[str, int, int]:
    with tenant_context(tenant):
        action.refresh_from_db()
        return action.status, action.version, ActionEvent.objects.filter(action=action).count()


# -- what a link does ------------------------------------------------------------------------------


def test_opening_the_approve_link_shows_the_text_and_a_button_and_decides_nothing(
    daphne: int, alpha: TenantSetup, smtp: FakeSmtpServer
) -> None:
    action, links = _emailed_links(alpha, smtp)
    before = _state(alpha.tenant, action)
    approver = _signed_in(daphne, alpha.host, alpha.approver.user)

    page = approver.get(links["Approve"])

    assert page.status_code == 200
    assert 'data-testid="decision-link"' in page.text
    assert "No class on Friday." in page.text and "Kim Minji" in page.text
    assert re.search(r'<button[^>]*name="decision" value="approve"', page.text)
    assert _state(alpha.tenant, action) == before  # a GET (a mail scanner's too) never decides


def test_a_visitor_who_is_not_signed_in_is_sent_to_the_login_page_and_back(
    daphne: int, alpha: TenantSetup, smtp: FakeSmtpServer
) -> None:
    action, links = _emailed_links(alpha, smtp)
    visitor = _browser(daphne, alpha.host)

    answer = visitor.get(links["Approve"])

    assert answer.status_code == 302
    assert answer.headers["location"].startswith("/login/?next=/approvals/decide/")
    login = visitor.get(answer.headers["location"])
    back = visitor.post(
        answer.headers["location"],
        data={
            "username": alpha.approver.user.get_username(),
            "password": PASSWORD,
            "csrfmiddlewaretoken": _csrf(login),
        },
    )
    assert back.status_code == 302 and back.headers["location"] == links["Approve"]
    assert visitor.get(back.headers["location"]).status_code == 200
    assert _state(alpha.tenant, action)[0] == "pending"


def test_confirming_approves_once_through_the_inbox_service_and_a_second_use_says_so(
    daphne: int, alpha: TenantSetup, smtp: FakeSmtpServer
) -> None:
    action, links = _emailed_links(alpha, smtp)
    approver = _signed_in(daphne, alpha.host, alpha.approver.user)

    done = _confirm(approver, links["Approve"])

    assert done.status_code == 200 and "Approved" in done.text
    with tenant_context(alpha.tenant):
        action.refresh_from_db()
        assert action.status in ("approved", "executing", "executed")
        assert action.decided_by_id == alpha.approver.user.pk
        kinds = list(ActionEvent.objects.filter(action=action).values_list("kind", "actor_id"))
    assert ("approved", alpha.approver.user.pk) in kinds
    after = _state(alpha.tenant, action)

    again = approver.get(links["Approve"])
    replayed = approver.post(links["Approve"], data={"csrfmiddlewaretoken": _csrf(again)})
    rejected = _confirm(approver, links["Reject"])

    for page in (again, replayed, rejected):
        assert page.status_code == 409
        assert "already used" in page.text
        assert f"approved by {alpha.approver.user.get_username()}" in page.text
    assert _state(alpha.tenant, action) == after


def test_the_reject_link_rejects_and_the_open_link_offers_both(
    daphne: int, alpha: TenantSetup, smtp: FakeSmtpServer
) -> None:
    first, first_links = _emailed_links(alpha, smtp)
    approver = _signed_in(daphne, alpha.host, alpha.approver.user)

    opened = approver.get(first_links["Open"])
    assert re.search(r'name="decision" value="approve"', opened.text)
    assert re.search(r'name="decision" value="reject"', opened.text)
    assert f"/approvals/#action-{first.pk}" in opened.text  # and the card in the inbox

    assert "Rejected" in _confirm(approver, first_links["Reject"]).text
    assert _state(alpha.tenant, first)[0] == "rejected"


def test_an_action_decided_in_the_inbox_meanwhile_says_by_whom_and_changes_nothing(
    daphne: int, alpha: TenantSetup, smtp: FakeSmtpServer
) -> None:
    action, links = _emailed_links(alpha, smtp)
    colleague = make_user(alpha.tenant, "a-colleague", role=APPROVER)
    with tenant_context(alpha.tenant):
        pending_action_decide(action_id=action.pk, user=colleague, decision="reject")
    before = _state(alpha.tenant, action)
    approver = _signed_in(daphne, alpha.host, alpha.approver.user)

    page = approver.get(links["Approve"])
    posted = approver.post(links["Approve"], data={"csrfmiddlewaretoken": _csrf(page)})

    for answer in (page, posted):
        assert answer.status_code == 409
        assert "already decided" in answer.text and "rejected by a-colleague" in answer.text
    assert _state(alpha.tenant, action) == before


# -- links that change nothing ---------------------------------------------------------------------


def test_a_forged_link_gets_a_clear_page_and_changes_nothing(
    daphne: int, alpha: TenantSetup, smtp: FakeSmtpServer
) -> None:
    action, links = _emailed_links(alpha, smtp)
    approver = _signed_in(daphne, alpha.host, alpha.approver.user)
    token = links["Approve"].split("/")[-2]
    signed, signature = token.rsplit(":", 1)
    with tenant_context(alpha.tenant):  # the real link's ids, signed with another key
        made = decision_link_read(token=token)
    other_key = made.signed(key="not-the-secret-key-" + "x" * 40)
    before = _state(alpha.tenant, action)

    for forged in (f"{signed}:{signature[::-1]}", other_key, "garbage", token.replace(":", "x")):
        page = approver.get(f"/approvals/decide/{forged}/")
        posted = approver.post(
            f"/approvals/decide/{forged}/",
            data={"csrfmiddlewaretoken": approver.cookies["csrftoken"]},
        )
        for answer in (page, posted):
            assert answer.status_code == 400, forged
            assert "This link is not valid" in answer.text
    assert _state(alpha.tenant, action) == before


def test_an_expired_link_gets_a_clear_page_and_changes_nothing(
    daphne: int, alpha: TenantSetup, smtp: FakeSmtpServer
) -> None:
    action, _ = _emailed_links(alpha, smtp)
    with tenant_context(alpha.tenant):
        # Signed N days ago: at most N days, however long the action may wait.
        stale = decision_link_token(
            user=alpha.approver.user,
            action=action,
            purpose="approve",
            issued_at=timezone.now() - timedelta(days=settings.APPROVAL_LINK_MAX_DAYS, minutes=1),
        )
    approver = _signed_in(daphne, alpha.host, alpha.approver.user)
    before = _state(alpha.tenant, action)

    page = approver.get(f"/approvals/decide/{stale}/")
    posted = approver.post(
        f"/approvals/decide/{stale}/", data={"csrfmiddlewaretoken": approver.cookies["csrftoken"]}
    )

    for answer in (page, posted):
        assert answer.status_code == 410
        assert "This link has expired" in answer.text
    assert _state(alpha.tenant, action) == before


def test_a_link_of_an_action_past_its_expiry_gets_a_clear_page_and_changes_nothing(
    daphne: int, alpha: TenantSetup, smtp: FakeSmtpServer
) -> None:
    action, links = _emailed_links(alpha, smtp)
    with tenant_context(alpha.tenant):
        PendingAction.objects.filter(pk=action.pk).update(
            expires_at=timezone.now() - timedelta(seconds=1)
        )
    approver = _signed_in(daphne, alpha.host, alpha.approver.user)

    page = approver.get(links["Approve"])

    assert page.status_code == 410 and "expired" in page.text
    assert _state(alpha.tenant, action)[0] in ("pending", "expired")  # never approved


def test_a_link_to_a_version_edited_since_gets_a_clear_page_and_changes_nothing(
    daphne: int, alpha: TenantSetup, smtp: FakeSmtpServer
) -> None:
    action, links = _emailed_links(alpha, smtp)
    editor = make_user(alpha.tenant, "a-editor", role=APPROVER)
    with tenant_context(alpha.tenant):
        pending_action_decide(
            action_id=action.pk,
            user=editor,
            decision="approve",
            arguments={"to": ["Kim Minji"], "body": "No class on Friday or Saturday."},
        )
    before = _state(alpha.tenant, action)
    assert before[:2] == ("edited", 2)
    approver = _signed_in(daphne, alpha.host, alpha.approver.user)

    page = approver.get(links["Approve"])
    posted = approver.post(
        links["Approve"], data={"csrfmiddlewaretoken": approver.cookies["csrftoken"]}
    )

    for answer in (page, posted):
        assert answer.status_code == 409
        assert "was edited after this e-mail was sent" in answer.text
        assert "Saturday" not in answer.text  # what it says now is read in the inbox
    assert _state(alpha.tenant, action) == before


def test_another_approver_signed_in_is_refused_and_nothing_changes(
    daphne: int, alpha: TenantSetup, smtp: FakeSmtpServer
) -> None:
    action, links = _emailed_links(alpha, smtp)
    colleague = make_user(alpha.tenant, "a-colleague", role=APPROVER)
    other = _signed_in(daphne, alpha.host, colleague)
    before = _state(alpha.tenant, action)

    page = other.get(links["Approve"])
    posted = other.post(links["Approve"], data={"csrfmiddlewaretoken": other.cookies["csrftoken"]})

    for answer in (page, posted):
        assert answer.status_code == 403
        assert "This link was sent to another person" in answer.text
        assert "No class on Friday" not in answer.text
    assert _state(alpha.tenant, action) == before


def test_a_link_of_one_tenant_on_another_tenants_host_changes_nothing_in_either(
    daphne: int, alpha: TenantSetup, beta: TenantSetup, smtp: FakeSmtpServer
) -> None:
    action, links = _emailed_links(alpha, smtp)
    on_b = _signed_in(daphne, beta.host, beta.approver.user)
    before = _state(alpha.tenant, action)

    page = on_b.get(links["Approve"])
    posted = on_b.post(links["Approve"], data={"csrfmiddlewaretoken": on_b.cookies["csrftoken"]})

    for answer in (page, posted):
        assert answer.status_code == 403
        assert "This link belongs to another organisation" in answer.text
        assert "No class on Friday" not in answer.text
    assert _state(alpha.tenant, action) == before
    with tenant_context(beta.tenant):
        assert not PendingAction.objects.exists() and not ActionEvent.objects.exists()


def test_two_confirmations_at_once_decide_once_and_the_other_is_told_it_was_used(
    daphne: int, alpha: TenantSetup, smtp: FakeSmtpServer
) -> None:
    action, links = _emailed_links(alpha, smtp)
    tabs = [_signed_in(daphne, alpha.host, alpha.approver.user) for _ in range(2)]
    tokens = [_csrf(tab.get(links["Approve"])) for tab in tabs]

    with ThreadPoolExecutor(2) as pool:
        answers = list(
            pool.map(
                lambda pair: pair[0].post(links["Approve"], data={"csrfmiddlewaretoken": pair[1]}),
                zip(tabs, tokens, strict=True),
            )
        )

    assert sorted(answer.status_code for answer in answers) == [200, 409]
    with tenant_context(alpha.tenant):
        approvals = ActionEvent.objects.filter(action=action, kind="approved").count()
    assert approvals == 1
