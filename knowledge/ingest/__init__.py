"""Turning uploaded files into text and chunks; pure logic, no Django imports."""
