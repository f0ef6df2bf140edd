"""Agent evaluations (DESIGN §10): case sets, runs and results in the tenant's schema.

A run sends every case through the real agent graph in a transaction that is rolled back, so
nothing it proposes can be approved, executed or delivered (see ``runner.py``).
"""
