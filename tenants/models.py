"""Tenants (one PostgreSQL schema each) and the host names that select them."""

from zoneinfo import ZoneInfo, ZoneInfoNotFoundError, available_timezones

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import models
from django_tenants.models import DomainMixin, TenantMixin


def default_time_zone() -> str:
    """A new tenant starts in the deployment's zone (``TIME_ZONE``) until an admin picks its own."""
    return str(settings.TIME_ZONE)


def validate_time_zone(value: str) -> None:
    """Only IANA names ("Asia/Seoul"): dates the assistant reads and shows are local to it."""
    if value not in available_timezones():
        raise ValidationError(f"{value!r} is not an IANA time zone name such as 'Asia/Seoul'")


class UnapprovableRequests(models.TextChoices):
    """What happens to a request nobody but its requester may approve (docs/web.md, "Nobody
    else can approve"): it can only expire unless a tenant admin adds an approver."""

    NOTIFY_ADMINS = "notify_admins", "Tell the tenant admins at once (their next digest)"
    REJECT = "reject", "Refuse it at once, before anyone is told"


class Tenant(TenantMixin):
    """An organisation. Its users, conversations, documents and actions live in its schema."""

    name = models.CharField(max_length=200)
    created_at = models.DateTimeField(auto_now_add=True)
    is_active = models.BooleanField(default=True)
    monthly_token_budget = models.PositiveBigIntegerField(
        null=True,
        blank=True,
        help_text="Model tokens (input + output) a calendar month may use; once spent, new "
        "questions are refused until the 1st. Empty: unlimited.",
    )
    time_zone = models.CharField(
        max_length=64,
        default=default_time_zone,
        validators=[validate_time_zone],
        help_text='IANA name, e.g. Asia/Seoul: "tomorrow at 9am" means 9am here, and times '
        "are shown in this zone.",
    )
    audit_redact_after_days = models.PositiveIntegerField(
        null=True,
        blank=True,
        help_text="Empty the message text and recipients of audit events older than this many "
        "days (who, what and when stay, and so does the hash chain). Empty: keep them.",
    )
    unapprovable_requests = models.CharField(
        max_length=16,
        choices=UnapprovableRequests.choices,
        default=UnapprovableRequests.NOTIFY_ADMINS,
        help_text="A request nobody but its requester may approve (the tool's approver group "
        "is empty, or holds only whoever asked): flagged to the requester and the tenant "
        "admins either way.",
    )

    # Create the schema and migrate it when a tenant is saved for the first time.
    auto_create_schema = True
    auto_drop_schema = False

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return f"{self.name} ({self.schema_name})"

    @property
    def zone(self) -> ZoneInfo:
        """The tenant's zone; the deployment's if the stored name stopped being valid."""
        try:
            return ZoneInfo(self.time_zone)
        except (ZoneInfoNotFoundError, ValueError):
            return ZoneInfo(default_time_zone())


class Domain(DomainMixin):
    """A host name (``acme.example.com``) that resolves to a tenant, for HTTP and WebSocket."""

    def __str__(self) -> str:
        return self.domain


class TenantUsageDay(models.Model):
    """A tenant's model usage on one day, for the platform admin (public schema).

    Written in the same transaction as the tenant's own ``chat.UsageDay`` row, so the two always
    agree; the platform reads this table instead of visiting every tenant schema.
    """

    tenant = models.ForeignKey(Tenant, on_delete=models.CASCADE, related_name="usage_days")
    date = models.DateField()
    input_tokens = models.BigIntegerField(default=0)
    output_tokens = models.BigIntegerField(default=0)
    cost = models.DecimalField(max_digits=16, decimal_places=6, default=0)
    turns = models.PositiveIntegerField(default=0)

    class Meta:
        ordering = ["-date", "tenant__name"]
        constraints = [
            models.UniqueConstraint(fields=["tenant", "date"], name="tenant_usage_day_once")
        ]

    def __str__(self) -> str:
        return f"{self.tenant_id} {self.date}"
