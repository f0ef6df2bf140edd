"""How the built-in (offline) model understands requests: intent by meaning, recipients,
bodies and times, and the one short question when something is missing.

Entry point: ``understand(text, *, history, directory, now, tz, classifier) -> Understanding``
(pure, in ``understand.py``); ``context.understand_run(messages)`` calls it for a graph run,
loading the run's tenant data from the run's config.
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
