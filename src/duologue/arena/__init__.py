"""Playing many episodes: self-play runs, reports with intervals, and (later) tournaments."""
