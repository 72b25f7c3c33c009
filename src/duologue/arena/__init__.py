"""Playing many episodes: self-play runs (locally or on Ray), reports with intervals, agent ratings and tournaments."""
