"""Writes of the actions app, one module per concern (STYLE.md: a growing module becomes a
package). Import from the module: ``from actions.services.messages import …``."""
