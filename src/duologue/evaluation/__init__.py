"""Evaluation and analysis: agreement between raters, correlations between ratings and outcomes,
the corpus analyses (`duologue analyze`), an LLM judge, and HTML reports."""
