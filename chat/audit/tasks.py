"""The audit trail's nightly jobs, run once per tenant by ``tenants.fan_out`` (beat)."""

from __future__ import annotations

from chat.audit.services import audit_chain_check, audit_retention_apply
from core.celery import app


@app.task(name="chat.audit_verify_chain")
def audit_verify_chain() -> bool:
    """Verify this tenant's chain; a break is counted (``audit_chain_breaks``) and logged at
    ERROR with the tenant and the first broken event."""
    return audit_chain_check()


@app.task(name="chat.audit_redact_old_events")
def audit_redact_old_events() -> int:
    """Empty the text of events older than the tenant's ``audit_redact_after_days``."""
    return audit_retention_apply()
