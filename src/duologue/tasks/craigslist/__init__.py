"""The craigslist task: everything about it lives in this folder."""
