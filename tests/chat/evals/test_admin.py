"""The tenant admin pages of evaluations: per tenant, for tenant admins only, runs queued."""

from __future__ import annotations

import pytest
import yaml
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django_tenants.utils import tenant_context
from langchain_core.messages import AIMessage

from chat.evals.cases import case_set_parse_text
from chat.evals.models import EvalCaseSet, EvalRun
from chat.evals.services import eval_run_create, eval_run_execute
from chat.services.prompts import assistant_prompt_publish
from chat.tasks import run_eval
from core.schema import use_public_schema
from tenants.models import Tenant
from tenants.roles import STAFF, TENANT_ADMIN
from tests.actions.conftest import wait_until
from tests.chat.evals.conftest import DECLINE_CASE, SMS_CASE, case_set_of
from tests.chat.scripted import ScriptedChatModel, tool_call
from tests.conftest import host_client
from tests.tenants.factories import http_login, make_user

NOT_COVERED = "The knowledge base does not cover that, so I can't answer it reliably."


def logged_in(tenant: Tenant, username: str, role: str = TENANT_ADMIN) -> Client:
    make_user(tenant, username, role=role)
    client = host_client(tenant)
    assert http_login(client, username)
    return client


def smoke_set_tenant() -> Tenant:
    """The tenant the ``smoke_set`` fixture lives in."""
    return Tenant.objects.get(schema_name="alpha")


def finished_run(case_set: EvalCaseSet, reply: str = NOT_COVERED) -> EvalRun:
    replies = [tool_call("send_sms", to=["Parents"], body="School closes at 1pm"), AIMessage(reply)]
    run = eval_run_create(case_set=case_set)
    return eval_run_execute(run_id=run.pk, model=ScriptedChatModel(replies=replies))


def test_a_tenant_admin_sees_the_case_sets_and_a_runs_results(smoke_set: EvalCaseSet) -> None:
    run = finished_run(smoke_set)
    client = logged_in(smoke_set_tenant(), "ada")

    listing = client.get("/admin/chat/evalcaseset/")
    page = client.get(f"/admin/chat/evalrun/{run.pk}/change/")

    assert listing.status_code == 200 and "smoke" in listing.content.decode()
    assert page.status_code == 200
    assert "overall" in page.content.decode() and "sms-parents" in page.content.decode()


def test_staff_are_refused_the_evaluation_pages(smoke_set: EvalCaseSet) -> None:
    client = logged_in(smoke_set_tenant(), "sid", role=STAFF)

    for url in (
        "/admin/chat/evalcaseset/",
        "/admin/chat/evalrun/",
        f"/admin/chat/evalcaseset/{smoke_set.pk}/run/",
    ):
        response = client.get(url)
        assert response.status_code == 302 and "/login/" in response["Location"]


def test_the_compare_page_shows_two_runs_side_by_side(smoke_set: EvalCaseSet) -> None:
    first, second = finished_run(smoke_set), finished_run(smoke_set, reply="Ulaanbaatar.")
    client = logged_in(smoke_set_tenant(), "ada")

    response = client.get(f"/admin/chat/evalrun/compare/{first.pk}/{second.pk}/")

    body = response.content.decode()
    assert response.status_code == 200
    assert "<td>capital</td><td>pass</td><td>FAIL</td>" in body


def test_the_run_page_queues_a_run_against_a_draft_prompt_version(
    smoke_set: EvalCaseSet, django_capture_on_commit_callbacks: object
) -> None:
    draft = assistant_prompt_publish(text="Draft.", user=None)
    assistant_prompt_publish(text="Active.", user=None)
    client = logged_in(smoke_set_tenant(), "ada")

    with django_capture_on_commit_callbacks(execute=False) as callbacks:  # type: ignore[operator]
        response = client.post(
            f"/admin/chat/evalcaseset/{smoke_set.pk}/run/", {"prompt_version": draft.pk}
        )

    run = EvalRun.objects.get()
    assert response.status_code == 302 and run.prompt_version == draft
    assert run.status == EvalRun.Status.QUEUED and len(callbacks) == 1


def test_the_admin_of_tenant_b_sees_none_of_tenant_as_runs(
    smoke_set: EvalCaseSet, tenant_b: Tenant
) -> None:
    first, second = finished_run(smoke_set), finished_run(smoke_set)
    client = logged_in(tenant_b, "bob")

    listing = client.get("/admin/chat/evalrun/")
    detail = client.get(f"/admin/chat/evalrun/{first.pk}/change/")
    compare = client.get(f"/admin/chat/evalrun/compare/{first.pk}/{second.pk}/")
    run_page = client.get(f"/admin/chat/evalcaseset/{smoke_set.pk}/run/")

    assert listing.status_code == 200 and "smoke" not in listing.content.decode()
    assert detail.status_code in (302, 404)
    assert compare.status_code == 404 and run_page.status_code == 404


@pytest.mark.django_db(transaction=True)
def test_run_this_case_set_now_runs_it_on_a_worker_in_the_tenant(
    celery_worker_thread: None, tenant_a: Tenant
) -> None:
    with tenant_context(tenant_a):
        case_set = case_set_of(SMS_CASE, DECLINE_CASE)
    client = logged_in(tenant_a, "ada")

    client.post(
        "/admin/chat/evalcaseset/",
        {"action": "run_now", "_selected_action": [case_set.pk]},
    )

    def finished() -> EvalRun | None:
        with tenant_context(tenant_a):
            return EvalRun.objects.filter(status=EvalRun.Status.FINISHED).first()

    run = wait_until(finished, timeout=120)
    assert run.totals["cases"] == 2


def test_the_eval_task_refuses_to_run_without_a_tenant(celery_worker_thread: None) -> None:
    use_public_schema()
    result = run_eval.delay(1)

    with pytest.raises(Exception, match="without a tenant"):
        result.get(timeout=20)


def test_a_case_file_uploaded_in_admin_becomes_a_set(tenant_a: Tenant) -> None:
    client = logged_in(tenant_a, "ada")
    upload = SimpleUploadedFile("mine.yaml", yaml.safe_dump([SMS_CASE, DECLINE_CASE]).encode())

    response = client.post("/admin/chat/evalcaseset/import/", {"file": upload})

    assert response.status_code == 302
    with tenant_context(tenant_a):
        case_set = EvalCaseSet.objects.get(name="mine")
        assert sorted(case_set.cases.values_list("key", flat=True)) == ["capital", "sms-parents"]


def test_a_bad_case_file_uploaded_in_admin_shows_what_is_wrong(tenant_a: Tenant) -> None:
    client = logged_in(tenant_a, "ada")
    upload = SimpleUploadedFile("bad.yaml", b"- key: k1\n  message: hi\n  expect: {}\n")

    response = client.post("/admin/chat/evalcaseset/import/", {"file": upload})

    assert response.status_code == 200
    assert "expect at least one thing" in response.content.decode()
    with tenant_context(tenant_a):
        assert not EvalCaseSet.objects.exists()


def test_a_set_exports_as_a_yaml_file_that_reads_back(smoke_set: EvalCaseSet) -> None:
    client = logged_in(smoke_set_tenant(), "ada")

    response = client.post(
        "/admin/chat/evalcaseset/", {"action": "export_yaml", "_selected_action": [smoke_set.pk]}
    )

    spec = case_set_parse_text(response.content, name="smoke.yaml")
    assert [case.key for case in spec.cases] == ["sms-parents", "capital"]
