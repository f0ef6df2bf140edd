"""Tenants (one PostgreSQL schema each) and the host names that select them."""

from django.db import models
from django_tenants.models import DomainMixin, TenantMixin


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

    # Create the schema and migrate it when a tenant is saved for the first time.
    auto_create_schema = True
    auto_drop_schema = False

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return f"{self.name} ({self.schema_name})"


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
