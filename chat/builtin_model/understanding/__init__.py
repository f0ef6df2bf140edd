"""How the built-in (offline) model understands requests: intent by meaning, recipients,
bodies and times, and the one short question when something is missing.

Entry point: ``understand(text, *, history, directory, now, tz, classifier) -> Understanding``
(pure, in ``understand.py``). For a graph run, ``context.run_request(messages)`` reads the
request with its tenant's data (from the run's config) and ``context.understand_request`` calls
``understand`` on it.
"""

from chat.builtin_model.understanding.directory import ContactEntry, Directory, Requester
from chat.builtin_model.understanding.intent import ROUTES, IntentClassifier, Label
from chat.builtin_model.understanding.understand import Understanding, understand

__all__ = [
    "ROUTES",
    "ContactEntry",
    "Directory",
    "IntentClassifier",
    "Label",
    "Requester",
    "Understanding",
    "understand",
]
