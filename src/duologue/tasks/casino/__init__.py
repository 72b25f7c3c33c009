"""The casino task: everything about it lives in this folder."""
