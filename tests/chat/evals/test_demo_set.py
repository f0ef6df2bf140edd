"""The demo seed loads the demo case set, so a new tenant admin finds it in admin."""

from __future__ import annotations

from django.apps import apps

from chat.evals.models import EvalCase, EvalCaseSet
from tenants.models import Tenant


def test_demo_seeding_loads_the_demo_case_set_once(in_tenant_a: Tenant) -> None:
    config = apps.get_app_config("chat")

    config.seed_demo(in_tenant_a)  # type: ignore[attr-defined]
    config.seed_demo(in_tenant_a)  # type: ignore[attr-defined]

    case_set = EvalCaseSet.objects.get()
    assert case_set.name == "demo" and case_set.cases.count() >= 150
    assert case_set.cases.filter(language=EvalCase.Language.KO).count() >= 60
