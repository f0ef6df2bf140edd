"""Tenants (one PostgreSQL schema each) and the host names that select them."""

from django.db import models
from django_tenants.models import DomainMixin, TenantMixin


class Tenant(TenantMixin):
    """An organisation. Its users, conversations, documents and actions live in its schema."""

    name = models.CharField(max_length=200)
    created_at = models.DateTimeField(auto_now_add=True)
    is_active = models.BooleanField(default=True)

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
