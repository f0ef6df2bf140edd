"""The tamper-evident audit trail of pending actions (docs/operations.md, "Audit trail").

``chain`` is the pure hashing and checking (no Django), ``services`` appends and redacts,
``selectors`` reads a period and verifies a tenant's chain, ``export`` writes JSON Lines and
CSV. The database keeps the rows append-only (trigger of migration ``chat.0011``).
"""
