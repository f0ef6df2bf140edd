"""The write tools the assistant can propose, and their registry (see base.py)."""
