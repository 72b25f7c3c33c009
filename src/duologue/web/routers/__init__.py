"""One router per resource: lobby, chat, questionnaires, rating jobs, admin."""
