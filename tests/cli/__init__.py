"""mutograd/cli/ and ``python -m mutograd``: the commands, the demo, progress bars."""
