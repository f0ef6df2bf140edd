"""The graph runner: one compiled graph per process for the configured model, public APIs only."""

from __future__ import annotations

import re

import pytest
from pytest_django.fixtures import Settings as SettingsWrapper

from chat.agent.graph import reset_checkpointer
from chat.agent.runner import graph_for
from tests.chat.scripted import ScriptedChatModel
from tests.source_lines import lines_matching

pytestmark = pytest.mark.django_db

_PRIVATE_IMPORT = re.compile(
    r"^\s*(from\s+(langchain\w*|langgraph)[\w.]*\._\w+\s+import"
    r"|from\s+(langchain\w*|langgraph)[\w.]*\s+import\s+.*\b_\w+"
    r"|import\s+(langchain\w*|langgraph)[\w.]*\._\w+)"
)


def test_the_configured_models_graph_is_compiled_once_per_process() -> None:
    assert graph_for(None) is graph_for(None)


def test_another_model_setting_gets_a_graph_of_its_own(settings: SettingsWrapper) -> None:
    before = graph_for(None)
    settings.OFFLINE_MODEL_CHUNK_MS = settings.OFFLINE_MODEL_CHUNK_MS + 1

    assert graph_for(None) is not before


def test_a_model_passed_in_gets_its_own_graph_every_time() -> None:
    model = ScriptedChatModel(replies=[])

    assert graph_for(model) is not graph_for(model)
    assert graph_for(model) is not graph_for(None)


def test_closing_the_checkpointer_pool_drops_the_graph_that_held_it() -> None:
    before = graph_for(None)
    reset_checkpointer()

    assert graph_for(None) is not before


def test_no_module_imports_a_private_langchain_or_langgraph_name() -> None:
    offenders = lines_matching(_PRIVATE_IMPORT)
    assert offenders == []
