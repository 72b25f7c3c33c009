"""The live platform."""
