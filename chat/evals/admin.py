"""Tenant admin of agent evaluations: case sets and cases, runs and their results.

A tenant admin runs a set now (a Celery task in this tenant), or against any prompt version,
e.g. a draft before activating it; a run's page shows its table and results; two runs compare
side by side. The admin site is per tenant host, so another tenant's runs are not there.
"""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import admin, messages
from django.contrib.auth.models import User
from django.core.exceptions import PermissionDenied
from django.db.models import QuerySet
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.template.response import TemplateResponse
from django.urls import URLPattern, path, reverse
from django.utils.html import format_html

from chat.evals.cases import CaseFileError, case_set_dump, case_set_parse_text
from chat.evals.models import EvalCase, EvalCaseSet, EvalResult, EvalRun
from chat.evals.report import compare_rows, failure_lines, summary_table
from chat.evals.selectors import eval_rows, eval_run_get
from chat.evals.services import eval_case_set_export, eval_case_set_import, eval_run_enqueue
from chat.models import AssistantPrompt

RUN_PERMISSION = "chat.add_evalrun"


def _author(request: HttpRequest) -> User | None:
    return request.user if isinstance(request.user, User) else None


class EvalCaseInline(admin.TabularInline):
    model = EvalCase
    fields = ("key", "language", "tags", "messages", "expect", "setup")
    extra = 0


class RunForm(forms.Form):
    prompt_version = forms.ModelChoiceField(
        queryset=AssistantPrompt.objects.all(),
        required=False,
        empty_label="the active version",
        help_text="Run against any version, e.g. a new one before you activate it.",
    )


class ImportForm(forms.Form):
    file = forms.FileField(help_text="A YAML or JSON case file (format: docs/agent.md).")


@admin.register(EvalCaseSet)
class EvalCaseSetAdmin(admin.ModelAdmin):
    list_display = ("name", "case_count", "latest_run", "run_link")
    search_fields = ("name",)
    inlines = [EvalCaseInline]
    actions = ["run_now", "export_yaml"]

    @admin.display(description="cases")
    def case_count(self, obj: EvalCaseSet) -> int:
        return obj.cases.count()

    @admin.display(description="latest run")
    def latest_run(self, obj: EvalCaseSet) -> str:
        run = obj.runs.first()
        if run is None:
            return "-"
        totals = run.totals or {}
        return f"#{run.pk} {run.status}: {totals.get('passed', 0)}/{totals.get('cases', 0)}"

    @admin.display(description="")
    def run_link(self, obj: EvalCaseSet) -> str:
        url = reverse("admin:chat_evalcaseset_run", args=[obj.pk])
        return format_html('<a href="{}">Run with a prompt version…</a>', url)

    @admin.action(description="Run this case set now", permissions=["run"])
    def run_now(self, request: HttpRequest, queryset: QuerySet[EvalCaseSet]) -> None:
        runs = [eval_run_enqueue(case_set=s, user=_author(request)) for s in queryset]
        self.message_user(request, f"Queued {len(runs)} run(s); results appear under Eval runs.")

    @admin.action(description="Export the selected set as YAML")
    def export_yaml(self, request: HttpRequest, queryset: QuerySet[EvalCaseSet]) -> HttpResponse:
        if queryset.count() != 1:
            self.message_user(request, "Select exactly one set.", level=messages.ERROR)
            return HttpResponseRedirect(request.get_full_path())
        case_set = queryset.get()
        text = case_set_dump(eval_case_set_export(case_set=case_set))
        response = HttpResponse(text, content_type="application/yaml; charset=utf-8")
        response["Content-Disposition"] = f'attachment; filename="eval-{case_set.pk}.yaml"'
        return response

    def has_run_permission(self, request: HttpRequest) -> bool:
        return request.user.has_perm(RUN_PERMISSION)

    def get_urls(self) -> list[URLPattern]:
        run = self.admin_site.admin_view(self.run_view)
        upload = self.admin_site.admin_view(self.import_view)
        own = [
            path("<int:pk>/run/", run, name="chat_evalcaseset_run"),
            path("import/", upload, name="chat_evalcaseset_import"),
        ]
        return own + super().get_urls()

    def import_view(self, request: HttpRequest) -> HttpResponse:
        """Create or update a set from an uploaded case file (cases matched by key)."""
        if not (self.has_add_permission(request) and self.has_change_permission(request)):
            raise PermissionDenied
        form = ImportForm(request.POST or None, request.FILES or None)
        if request.method == "POST" and form.is_valid():
            upload = form.cleaned_data["file"]
            try:
                spec = case_set_parse_text(upload.read(), name=upload.name)
            except CaseFileError as error:
                form.add_error("file", str(error))
            else:
                case_set = eval_case_set_import(spec=spec)
                self.message_user(request, f"Imported {len(spec.cases)} cases into {case_set}.")
                return HttpResponseRedirect(
                    reverse("admin:chat_evalcaseset_change", args=[case_set.pk])
                )
        return self._form_page(request, "Import a case file", form, intro="")

    def run_view(self, request: HttpRequest, pk: int) -> HttpResponse:
        """Choose a prompt version (or the active one) and queue a run of the set."""
        if not self.has_run_permission(request):
            raise PermissionDenied
        case_set = EvalCaseSet.objects.filter(pk=pk).first()
        if case_set is None:
            raise Http404("no such case set")
        form = RunForm(request.POST or None)
        if request.method == "POST" and form.is_valid():
            run = eval_run_enqueue(
                case_set=case_set,
                prompt_version=form.cleaned_data["prompt_version"],
                user=_author(request),
            )
            self.message_user(request, f"Queued run #{run.pk}.")
            return HttpResponseRedirect(reverse("admin:chat_evalrun_change", args=[run.pk]))
        intro = (
            f"{case_set.cases.count()} cases run through the assistant in throw-away "
            "conversations; nothing they propose is ever approved or sent."
        )
        return self._form_page(request, f"Run {case_set.name}", form, intro=intro)

    def _form_page(
        self, request: HttpRequest, title: str, form: forms.Form, *, intro: str
    ) -> HttpResponse:
        context = {
            **self.admin_site.each_context(request),
            "title": title,
            "intro": intro,
            "form": form,
            "opts": self.model._meta,
        }
        return TemplateResponse(request, "admin/chat/evalcaseset/form.html", context)


