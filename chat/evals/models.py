"""Evaluation case sets, cases, runs and per-case results (tenant schema, chat app)."""

from __future__ import annotations

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import models

from chat.evals.cases import CaseFileError, case_set_parse


class EvalCaseSet(models.Model):
    """A named list of cases, e.g. the demo set or one imported from a file."""

    name = models.CharField(max_length=200, unique=True)
    description = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["name"]
        verbose_name = "eval case set"

    def __str__(self) -> str:
        return self.name


class EvalCase(models.Model):
    """One request (or a short exchange of user messages) and what must come back.

    ``expect`` follows the case format of docs/agent.md and is checked by
    ``chat.evals.checks``; ``setup`` may switch tools off for this case only.
    """

    class Language(models.TextChoices):
        EN = "en", "English"
        KO = "ko", "Korean"

    case_set = models.ForeignKey(EvalCaseSet, on_delete=models.CASCADE, related_name="cases")
    key = models.CharField(max_length=120, help_text="Unique within the set, e.g. 'sms-emma-1'.")
    language = models.CharField(max_length=2, choices=Language.choices, default=Language.EN)
    tags = models.JSONField(default=list, blank=True)
    messages = models.JSONField(help_text='The user\'s messages, in order: ["...", ...].')
    expect = models.JSONField(help_text="What must come back (see docs/agent.md).")
    setup = models.JSONField(default=dict, blank=True)

    class Meta:
        ordering = ["case_set", "id"]
        verbose_name = "eval case"
        constraints = [
            models.UniqueConstraint(fields=["case_set", "key"], name="eval_case_key_once_per_set"),
        ]

    def __str__(self) -> str:
        return self.key

    def clean(self) -> None:
        """Hold a case edited in admin to the file format, so a run never meets a bad one."""
        data = {
            "key": self.key,
            "language": self.language,
            "tags": self.tags,
            "messages": self.messages,
            "expect": self.expect,
            "setup": self.setup,
        }
        try:
            case_set_parse([data], default_name="admin")
        except CaseFileError as error:
            raise ValidationError(str(error)) from None


class EvalRun(models.Model):
    """One execution of a case set with one model and one prompt version."""

    class Status(models.TextChoices):
        QUEUED = "queued"
        RUNNING = "running"
        FINISHED = "finished"
        FAILED = "failed"

    case_set = models.ForeignKey(EvalCaseSet, on_delete=models.CASCADE, related_name="runs")
    model_label = models.CharField(max_length=200, blank=True)
    # Null: the version that was active when the run started (recorded in prompt_label).
    prompt_version = models.ForeignKey(
        "chat.AssistantPrompt", on_delete=models.SET_NULL, null=True, blank=True
    )
    prompt_label = models.CharField(max_length=100, blank=True)
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.QUEUED)
    # {"cases", "passed", "tool_right", "args_cases", "args_right", "by_language": {...}}
    totals = models.JSONField(default=dict, blank=True)
    error = models.TextField(blank=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True
    )
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]
        verbose_name = "eval run"

    def __str__(self) -> str:
        return f"run {self.pk} of {self.case_set} ({self.status})"


class EvalResult(models.Model):
    """What one case produced in one run, and each check's verdict."""

    run = models.ForeignKey(EvalRun, on_delete=models.CASCADE, related_name="results")
    case = models.ForeignKey(EvalCase, on_delete=models.CASCADE, related_name="results")
    passed = models.BooleanField(default=False)
    # [{"check": "tool", "passed": true, "detail": "send_sms"}, ...]
    checks = models.JSONField(default=list, blank=True)
    reply = models.TextField(blank=True)
    citations = models.JSONField(default=list, blank=True)
    # {"tool", "arguments", "description", "status"} of the proposal, or {}.
    action = models.JSONField(default=dict, blank=True)
    error = models.TextField(blank=True)

    class Meta:
        ordering = ["run", "case_id"]
        verbose_name = "eval result"
        constraints = [
            models.UniqueConstraint(fields=["run", "case"], name="eval_result_once_per_case"),
        ]

    def __str__(self) -> str:
        return f"{self.case} {'passed' if self.passed else 'failed'}"
