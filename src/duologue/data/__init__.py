"""Generic corpus IO: reading, validating, writing and describing dialogues of any corpus."""
