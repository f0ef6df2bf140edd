"""The OpenAI function-calling format every tool is described to the model in."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel


def function_spec(name: str, description: str, arguments: type[BaseModel]) -> dict[str, Any]:
    return {
        "type": "function",
        "function": {
            "name": name,
            "description": description,
            "parameters": arguments.model_json_schema(),
        },
    }
