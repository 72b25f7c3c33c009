"""The mutualfriends task: everything about it lives in this folder."""
