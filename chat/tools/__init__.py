"""The agent's tools: read tools run at once, write tools go through approval.

``registry.py`` lists them all; read tools are the modules beside it.
"""
