"""The openchat task: everything about it lives in this folder."""