class ReadOnly(admin.ModelAdmin):
    """Runs and results are records of what happened: never edited by hand."""

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


class EvalResultInline(admin.TabularInline):
    model = EvalResult
    fields = ("case", "passed", "failed_checks", "reply", "action", "error")
    readonly_fields = fields
    extra = 0
    can_delete = False

    @admin.display(description="failed checks")
    def failed_checks(self, obj: EvalResult) -> str:
        return "; ".join(f"{c['check']}: {c['detail']}" for c in obj.checks if not c["passed"])

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


@admin.register(EvalRun)
class EvalRunAdmin(ReadOnly):
    list_display = ("__str__", "model_label", "prompt_label", "score", "created_at")
    list_filter = ("status", "case_set", "model_label")
    fields = (
        "case_set",
        "status",
        "model_label",
        "prompt_label",
        "table",
        "failures",
        "created_by",
        "started_at",
        "finished_at",
        "error",
    )
    readonly_fields = fields
    inlines = [EvalResultInline]
    actions = ["compare"]

    @admin.display(description="passed")
    def score(self, obj: EvalRun) -> str:
        return f"{obj.totals.get('passed', 0)}/{obj.totals.get('cases', 0)}" if obj.totals else "-"

    @admin.display(description="results")
    def table(self, obj: EvalRun) -> str:
        return format_html("<pre>{}</pre>", summary_table(obj.totals)) if obj.totals else "-"

    @admin.display(description="failures")
    def failures(self, obj: EvalRun) -> str:
        return format_html("<pre>{}</pre>", "\n".join(failure_lines(eval_rows(run=obj))))

    @admin.action(description="Compare the two selected runs")
    def compare(self, request: HttpRequest, queryset: QuerySet[EvalRun]) -> HttpResponse | None:
        ids = sorted(queryset.values_list("pk", flat=True))
        if len(ids) != 2:
            self.message_user(request, "Select exactly two runs.", level=messages.ERROR)
            return None
        return HttpResponseRedirect(reverse("admin:chat_evalrun_compare", args=ids))

    def get_urls(self) -> list[URLPattern]:
        view = self.admin_site.admin_view(self.compare_view)
        own = [path("compare/<int:first>/<int:second>/", view, name="chat_evalrun_compare")]
        return own + super().get_urls()

    def compare_view(self, request: HttpRequest, first: int, second: int) -> HttpResponse:
        """Two runs side by side: per case, pass or fail in each."""
        if not self.has_view_permission(request):
            raise PermissionDenied
        runs = [eval_run_get(run_id=first), eval_run_get(run_id=second)]
        if runs[0] is None or runs[1] is None:
            raise Http404("no such run")
        rows = compare_rows(eval_rows(run=runs[0]), eval_rows(run=runs[1]))
        context = {
            **self.admin_site.each_context(request),
            "title": f"Run {first} and run {second}",
            "runs": runs,
            "rows": rows,
            "opts": self.model._meta,
        }
        return TemplateResponse(request, "admin/chat/evalrun/compare.html", context)


@admin.register(EvalResult)
class EvalResultAdmin(ReadOnly):
    list_display = ("case", "run", "passed")
    list_filter = ("passed", "run", "case__language")
    search_fields = ("case__key", "reply")
    fields = ("run", "case", "passed", "checks", "reply", "citations", "action", "error")
    readonly_fields = fields
